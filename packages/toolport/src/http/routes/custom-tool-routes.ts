import { ToolportError } from '../../core/errors.ts';
import type { CustomToolRecord } from '../../persistence/repositories/custom-tool-repository.ts';
import type { ToolportServices } from '../../services/toolport-services.ts';
import { maskConfig, mergeConfig } from '../config-masking.ts';
import { getAuthenticatedUser } from '../plugins/auth.ts';
import {
  CreateHttpToolBodySchema,
  CustomToolIdParamsSchema,
  CustomToolListResponseSchema,
  CustomToolSchema,
  PatchCustomToolBodySchema,
} from '../schemas/custom-tool-schemas.ts';
import { errorResponses } from '../schemas/error-schemas.ts';
import type { ToolportApp } from '../server-types.ts';

function toResponse(tool: CustomToolRecord) {
  return {
    id: tool.id,
    name: tool.name,
    type: tool.type,
    config: maskConfig(tool.config),
    enabled: tool.enabled,
    createdAt: tool.createdAt,
    updatedAt: tool.updatedAt,
  };
}

function toolNotFound(toolId: string): ToolportError {
  return new ToolportError('not_found', `No HTTP tool ${JSON.stringify(toolId)}.`, { details: { toolId } });
}

/**
 * Declarative HTTP tools as stored configuration (SPEC API-1 zappway routes, seed 003). `auth.value` and header
 * values are write-only. Turning rows into runnable tools is the HTTP-tool loader's job (a `UserToolSource`).
 */
export function registerCustomToolRoutes(app: ToolportApp, services: ToolportServices): void {
  const tools = services.repositories.customTools;

  app.get(
    '/api/tools/http-tool',
    {
      schema: {
        summary: "The caller's HTTP tools (credentials masked)",
        tags: ['tools'],
        response: { 200: CustomToolListResponseSchema, 401: errorResponses[401] },
      },
    },
    async (request) => ({
      tools: (await tools.list(getAuthenticatedUser(request).id, 'http')).map(toResponse),
    }),
  );

  app.post(
    '/api/tools/http-tool',
    {
      schema: {
        summary: 'Create an HTTP tool',
        tags: ['tools'],
        body: CreateHttpToolBodySchema,
        response: { 201: CustomToolSchema, 409: errorResponses[422], ...errorResponses },
      },
    },
    async (request, reply) => {
      const created = await tools.create(getAuthenticatedUser(request).id, {
        name: request.body.name,
        type: 'http',
        config: request.body.config,
        enabled: request.body.enabled ?? true,
      });
      return reply.code(201).send(toResponse(created));
    },
  );

  app.patch(
    '/api/tools/http-tool/:toolId',
    {
      schema: {
        summary: 'Rename, enable/disable, or merge a partial config into an HTTP tool',
        tags: ['tools'],
        params: CustomToolIdParamsSchema,
        body: PatchCustomToolBodySchema,
        response: { 200: CustomToolSchema, ...errorResponses },
      },
    },
    async (request) => {
      const userId = getAuthenticatedUser(request).id;
      const current = await tools.get(userId, request.params.toolId);
      if (current === undefined || current.type !== 'http') throw toolNotFound(request.params.toolId);
      const { config, ...rest } = request.body;
      const updated = await tools.update(userId, current.id, {
        ...rest,
        ...(config === undefined ? {} : { config: mergeConfig(current.config, config) }),
      });
      if (updated === undefined) throw toolNotFound(request.params.toolId);
      return toResponse(updated);
    },
  );

  app.delete(
    '/api/tools/http-tool/:toolId',
    {
      schema: {
        summary: 'Delete an HTTP tool',
        tags: ['tools'],
        params: CustomToolIdParamsSchema,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses },
      },
    },
    async (request, reply) => {
      const userId = getAuthenticatedUser(request).id;
      const current = await tools.get(userId, request.params.toolId);
      if (current === undefined || current.type !== 'http' || !(await tools.delete(userId, current.id))) {
        throw toolNotFound(request.params.toolId);
      }
      return reply.code(204).send(null);
    },
  );
}
