import { parsePermissionRule } from '../../permissions/permission-rule.ts';
import { ToolportError } from '../../core/errors.ts';
import type { AgentRecord } from '../../persistence/repositories/agent-repository.ts';
import { applyAgentSelection, validateAgentOverlay } from '../../services/agent-tool-selection.ts';
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
  PatchAgentBodySchema,
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
      const agent = await services.agents.create(getAuthenticatedUser(request).id, request.body);
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

  app.patch(
    '/api/agents/:agentId',
    {
      schema: {
        summary: 'Change an agent: name, description, or a partial config merged into the stored one',
        tags: ['agents'],
        params: AgentIdParamsSchema,
        body: PatchAgentBodySchema,
        response: { 200: AgentSchema, ...errorResponses },
      },
    },
    async (request) =>
      toAgentResponse(
        await services.agents.update(getAuthenticatedUser(request).id, request.params.agentId, request.body),
      ),
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
      // Every tool the agent can be given — built-ins, custom, MCP and specialists (agent tools) — with its type,
      // whether this agent gets it, and the agent's overlay.
      const [rows, entries] = await Promise.all([
        agents.listTools(userId, request.params.agentId),
        services.catalog.listForUser(userId),
      ]);
      const extras = entries.filter((entry) => entry.source.kind !== 'builtin');
      const { permissions } = applyAgentSelection(rows, [], extras, new Map());
      const byName = new Map(rows.map((row) => [row.toolName, row]));
      const names = [
        ...new Set([...entries.map((entry) => entry.tool.definition.name), ...byName.keys()]),
      ].sort();
      const kinds = new Map(entries.map((entry) => [entry.tool.definition.name, entry.source.kind]));
      return {
        tools: names.map((toolName) => {
          const row = byName.get(toolName);
          const enabled =
            !(permissions?.deniedTools?.includes(toolName) ?? false) &&
            (permissions?.allowedTools === undefined || permissions.allowedTools.includes(toolName));
          return {
            toolName,
            enabled,
            config: maskConfig(row?.config ?? {}),
            type: kinds.get(toolName) ?? 'unknown',
            selected: row !== undefined,
            ...(row?.permission === undefined ? {} : { permission: row.permission }),
          };
        }),
      };
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
      if ((await agents.get(userId, agentId)) === undefined) throw agentNotFound(agentId);
      const entry = (await services.catalog.listForUser(userId)).find(
        (candidate) => candidate.tool.definition.name === toolId,
      );
      if (entry === undefined)
        throw new ToolportError('not_found', `Unknown tool ${JSON.stringify(toolId)}.`, {
          details: { toolName: toolId },
        });
      const current = (await agents.listTools(userId, agentId)).find((tool) => tool.toolName === toolId);
      const config =
        request.body.config === undefined
          ? undefined
          : mergeConfig(current?.config ?? {}, request.body.config);
      // Seed 003: validated after the merge — settings for built-ins, the tool's own config rules for HTTP/agent tools.
      if (config !== undefined) validateAgentOverlay(entry, config);
      const permission =
        request.body.permission === undefined || request.body.permission === null
          ? request.body.permission
          : parsePermissionRule(request.body.permission);
      // The repository merges too; hand it the already-merged config so masked values resolve to stored ones.
      const updated = await agents.putTool(userId, agentId, toolId, {
        ...(request.body.enabled === undefined ? {} : { enabled: request.body.enabled }),
        ...(config === undefined ? {} : { config }),
        ...(permission === undefined ? {} : { permission }),
      });
      if (updated === undefined) throw agentNotFound(agentId);
      return { ...updated, config: maskConfig(updated.config), type: entry.source.kind, selected: true };
    },
  );
}
