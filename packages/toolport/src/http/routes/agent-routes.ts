import { ToolportError } from '../../core/errors.ts';
import type { AgentRecord } from '../../persistence/repositories/agent-repository.ts';
import type { ToolportServices } from '../../services/toolport-services.ts';
import { maskConfig, mergeConfig } from '../config-masking.ts';
import { getAuthenticatedUser } from '../plugins/auth.ts';
import {
  AgentIdParamsSchema,
  AgentListResponseSchema,
  AgentSchema,
  AgentToolListResponseSchema,
  AgentToolParamsSchema,
  AgentToolSchema,
  CreateAgentBodySchema,
  PatchAgentToolBodySchema,
} from '../schemas/agent-schemas.ts';
import { errorResponses } from '../schemas/error-schemas.ts';
import type { ToolportApp } from '../server-types.ts';

function toAgentResponse(agent: AgentRecord) {
  return {
    id: agent.id,
    name: agent.name,
    description: agent.description,
    config: agent.config,
    createdAt: agent.createdAt,
    updatedAt: agent.updatedAt,
  };
}

function agentNotFound(agentId: string): ToolportError {
  return new ToolportError('not_found', `No agent ${JSON.stringify(agentId)}.`, { details: { agentId } });
}

/**
 * Agents and their tool selection (SPEC API-1, seed 003). An agent's enabled tool rows form its allowlist and disabled
 * rows its denials in getEnabledToolRuntime; PATCH merges a partial config into the stored one (spread).
 */
export function registerAgentRoutes(app: ToolportApp, services: ToolportServices): void {
  const agents = services.repositories.agents;

  app.post(
    '/api/agents',
    {
      schema: {
        summary: 'Create an agent',
        tags: ['agents'],
        body: CreateAgentBodySchema,
        response: { 201: AgentSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const agent = await agents.create(getAuthenticatedUser(request).id, request.body);
      return reply.code(201).send(toAgentResponse(agent));
    },
  );

  app.get(
    '/api/agents',
    {
      schema: {
        summary: "The caller's agents",
        tags: ['agents'],
        response: { 200: AgentListResponseSchema, 401: errorResponses[401] },
      },
    },
    async (request) => ({
      agents: (await agents.list(getAuthenticatedUser(request).id)).map(toAgentResponse),
    }),
  );

  app.get(
    '/api/agents/:agentId',
    {
      schema: {
        summary: 'One agent',
        tags: ['agents'],
        params: AgentIdParamsSchema,
        response: { 200: AgentSchema, ...errorResponses },
      },
    },
    async (request) => {
      const agent = await agents.get(getAuthenticatedUser(request).id, request.params.agentId);
      if (agent === undefined) throw agentNotFound(request.params.agentId);
      return toAgentResponse(agent);
    },
  );

  app.delete(
    '/api/agents/:agentId',
    {
      schema: {
        summary: 'Delete an agent',
        tags: ['agents'],
        params: AgentIdParamsSchema,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses },
      },
    },
    async (request, reply) => {
      if (!(await agents.delete(getAuthenticatedUser(request).id, request.params.agentId))) {
        throw agentNotFound(request.params.agentId);
      }
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/agents/:agentId/tools',
    {
      schema: {
        summary: "The agent's tool selection",
        tags: ['agents'],
        params: AgentIdParamsSchema,
        response: { 200: AgentToolListResponseSchema, ...errorResponses },
      },
    },
    async (request) => {
      const userId = getAuthenticatedUser(request).id;
      if ((await agents.get(userId, request.params.agentId)) === undefined)
        throw agentNotFound(request.params.agentId);
      const tools = await agents.listTools(userId, request.params.agentId);
      return { tools: tools.map((tool) => ({ ...tool, config: maskConfig(tool.config) })) };
    },
  );

  app.patch(
    '/api/agents/:agentId/tools/:toolId',
    {
      schema: {
        summary: "Select a tool for the agent and merge a partial config into the agent's config for it",
        tags: ['agents'],
        params: AgentToolParamsSchema,
        body: PatchAgentToolBodySchema,
        response: { 200: AgentToolSchema, ...errorResponses },
      },
    },
    async (request) => {
      const userId = getAuthenticatedUser(request).id;
      const { agentId, toolId } = request.params;
      const known = (await services.catalog.listForUser(userId)).some(
        (entry) => entry.tool.definition.name === toolId,
      );
      if (!known)
        throw new ToolportError('not_found', `Unknown tool ${JSON.stringify(toolId)}.`, {
          details: { toolName: toolId },
        });
      const current = (await agents.listTools(userId, agentId)).find((tool) => tool.toolName === toolId);
      const config =
        request.body.config === undefined
          ? undefined
          : mergeConfig(current?.config ?? {}, request.body.config);
      // The repository merges too; hand it the already-merged config so masked values resolve to stored ones.
      const updated = await agents.putTool(userId, agentId, toolId, {
        ...(request.body.enabled === undefined ? {} : { enabled: request.body.enabled }),
        ...(config === undefined ? {} : { config }),
      });
      if (updated === undefined) throw agentNotFound(agentId);
      return { ...updated, config: maskConfig(updated.config) };
    },
  );
}
