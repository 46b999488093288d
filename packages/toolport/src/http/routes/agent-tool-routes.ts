import { Type } from 'typebox';
import type { CustomToolRecord } from '../../persistence/repositories/custom-tool-repository.ts';
import type { ToolportServices } from '../../services/toolport-services.ts';
import { getAuthenticatedUser } from '../plugins/auth.ts';
import {
  CustomToolIdParamsSchema,
  CustomToolListResponseSchema,
  CustomToolSchema,
  PatchCustomToolBodySchema,
} from '../schemas/custom-tool-schemas.ts';
import { errorResponses } from '../schemas/error-schemas.ts';
import type { ToolportApp } from '../server-types.ts';

const AgentToolConfigSchema = Type.Object(
  {
    targetAgentId: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'One of your agents: the specialist.',
    }),
    description: Type.String({ minLength: 1, maxLength: 4096, description: 'What the calling model reads.' }),
    maxDelegationTokens: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'Tokens the sub-turn may use (input + output); past it, it stops.',
      }),
    ),
  },
  { additionalProperties: false },
);

const CreateAgentToolBodySchema = Type.Object(
  {
    name: Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$' }),
    config: AgentToolConfigSchema,
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

function toResponse(tool: CustomToolRecord) {
  return {
    id: tool.id,
    name: tool.name,
    type: tool.type,
    config: tool.config,
    enabled: tool.enabled,
    createdAt: tool.createdAt,
    updatedAt: tool.updatedAt,
  };
}

/**
 * AGENT-1 agent tools (seed 003 "Gerenciamento de ferramentas de agente"), shaped like `/api/tools/http-tool`: a tool
 * that delegates to one of the caller's agents. An agent gets it by enabling it in its selection
 * (`PATCH /api/agents/:id/tools/:toolName {enabled: true}`).
 */
export function registerAgentToolRoutes(app: ToolportApp, services: ToolportServices): void {
  const agentTools = services.agentTools;

  app.get(
    '/api/tools/agent-tool',
    {
      schema: {
        summary: "The caller's agent tools",
        tags: ['tools'],
        response: { 200: CustomToolListResponseSchema, 401: errorResponses[401] },
      },
    },
    async (request) => ({ tools: (await agentTools.list(getAuthenticatedUser(request).id)).map(toResponse) }),
  );

  app.post(
    '/api/tools/agent-tool',
    {
      schema: {
        summary: 'Create an agent tool (delegation to a specialist agent)',
        tags: ['tools'],
        body: CreateAgentToolBodySchema,
        response: { 201: CustomToolSchema, ...errorResponses },
      },
    },
    async (request, reply) =>
      reply.code(201).send(toResponse(await agentTools.create(getAuthenticatedUser(request), request.body))),
  );

  app.get(
    '/api/tools/agent-tool/:toolId',
    {
      schema: {
        summary: 'One agent tool',
        tags: ['tools'],
        params: CustomToolIdParamsSchema,
        response: { 200: CustomToolSchema, ...errorResponses },
      },
    },
    async (request) =>
      toResponse(await agentTools.get(getAuthenticatedUser(request).id, request.params.toolId)),
  );

  app.patch(
    '/api/tools/agent-tool/:toolId',
    {
      schema: {
        summary:
          'Rename, enable/disable, or merge a partial config into an agent tool (validated after the merge)',
        tags: ['tools'],
        params: CustomToolIdParamsSchema,
        body: PatchCustomToolBodySchema,
        response: { 200: CustomToolSchema, ...errorResponses },
      },
    },
    async (request) =>
      toResponse(await agentTools.update(getAuthenticatedUser(request), request.params.toolId, request.body)),
  );

  app.delete(
    '/api/tools/agent-tool/:toolId',
    {
      schema: {
        summary: 'Delete an agent tool',
        tags: ['tools'],
        params: CustomToolIdParamsSchema,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses },
      },
    },
    async (request, reply) => {
      await agentTools.delete(getAuthenticatedUser(request).id, request.params.toolId);
      return reply.code(204).send(null);
    },
  );
}
