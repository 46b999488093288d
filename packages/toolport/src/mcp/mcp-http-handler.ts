import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { ToolRuntime } from '../core/tool-runtime.ts';
import { createMcpServer, type McpCallCancellation } from './mcp-server.ts';
import { createMcpLogLevelStore, type McpLogLevelStore } from './mcp-logging.ts';

/** Who is calling, as the auth hook decided. The lead's hook maps a bearer token to a user. */
export interface McpHttpPrincipal {
  userId: string;
  /** The operator policy restricts non-admins (AUTH-2). */
  isAdmin?: boolean;
}

export interface McpHttpHandlerOptions {
  /** Returns the caller, or `undefined` for a missing/invalid token (answered 401). */
  authenticate(
    request: IncomingMessage,
  ): Promise<McpHttpPrincipal | undefined> | McpHttpPrincipal | undefined;
  /** The caller's enabled tools (`getEnabledToolRuntime` in the service). */
  getRuntime(principal: McpHttpPrincipal, request: IncomingMessage): Promise<ToolRuntime> | ToolRuntime;
  /**
   * DNS-rebinding protection: hostnames (no port) the `Host` header may name. Default: localhost, 127.0.0.1, [::1].
   * A server reachable under another name lists it here.
   */
  allowedHosts?: readonly string[];
  /** Origins (`scheme://host[:port]`) a browser may call from. Default: any origin on an allowed host. */
  allowedOrigins?: readonly string[];
  serverInfo?: { name: string; version: string };
  /** Called with an unexpected failure (answered 500); log it. */
  onError?: (error: unknown) => void;
}

export type McpHttpHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  parsedBody?: unknown,
) => Promise<void>;

export const DEFAULT_MCP_ALLOWED_HOSTS = ['localhost', '127.0.0.1', '[::1]'] as const;

function hostnameOf(hostHeader: string): string | undefined {
  try {
    return new URL(`http://${hostHeader}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

function sendJsonRpcError(response: ServerResponse, status: number, message: string, headers = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }));
}

/**
 * SPEC MCP-2 over Streamable HTTP, for `/mcp` on `toolport serve` or any `node:http` server. Stateless: every POST
 * gets its own SDK server and transport built from the caller's runtime, so several toolport instances behind a load
 * balancer need no session affinity (DB-1), and a settings change applies from the next request. GET (the optional
 * server-to-client stream) and DELETE (session end) are answered 405, as the transport allows for stateless servers.
 *
 * Fastify: `app.all('/mcp', async (request, reply) => { reply.hijack(); await handler(request.raw, reply.raw,
 * request.body); })`.
 */
export function createMcpHttpHandler(options: McpHttpHandlerOptions): McpHttpHandler {
  const allowedHosts = new Set(
    (options.allowedHosts ?? DEFAULT_MCP_ALLOWED_HOSTS).map((host) => host.toLowerCase()),
  );
  const allowedOrigins =
    options.allowedOrigins === undefined
      ? undefined
      : new Set(options.allowedOrigins.map((o) => o.toLowerCase()));

  // In-flight calls by (user, JSON-RPC id): a stateless server sees a cancellation on a later request. Ids are chosen
  // by clients, so two clients of one user may share one; an ambiguous cancellation is ignored (MCP lets a receiver
  // ignore a cancellation), and a client that drops its request aborts its call anyway.
  const inFlight = new Map<string, Set<AbortController>>();
  const cancellationFor = (userId: string): McpCallCancellation => ({
    track(requestId, controller) {
      const key = `${userId}\u0000${JSON.stringify(requestId)}`;
      let calls = inFlight.get(key);
      if (calls === undefined) inFlight.set(key, (calls = new Set()));
      calls.add(controller);
      return () => {
        calls.delete(controller);
        if (calls.size === 0) inFlight.delete(key);
      };
    },
    cancel(requestId, reason) {
      const calls = inFlight.get(`${userId}\u0000${JSON.stringify(requestId)}`);
      if (calls?.size === 1)
        for (const controller of calls) controller.abort(new Error(reason ?? 'cancelled'));
    },
  });

  // `logging/setLevel` arrives on its own request: the level is kept per user on this instance (in memory, like the
  // cancellations above), so it applies to that user's later calls here.
  const logLevels = new Map<string, McpLogLevelStore>();
  const logLevelFor = (userId: string): McpLogLevelStore => {
    let store = logLevels.get(userId);
    if (store === undefined) logLevels.set(userId, (store = createMcpLogLevelStore()));
    return store;
  };

  return async (request, response, parsedBody) => {
    // DNS rebinding: a page on evil.example resolving to 127.0.0.1 still sends Host/Origin naming evil.example.
    const hostname = hostnameOf(request.headers.host ?? '');
    if (hostname === undefined || !allowedHosts.has(hostname)) {
      return sendJsonRpcError(
        response,
        403,
        `Host ${JSON.stringify(request.headers.host ?? '')} is not allowed.`,
      );
    }
    const origin = request.headers.origin;
    if (origin !== undefined) {
      let originHost: string | undefined;
      try {
        originHost = new URL(origin).hostname.toLowerCase();
      } catch {
        originHost = undefined;
      }
      const allowed =
        allowedOrigins === undefined
          ? originHost !== undefined && allowedHosts.has(originHost)
          : allowedOrigins.has(origin.toLowerCase());
      if (!allowed)
        return sendJsonRpcError(response, 403, `Origin ${JSON.stringify(origin)} is not allowed.`);
    }

    const principal = await options.authenticate(request);
    if (principal === undefined) {
      return sendJsonRpcError(response, 401, 'A valid bearer token is required.', {
        'www-authenticate': 'Bearer realm="toolport"',
      });
    }
    if (request.method !== 'POST') {
      return sendJsonRpcError(response, 405, 'This MCP endpoint is stateless: use POST.', { allow: 'POST' });
    }

    try {
      const runtime = await options.getRuntime(principal, request);
      const server = createMcpServer({
        runtime,
        cancellation: cancellationFor(principal.userId),
        logLevel: logLevelFor(principal.userId),
        ...(options.serverInfo ? { serverInfo: options.serverInfo } : {}),
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      response.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(request, response, parsedBody);
    } catch (error) {
      // A mounted handler must not reject into a bare node:http server (an unhandled rejection ends the process).
      options.onError?.(error);
      if (!response.headersSent)
        sendJsonRpcError(response, 500, 'Internal error while handling the MCP request.');
      else response.end();
    }
  };
}
