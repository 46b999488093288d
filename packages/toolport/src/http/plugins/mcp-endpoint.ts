import type { IncomingMessage } from 'node:http';
import { RUNTIME_REUSE_MAX_AGE_MS } from '../../services/tool-runtime-service.ts';
import type { ToolportServices } from '../../services/toolport-services.ts';
import { createMcpHttpHandler, DEFAULT_MCP_ALLOWED_HOSTS } from '../../mcp/mcp-http-handler.ts';
import { resolveMcpWorkspace, workspaceChat } from './mcp-workspace.ts';
import { TOOLPORT_VERSION, type ToolportServerPlugin } from '../build-server.ts';

export interface McpEndpointOptions {
  /**
   * DNS-rebinding protection: host names (no port) the `Host` header may name. `toolport serve` derives them from the
   * bound host (`mcpAllowedHosts`). Default: localhost, 127.0.0.1, [::1].
   */
  allowedHosts?: readonly string[];
  /** Browser origins allowed to call; default any origin on an allowed host. */
  allowedOrigins?: readonly string[];
  /** How long a cached runtime serves without a change seen here (default `MCP_RUNTIME_MAX_AGE_MS`). */
  runtimeMaxAgeMs?: number;
}

/**
 * How long a reused runtime may serve at most. Changes to the rows it was built from are seen by the next request on
 * any instance (the token lookup reads the user's `state_version`), MCP listings and code tools by their versions;
 * the age bounds anything else.
 */
export const MCP_RUNTIME_MAX_AGE_MS = RUNTIME_REUSE_MAX_AGE_MS;
/** How often an open GET stream compares the versions its caller's tools are built from. */
const MCP_TOOLS_POLL_MS = 250;

/**
 * `/mcp`'s GET streams: what changes a caller's `tools/list`. A workspace's tools.json and scripts are watched once per
 * directory however many streams follow it (ReloadWorkspaceTools on this instance reaches them too); settings, MCP
 * server rows and MCP listings are seen through the same versions the runtime cache compares, polled while a stream
 * is open (two map reads).
 */
function createToolsWatcher(services: ToolportServices, pollMs: number) {
  const directoryWatches = new Map<string, { stop: () => void; streams: number }>();
  const watchDirectory = (directory: string): (() => void) => {
    let watch = directoryWatches.get(directory);
    if (watch === undefined) {
      watch = { stop: services.workspaceTools.getSet(directory).watch(), streams: 0 };
      directoryWatches.set(directory, watch);
    }
    watch.streams += 1;
    const current = watch;
    return () => {
      current.streams -= 1;
      if (current.streams === 0) {
        current.stop();
        directoryWatches.delete(directory);
      }
    };
  };
  return async (userId: string, request: IncomingMessage, onChange: () => void): Promise<() => void> => {
    const stops: Array<() => void> = [];
    const workspace = await resolveMcpWorkspace(services, userId, request);
    if (workspace !== undefined) {
      stops.push(services.workspaceTools.getSet(workspace).subscribe(onChange), watchDirectory(workspace));
    }
    // This process's own pool listening to its own /mcp: its runtime has no MCP tools, and announcing the pool's
    // re-listings back to it would make the two re-list each other forever.
    if (services.mcp.isOwnClient(request.headers)) {
      return () => {
        for (const stop of stops) stop();
      };
    }
    const versions = (): string =>
      `${services.toolRuntime.generation(userId)}:${services.mcp.pool.listingVersion(userId)}`;
    let seen = versions();
    const poll = setInterval(() => {
      const now = versions();
      if (now !== seen) {
        seen = now;
        onChange();
      }
    }, pollMs);
    poll.unref();
    stops.push(() => clearInterval(poll));
    return () => {
      for (const stop of stops) stop();
    };
  };
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
    // `/mcp` is stateless, so every POST asks for the caller's runtime: reuse it while nothing it was built from
    // changed. Any instance still answers any request; it rebuilds when its entry is missing or stale.
    const maxAgeMs = options.runtimeMaxAgeMs ?? MCP_RUNTIME_MAX_AGE_MS;
    const runtimeFor = (user: { id: string; isAdmin: boolean }) =>
      services.toolRuntime.getReusableRuntime(user, { maxAgeMs });
    const watchTools = createToolsWatcher(services, MCP_TOOLS_POLL_MS);
    const handler = createMcpHttpHandler({
      authenticate: async (request) => {
        const token = bearerToken(request);
        const user = token === undefined ? undefined : await services.tokens.authenticate(token);
        return user === undefined ? undefined : { userId: user.id, isAdmin: user.isAdmin };
      },
      getRuntime: async (principal, request) => {
        const user = { id: principal.userId, isAdmin: principal.isAdmin === true };
        // WS-1: `/mcp?workspace=DIR` serves that (trusted) workspace's tools too, with origin mcp; uncached, so
        // every request lists the workspace's current tools.json.
        const workspace = await resolveMcpWorkspace(services, principal.userId, request);
        if (workspace !== undefined) {
          return services.toolRuntime.getEnabledToolRuntime(
            user,
            workspaceChat(principal.userId, workspace),
            undefined,
            {
              origin: 'mcp',
            },
          );
        }
        // This process's own pool calling back (a server configured to point at this /mcp): no MCP tools, no loop.
        if (services.mcp.isOwnClient(request.headers)) {
          return services.mcp.withoutMcpTools(() => services.toolRuntime.getEnabledToolRuntime(user));
        }
        return runtimeFor(user);
      },
      // WS-1/MCP-2: the GET stream announces list_changed (a reload, the file watcher, a settings change here).
      watchTools: (principal, request, onChange) => watchTools(principal.userId, request, onChange),
      ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
      ...(options.allowedOrigins === undefined ? {} : { allowedOrigins: options.allowedOrigins }),
      serverInfo: { name: 'toolport', version: TOOLPORT_VERSION },
      // Issue 16: an elicitation answered "always" writes the caller's allow rule, as in chat turns.
      rememberAlways: (approval) => services.approvals.rememberAlways(approval),
      onError: (error) => app.log.error({ err: error }, 'mcp request failed'),
    });
    app.all('/mcp', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
      reply.hijack();
      await handler(request.raw, reply.raw, request.body);
    });
    // Open GET streams would keep the server's close waiting for clients that never hang up.
    app.addHook('preClose', async () => handler.closeStreams());
  };
}
