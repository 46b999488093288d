import { ToolportError } from '../../core/errors.ts';
import type { McpServerRecord } from '../../persistence/repositories/mcp-server-repository.ts';
import type { ToolportServices } from '../../services/toolport-services.ts';
import { maskConfig, mergeConfig } from '../config-masking.ts';
import { getAuthenticatedUser } from '../plugins/auth.ts';
import { errorResponses } from '../schemas/error-schemas.ts';
import {
  CreateMcpServerBodySchema,
  McpServerIdParamsSchema,
  McpServerListResponseSchema,
  McpServerSchema,
  PatchMcpServerBodySchema,
} from '../schemas/mcp-server-schemas.ts';
import type { ToolportApp } from '../server-types.ts';

function toResponse(server: McpServerRecord) {
  return {
    id: server.id,
    name: server.name,
    transport: server.transport,
    config: maskConfig(server.config),
    enabled: server.enabled,
    createdAt: server.createdAt,
    updatedAt: server.updatedAt,
  };
}

function serverNotFound(serverId: string): ToolportError {
  return new ToolportError('not_found', `No MCP server ${JSON.stringify(serverId)}.`, {
    details: { serverId },
  });
}

/** CRUD of the caller's MCP server rows (SPEC API-1). Connecting to them is the MCP client pool's job. */
export function registerMcpServerRoutes(app: ToolportApp, services: ToolportServices): void {
  const servers = services.repositories.mcpServers;

  app.get(
    '/api/mcp-servers',
    {
      schema: {
        summary: "The caller's MCP servers (header and env values masked)",
        tags: ['mcp'],
        response: { 200: McpServerListResponseSchema, 401: errorResponses[401] },
      },
    },
    async (request) => ({ servers: (await servers.list(getAuthenticatedUser(request).id)).map(toResponse) }),
  );

  app.post(
    '/api/mcp-servers',
    {
      schema: {
        summary: 'Add an MCP server',
        tags: ['mcp'],
        body: CreateMcpServerBodySchema,
        response: { 201: McpServerSchema, 409: errorResponses[422], ...errorResponses },
      },
    },
    async (request, reply) => {
      const created = await servers.create(getAuthenticatedUser(request).id, request.body);
      return reply.code(201).send(toResponse(created));
    },
  );

  app.get(
    '/api/mcp-servers/:serverId',
    {
      schema: {
        summary: 'One MCP server',
        tags: ['mcp'],
        params: McpServerIdParamsSchema,
        response: { 200: McpServerSchema, ...errorResponses },
      },
    },
    async (request) => {
      const server = await servers.get(getAuthenticatedUser(request).id, request.params.serverId);
      if (server === undefined) throw serverNotFound(request.params.serverId);
      return toResponse(server);
    },
  );

  app.patch(
    '/api/mcp-servers/:serverId',
    {
      schema: {
        summary: 'Rename, enable/disable, or merge a partial config into an MCP server',
        tags: ['mcp'],
        params: McpServerIdParamsSchema,
        body: PatchMcpServerBodySchema,
        response: { 200: McpServerSchema, ...errorResponses },
      },
    },
    async (request) => {
      const userId = getAuthenticatedUser(request).id;
      const current = await servers.get(userId, request.params.serverId);
      if (current === undefined) throw serverNotFound(request.params.serverId);
      const { config, ...rest } = request.body;
      const updated = await servers.update(userId, current.id, {
        ...rest,
        ...(config === undefined ? {} : { config: mergeConfig(current.config, config) }),
      });
      if (updated === undefined) throw serverNotFound(request.params.serverId);
      return toResponse(updated);
    },
  );

  app.delete(
    '/api/mcp-servers/:serverId',
    {
      schema: {
        summary: 'Remove an MCP server',
        tags: ['mcp'],
        params: McpServerIdParamsSchema,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses },
      },
    },
    async (request, reply) => {
      if (!(await servers.delete(getAuthenticatedUser(request).id, request.params.serverId))) {
        throw serverNotFound(request.params.serverId);
      }
      return reply.code(204).send(null);
    },
  );
}
