import type { IncomingMessage } from 'node:http';
import { createMcpHttpHandler, DEFAULT_MCP_ALLOWED_HOSTS } from '../../mcp/mcp-http-handler.ts';
import {
  realWorkspacePath,
  resolveMcpWorkspace,
  workspaceChat,
  workspaceParameter,
} from './mcp-workspace.ts';
import { TOOLPORT_VERSION, type ToolportServerPlugin } from '../build-server.ts';

export interface McpEndpointOptions {
  /**
   * DNS-rebinding protection: host names (no port) the `Host` header may name. `toolport serve` derives them from the
   * bound host (`mcpAllowedHosts`). Default: localhost, 127.0.0.1, [::1].
   */
  allowedHosts?: readonly string[];
  /** Browser origins allowed to call; default any origin on an allowed host. */
  allowedOrigins?: readonly string[];
}

function bearerToken(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
}

/**
 * The host names `/mcp` answers to when the server is bound to `host`: loopback names always, the bound address when
 * it is a specific one, and the operator's extra names (a reverse proxy's public name) from `extra`.
 */
export function mcpAllowedHosts(host: string, extra: readonly string[] = []): string[] {
  const names = new Set<string>(DEFAULT_MCP_ALLOWED_HOSTS);
  if (host !== '0.0.0.0' && host !== '::' && host !== '') names.add(host.includes(':') ? `[${host}]` : host);
  for (const name of extra) if (name.trim() !== '') names.add(name.trim().toLowerCase());
  return [...names];
}

/**
 * SPEC MCP-2 over Streamable HTTP: `/mcp` on the API server, authenticated by the same bearer tokens, exposing the
 * caller's enabled tools (`getEnabledToolRuntime`, so their MCP servers' tools too). The route is public to Fastify's
 * auth hook because the handler answers 401 itself, in the MCP transport's shape.
 */
export function createMcpEndpointPlugin(options: McpEndpointOptions = {}): ToolportServerPlugin {
  return (app, { services }) => {
    const handler = createMcpHttpHandler({
      authenticate: async (request) => {
        const token = bearerToken(request);
        const user = token === undefined ? undefined : await services.tokens.authenticate(token);
        return user === undefined ? undefined : { userId: user.id };
      },
      getRuntime: async (principal, request) => {
        const workspace = await resolveMcpWorkspace(services, principal.userId, request);
        const build = () =>
          services.toolRuntime.getEnabledToolRuntime(
            { id: principal.userId },
            workspace === undefined ? undefined : workspaceChat(principal.userId, workspace),
            undefined,
            { origin: 'mcp' },
          );
        // This process's own pool calling back (a server configured to point at this /mcp): no MCP tools, no loop.
        return services.mcp.isOwnClient(request.headers) ? services.mcp.withoutMcpTools(build) : build();
      },
      getToolListChanges: (_principal, request) => {
        const workspace = workspaceParameter(request);
        return workspace === undefined
          ? undefined
          : services.workspaceTools.getSet(realWorkspacePath(workspace));
      },
      ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
      ...(options.allowedOrigins === undefined ? {} : { allowedOrigins: options.allowedOrigins }),
      serverInfo: { name: 'toolport', version: TOOLPORT_VERSION },
      onError: (error) => app.log.error({ err: error }, 'mcp request failed'),
    });
    app.all('/mcp', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
      reply.hijack();
      await handler(request.raw, reply.raw, request.body);
    });
  };
}
