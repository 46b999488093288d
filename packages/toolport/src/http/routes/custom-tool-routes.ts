import type { FastifyRequest } from 'fastify';
import { ToolportError } from '../../core/errors.ts';
import type { ToolportServices } from '../../services/toolport-services.ts';
import { getAuthenticatedUser } from '../plugins/auth.ts';
import {
  CreateHttpToolBodySchema,
  CustomToolIdParamsSchema,
  CustomToolListResponseSchema,
  CustomToolSchema,
  ImportHttpToolsBodySchema,
  ImportHttpToolsResponseSchema,
  PatchCustomToolBodySchema,
  TestHttpToolBodySchema,
  TestHttpToolResponseSchema,
} from '../schemas/custom-tool-schemas.ts';
import { errorResponses } from '../schemas/error-schemas.ts';
import type { ToolportApp } from '../server-types.ts';

/**
 * SPEC HTTP-1 routes need 422 naming the field for any invalid config, shape errors included: these routes attach
 * schema validation instead of failing it with the generic 400, and report the first issue as `validation_failed`.
 */
function rejectShapeErrors(request: FastifyRequest): void {
  const error = request.validationError as
    | (Error & {
        validation?: Array<{ instancePath: string; message?: string; params?: Record<string, unknown> }>;
      })
    | undefined;
  if (error === undefined) return;
  const issue = error.validation?.[0];
  const extra = issue?.params?.additionalProperty;
  const missing = issue?.params?.missingProperty;
  const child = typeof extra === 'string' ? extra : typeof missing === 'string' ? missing : undefined;
  const path = `${issue?.instancePath ?? ''}${child === undefined ? '' : `/${child}`}`;
  // Fields are named inside the config, as the service names them (`url`, `auth.value`).
  const field =
    path
      .replace(/^\//, '')
      .replace(/\//g, '.')
      .replace(/^config\./, '') || 'body';
  const message =
    typeof extra === 'string'
      ? 'is not a known field'
      : typeof missing === 'string'
        ? 'is required'
        : (issue?.message ?? error.message);
  throw new ToolportError('validation_failed', `Invalid HTTP tool: \`${field}\` ${message}.`, {
    details: { field },
  });
}

/**
 * Declarative HTTP tools (SPEC API-1 seed-003 routes, HTTP-1): CRUD, the dry run and the OpenAPI import. Everything
 * is decided in `services.httpTools` (validation, credentials, policy); these routes only translate.
 */
export function registerCustomToolRoutes(app: ToolportApp, services: ToolportServices): void {
  const tools = services.httpTools;

  app.get(
    '/api/tools/http-tool',
    {
      schema: {
        summary: "The caller's HTTP tools (literal credentials as ***, secret references as {{NAME}})",
        tags: ['tools'],
        response: { 200: CustomToolListResponseSchema, 401: errorResponses[401] },
      },
    },
    async (request) => ({ tools: await tools.list(getAuthenticatedUser(request)) }),
  );

  app.post(
    '/api/tools/http-tool',
    {
      attachValidation: true,
      schema: {
        summary: 'Create an HTTP tool',
        tags: ['tools'],
        body: CreateHttpToolBodySchema,
        response: { 201: CustomToolSchema, 409: errorResponses[422], ...errorResponses },
      },
    },
    async (request, reply) => {
      rejectShapeErrors(request);
      const created = await tools.create(getAuthenticatedUser(request), request.body);
      return reply.code(201).send(created);
    },
  );

  app.post(
    '/api/tools/http-tool/import',
    {
      attachValidation: true,
      schema: {
        summary: 'Create HTTP tools from an OpenAPI document (one per operation), or plan them with dryRun',
        tags: ['tools'],
        body: ImportHttpToolsBodySchema,
        response: {
          200: ImportHttpToolsResponseSchema,
          201: ImportHttpToolsResponseSchema,
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      rejectShapeErrors(request);
      const { importOpenApiTools } = await import('../../services/http-tool-import.ts');
      const result = await importOpenApiTools(tools, getAuthenticatedUser(request), request.body);
      return reply.code(request.body.dryRun === true ? 200 : 201).send(result);
    },
  );

  app.patch(
    '/api/tools/http-tool/:toolId',
    {
      attachValidation: true,
      schema: {
        summary:
          'Rename, enable/disable, or merge a partial config into an HTTP tool (validated like a create)',
        tags: ['tools'],
        params: CustomToolIdParamsSchema,
        body: PatchCustomToolBodySchema,
        response: { 200: CustomToolSchema, ...errorResponses },
      },
    },
    async (request) => {
      rejectShapeErrors(request);
      return tools.update(getAuthenticatedUser(request), request.params.toolId, request.body);
    },
  );

  app.post(
    '/api/tools/http-tool/:toolId/test',
    {
      attachValidation: true,
      schema: {
        summary:
          'Dry run: the exact request one call would send (credentials masked); with send, the result too',
        tags: ['tools'],
        params: CustomToolIdParamsSchema,
        body: TestHttpToolBodySchema,
        response: { 200: TestHttpToolResponseSchema, ...errorResponses },
      },
    },
    async (request) => {
      rejectShapeErrors(request);
      return tools.test(getAuthenticatedUser(request), request.params.toolId, request.body ?? {});
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
      await tools.delete(getAuthenticatedUser(request), request.params.toolId);
      return reply.code(204).send(null);
    },
  );
}
