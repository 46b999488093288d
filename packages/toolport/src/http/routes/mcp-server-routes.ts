import { ToolportError } from '../../core/errors.ts';
import type { McpServerStatus } from '../../mcp/mcp-client-pool.ts';
import {
  applyRedactedValues,
  parseMcpServerConfig,
  redactMcpServerConfig,
  type McpServerConfig,
} from '../../mcp/mcp-server-config.ts';
import type { McpServerRecord } from '../../persistence/repositories/mcp-server-repository.ts';
import type { UserRecord } from '../../persistence/repositories/user-repository.ts';
import { toMcpServerConfig } from '../../services/mcp-server-service.ts';
import type { ToolportServices } from '../../services/toolport-services.ts';
import { maskConfig } from '../config-masking.ts';
import { getAuthenticatedUser } from '../plugins/auth.ts';
import { errorResponses } from '../schemas/error-schemas.ts';
import {
  CreateMcpServerBodySchema,
  McpServerIdParamsSchema,
  McpServerListResponseSchema,
  McpServerSchema,
  McpServerStatusResponseSchema,
  PatchMcpServerBodySchema,
} from '../schemas/mcp-server-schemas.ts';
import type { ToolportApp } from '../server-types.ts';

type ConfigFields = Record<string, unknown>;

/** The transport's fields only: id, name, transport and enabled are columns of their own. */
function transportFields(config: McpServerConfig): ConfigFields {
  const { id: _id, name: _name, transport: _transport, enabled: _enabled, ...fields } = config;
  return fields;
}

function statusView(status: McpServerStatus) {
  const { serverId: _id, name: _name, enabled: _enabled, ...view } = status;
  return view;
}

/** A stored row as config, or undefined when it predates validation (then its values are masked generically). */
function tryConfig(server: McpServerRecord): McpServerConfig | undefined {
  try {
    return toMcpServerConfig(server);
  } catch {
    return undefined;
  }
}

function serverNotFound(serverId: string): ToolportError {
  return new ToolportError('not_found', `No MCP server ${JSON.stringify(serverId)}.`, {
    details: { serverId },
  });
}

/**
 * CRUD of the caller's MCP servers (SPEC API-1, MCP-1) plus their status from the process's client pool. Configs are
 * validated with `parseMcpServerConfig`; header and env values are write-only (`***` in responses, and `***` in an
 * update keeps the stored value). Listing or reading a server never connects to it.
 */
export function registerMcpServerRoutes(app: ToolportApp, services: ToolportServices): void {
  const servers = services.repositories.mcpServers;

  const toResponse = (user: UserRecord, server: McpServerRecord) => {
    const config = tryConfig(server);
    return {
      id: server.id,
      name: server.name,
      transport: server.transport,
      config:
        config === undefined ? maskConfig(server.config) : transportFields(redactMcpServerConfig(config)),
      enabled: server.enabled,
      status: statusView(services.mcp.statusOf(user, server)),
      createdAt: server.createdAt,
      updatedAt: server.updatedAt,
    };
  };

  app.get(
    '/api/mcp-servers',
    {
      schema: {
        summary: "The caller's MCP servers with their connection status (header and env values masked)",
        tags: ['mcp'],
        response: { 200: McpServerListResponseSchema, 401: errorResponses[401] },
      },
    },
    async (request) => {
      const user = getAuthenticatedUser(request);
      const userId = user.id;
      return { servers: (await servers.list(userId)).map((server) => toResponse(user, server)) };
    },
  );

  app.post(
    '/api/mcp-servers',
    {
      schema: {
        summary: 'Add an MCP server (stdio command or remote URL)',
        tags: ['mcp'],
        body: CreateMcpServerBodySchema,
        response: { 201: McpServerSchema, 409: errorResponses[422], ...errorResponses },
      },
    },
    async (request, reply) => {
      const user = getAuthenticatedUser(request);
      const userId = user.id;
      const { name, transport, config, enabled } = request.body;
      const parsed = parseMcpServerConfig({ ...config, id: 'new', name, transport, enabled });
      services.mcp.assertAllowed(user, parsed, { creating: true });
      const created = await servers.create(userId, {
        name,
        transport,
        config: transportFields(parsed),
        enabled: parsed.enabled,
      });
      return reply.code(201).send(toResponse(user, created));
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
      const user = getAuthenticatedUser(request);
      const userId = user.id;
      const server = await servers.get(userId, request.params.serverId);
      if (server === undefined) throw serverNotFound(request.params.serverId);
      return toResponse(user, server);
    },
  );

  app.get(
    '/api/mcp-servers/:serverId/status',
    {
      schema: {
        summary: 'Connection status: connected, last error, tool count, last listing time (never connects)',
        tags: ['mcp'],
        params: McpServerIdParamsSchema,
        response: { 200: McpServerStatusResponseSchema, ...errorResponses },
      },
    },
    async (request) => {
      const user = getAuthenticatedUser(request);
      const userId = user.id;
      const server = await servers.get(userId, request.params.serverId);
      if (server === undefined) throw serverNotFound(request.params.serverId);
      return {
        serverId: server.id,
        name: server.name,
        enabled: server.enabled,
        status: statusView(services.mcp.statusOf(user, server)),
      };
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
      const user = getAuthenticatedUser(request);
      const userId = user.id;
      const current = await servers.get(userId, request.params.serverId);
      if (current === undefined) throw serverNotFound(request.params.serverId);
      const { config, ...rest } = request.body;
      const next = parseMcpServerConfig({
        ...current.config,
        ...config,
        id: current.id,
        name: rest.name ?? current.name,
        transport: rest.transport ?? current.transport,
        enabled: rest.enabled ?? current.enabled,
      });
      const stored = tryConfig(current);
      const merged = stored === undefined ? next : applyRedactedValues(next, stored);
      services.mcp.assertAllowed(user, merged, { creating: false });
      const updated = await servers.update(userId, current.id, {
        ...rest,
        config: transportFields(merged),
      });
      if (updated === undefined) throw serverNotFound(request.params.serverId);
      // A disabled or changed server must not keep its old process or session until the next turn notices.
      await services.mcp.pool.disconnect(userId, current.id);
      return toResponse(user, updated);
    },
  );

  app.delete(
    '/api/mcp-servers/:serverId',
    {
      schema: {
        summary: 'Remove an MCP server (its connection or stdio process ends)',
        tags: ['mcp'],
        params: McpServerIdParamsSchema,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses },
      },
    },
    async (request, reply) => {
      const userId = getAuthenticatedUser(request).id;
      if (!(await servers.delete(userId, request.params.serverId))) {
        throw serverNotFound(request.params.serverId);
      }
      await services.mcp.pool.disconnect(userId, request.params.serverId);
      return reply.code(204).send(null);
    },
  );
}
