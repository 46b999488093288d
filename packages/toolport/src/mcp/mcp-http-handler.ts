import type { IncomingMessage, ServerResponse } from 'node:http';
import { httpStatusForErrorCode } from '../core/error-codes.ts';
import { isToolportError } from '../core/errors.ts';
import type { ApprovalRequest } from '../core/tool-approval.ts';
import type { ToolRuntime } from '../core/tool-runtime.ts';
import { McpClientRequests } from './mcp-client-requests.ts';
import type { McpCallCancellation } from './mcp-server.ts';
import {
  createMcpToolsDispatcher,
  isJsonObject,
  isJsonRpcId,
  JSON_RPC_INVALID_REQUEST,
  JSON_RPC_PARSE_ERROR,
  progressTokenOf,
  SUPPORTED_MCP_PROTOCOL_VERSIONS,
  type JsonObject,
  type JsonRpcResponse,
  type McpToolsDispatcher,
} from './mcp-tools-dispatcher.ts';
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
  /** Issue 16: called for an elicitation answered "always" (writes the caller's allow rule; `request.userId`). */
  rememberAlways?: (request: ApprovalRequest) => Promise<void>;
  /** Called with an unexpected failure (answered 500); log it. */
  onError?: (error: unknown) => void;
  /**
   * The optional server-to-client stream (GET): subscribe `onChange` to whatever changes what `tools/list` answers
   * this caller (settings, MCP servers, a workspace's tools.json) and return the unsubscribe function. The handler
   * then keeps each GET open as an SSE stream and sends `notifications/tools/list_changed` on every change, and
   * `initialize` announces `tools.listChanged`. Without it GET is answered 405 (the transport allows that).
   */
  watchTools?(
    principal: McpHttpPrincipal,
    request: IncomingMessage,
    onChange: () => void,
  ): Promise<() => void> | (() => void);
}

export type McpHttpHandler = ((
  request: IncomingMessage,
  response: ServerResponse,
  parsedBody?: unknown,
) => Promise<void>) & {
  /** Ends the open GET streams (call before the HTTP server closes: an open stream keeps it waiting). */
  closeStreams(): void;
};

/** A comment line keeps proxies and idle timeouts from closing a quiet stream. */
export const MCP_STREAM_KEEPALIVE_MS = 25_000;
/** Changes within this window (a save touching several files) reach the client as one notification. */
const LIST_CHANGED_COALESCE_MS = 50;
const LIST_CHANGED = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });

export const DEFAULT_MCP_ALLOWED_HOSTS = ['localhost', '127.0.0.1', '[::1]'] as const;

/** What initialize and ping need: no tools, so no runtime is built for them. */
const NO_TOOLS: ToolRuntime = {
  userId: '',
  chatId: undefined,
  agentId: undefined,
  mode: 'chat',
  workingDirectory: undefined,
  tools: [],
  services: {},
  execute: () => Promise.reject(new Error('No tools on this path.')),
};

/** Host headers seen, parsed: a client sends the same one on every POST, and URL parsing it each time showed up. */
const hostnames = new Map<string, string | undefined>();
const MAX_REMEMBERED_HOSTS = 256;

function hostnameOf(hostHeader: string): string | undefined {
  if (hostnames.has(hostHeader)) return hostnames.get(hostHeader);
  let hostname: string | undefined;
  try {
    hostname = new URL(`http://${hostHeader}`).hostname.toLowerCase();
  } catch {
    hostname = undefined;
  }
  if (hostnames.size >= MAX_REMEMBERED_HOSTS) hostnames.clear();
  hostnames.set(hostHeader, hostname);
  return hostname;
}

function sendJsonRpcError(
  response: ServerResponse,
  status: number,
  message: string,
  headers = {},
  code = -32000,
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** The body of a bare node:http request (Fastify passes its parsed body instead). */
async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new SyntaxError('The request body is too large.');
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}

function headerValue(request: IncomingMessage, name: string): string {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : (value ?? '');
}

/**
 * SPEC MCP-2 over Streamable HTTP, for `/mcp` on `toolport serve` or any `node:http` server. Stateless: any instance
 * behind a load balancer answers any POST (no session, no affinity, DB-1), and `getRuntime` is asked on each request
 * that needs tools, so a settings change applies from the next one (the endpoint caches runtimes per user and
 * invalidates them through the services). Requests are answered by the same SDK-free dispatcher as `toolport mcp`:
 * JSON, or an SSE stream when a call asked for progress, sends a notification (a log line) or elicits an approval.
 * GET opens the optional server-to-client stream when the host gives `watchTools` (it carries
 * `notifications/tools/list_changed`; it holds no session, so any instance can serve it), and is answered 405
 * otherwise; DELETE (session end) is answered 405, as the transport allows for stateless servers.
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
  // Issue 16: stateless, so a call never sees the client's `initialize`; remember per user whether the last one
  // (on this instance) declared elicitation. Another instance does not know it and denies `ask` calls instead.
  const elicitingUsers = new Set<string>();
  const noteInitialize = (userId: string, params: JsonObject): void => {
    if (isJsonObject(params.capabilities) && isJsonObject(params.capabilities.elicitation))
      elicitingUsers.add(userId);
    else elicitingUsers.delete(userId);
  };
  // Our elicitations go out on the call's SSE stream; the client answers them in a later POST on this instance.
  const clientRequests = new McpClientRequests();
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

  // One dispatcher (and tools/list projection) per runtime object: a runtime the caller reuses is not re-projected.
  const dispatchers = new WeakMap<ToolRuntime, McpToolsDispatcher>();
  const dispatcherFor = (runtime: ToolRuntime): McpToolsDispatcher => {
    let dispatcher = dispatchers.get(runtime);
    if (dispatcher === undefined) {
      dispatcher = createMcpToolsDispatcher({
        runtime,
        listChanged: options.watchTools !== undefined,
        ...(options.serverInfo === undefined ? {} : { serverInfo: options.serverInfo }),
        ...(options.rememberAlways === undefined ? {} : { rememberAlways: options.rememberAlways }),
      });
      dispatchers.set(runtime, dispatcher);
    }
    return dispatcher;
  };

  async function answer(
    principal: McpHttpPrincipal,
    request: IncomingMessage,
    response: ServerResponse,
    body: unknown,
  ): Promise<void> {
    const batch = Array.isArray(body);
    const messages: unknown[] = batch ? body : [body];
    if (
      messages.length === 0 ||
      !messages.every((message) => isJsonObject(message) && message.jsonrpc === '2.0')
    ) {
      return sendJsonRpcError(
        response,
        400,
        'Invalid Request: not JSON-RPC 2.0 messages.',
        {},
        JSON_RPC_INVALID_REQUEST,
      );
    }
    const cancellation = cancellationFor(principal.userId);
    const requests: Array<{ id: string | number; method: string; params: JsonObject }> = [];
    for (const message of messages as JsonObject[]) {
      const params = isJsonObject(message.params) ? message.params : {};
      if (typeof message.method !== 'string') {
        // A response: the answer to one of this user's elicitations (issue 16), or to nothing we sent.
        clientRequests.settle(principal.userId, message);
        continue;
      }
      if (message.id === undefined) {
        if (message.method === 'notifications/cancelled' && isJsonRpcId(params.requestId)) {
          cancellation.cancel(
            params.requestId,
            typeof params.reason === 'string' ? params.reason : undefined,
          );
        }
        continue;
      }
      if (!isJsonRpcId(message.id)) {
        return sendJsonRpcError(
          response,
          400,
          'Invalid Request: the id must be a string or number.',
          {},
          JSON_RPC_INVALID_REQUEST,
        );
      }
      if (message.method === 'initialize') noteInitialize(principal.userId, params);
      requests.push({ id: message.id, method: message.method, params });
    }
    // Notifications and responses only: accepted, nothing to answer.
    if (requests.length === 0) {
      response.writeHead(202).end();
      return;
    }
    const needsTools = requests.some(({ method }) => method === 'tools/list' || method === 'tools/call');
    const dispatch = dispatcherFor(needsTools ? await options.getRuntime(principal, request) : NO_TOOLS);

    // A call that asked for progress gets a stream at once; any other answer is plain JSON unless a notification (a
    // tool's log line) or an elicitation (issue 16, when the call asks) comes first, which turns it into a stream then.
    const controllers = new Set<AbortController>();
    let finished = false;
    let streaming = false;
    response.on('close', () => {
      // The client went away before the answer: stop its calls.
      if (!finished)
        for (const controller of controllers) controller.abort(new Error('The client disconnected.'));
    });
    const writeEvent = (message: unknown): void => {
      if (!response.destroyed) response.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    };
    // Answers of a batch given before the stream started: they go first on the stream.
    const unwritten: JsonRpcResponse[] = [];
    const startStream = (): void => {
      if (streaming || response.headersSent) return;
      streaming = true;
      response.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      for (const answered of unwritten.splice(0)) writeEvent(answered);
    };
    const notify = (message: unknown): void => {
      startStream();
      writeEvent(message);
    };
    if (
      requests.some(({ method, params }) => method === 'tools/call' && progressTokenOf(params) !== undefined)
    )
      startStream();
    const elicit = elicitingUsers.has(principal.userId)
      ? (params: JsonObject, signal: AbortSignal): Promise<unknown> => {
          startStream();
          return clientRequests.request(principal.userId, 'elicitation/create', params, signal, writeEvent);
        }
      : undefined;
    const logLevel = logLevelFor(principal.userId);
    const responses = await Promise.all(
      requests.map(async ({ id, method, params }): Promise<JsonRpcResponse> => {
        const controller = new AbortController();
        controllers.add(controller);
        const untrack = method === 'tools/call' ? cancellation.track(id, controller) : () => {};
        try {
          const answered = await dispatch(id, method, params, {
            signal: controller.signal,
            notify,
            logLevel,
            ...(elicit === undefined ? {} : { elicit }),
          });
          if (streaming) writeEvent(answered);
          else unwritten.push(answered);
          return answered;
        } finally {
          untrack();
        }
      }),
    );
    finished = true;
    if (streaming) {
      response.end();
      return;
    }
    const text = JSON.stringify(batch ? responses : responses[0]);
    response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
    });
    response.end(text);
  }

  const openStreams = new Set<ServerResponse>();

  /** GET: an SSE stream that carries `notifications/tools/list_changed` until the client or the server ends it. */
  async function openToolsStream(
    principal: McpHttpPrincipal,
    request: IncomingMessage,
    response: ServerResponse,
    watchTools: NonNullable<McpHttpHandlerOptions['watchTools']>,
  ): Promise<void> {
    if (!headerValue(request, 'accept').includes('text/event-stream')) {
      return sendJsonRpcError(response, 406, 'Not Acceptable: Client must accept text/event-stream');
    }
    let pending: NodeJS.Timeout | undefined;
    const onChange = (): void => {
      if (pending !== undefined || response.destroyed) return;
      pending = setTimeout(() => {
        pending = undefined;
        if (!response.destroyed) response.write(`event: message\ndata: ${LIST_CHANGED}\n\n`);
      }, LIST_CHANGED_COALESCE_MS);
    };
    // Refusals (an untrusted workspace) throw here, before anything is written, and keep their status.
    const unsubscribe = await watchTools(principal, request, onChange);
    if (request.destroyed) {
      unsubscribe();
      return;
    }
    response.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    response.write(': toolport tools stream\n\n');
    const keepalive = setInterval(() => response.write(': keepalive\n\n'), MCP_STREAM_KEEPALIVE_MS);
    keepalive.unref();
    openStreams.add(response);
    response.once('close', () => {
      openStreams.delete(response);
      clearInterval(keepalive);
      clearTimeout(pending);
      unsubscribe();
    });
  }

  const handle = async (
    request: IncomingMessage,
    response: ServerResponse,
    parsedBody?: unknown,
  ): Promise<void> => {
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
    if (request.method === 'GET' && options.watchTools !== undefined) {
      try {
        return await openToolsStream(principal, request, response, options.watchTools);
      } catch (error) {
        if (isToolportError(error) && !response.headersSent) {
          return sendJsonRpcError(response, httpStatusForErrorCode(error.code), error.message);
        }
        options.onError?.(error);
        if (!response.headersSent)
          sendJsonRpcError(response, 500, 'Internal error while opening the stream.');
        else response.end();
        return;
      }
    }
    if (request.method !== 'POST') {
      const allow = options.watchTools === undefined ? 'POST' : 'GET, POST';
      return sendJsonRpcError(response, 405, 'This MCP endpoint is stateless: use POST.', { allow });
    }

    // The transport's rules (as the SDK's server transport applies them).
    const accept = headerValue(request, 'accept');
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      return sendJsonRpcError(
        response,
        406,
        'Not Acceptable: Client must accept both application/json and text/event-stream',
      );
    }
    if (!headerValue(request, 'content-type').includes('application/json')) {
      return sendJsonRpcError(response, 415, 'Unsupported Media Type: Content-Type must be application/json');
    }
    const protocolVersion = request.headers['mcp-protocol-version'];
    if (typeof protocolVersion === 'string' && !SUPPORTED_MCP_PROTOCOL_VERSIONS.includes(protocolVersion)) {
      return sendJsonRpcError(
        response,
        400,
        `Bad Request: Unsupported protocol version ${protocolVersion} (supported: ${SUPPORTED_MCP_PROTOCOL_VERSIONS.join(', ')})`,
      );
    }

    try {
      let body: unknown;
      try {
        body = parsedBody !== undefined ? parsedBody : await readJsonBody(request);
      } catch (error) {
        if (!(error instanceof SyntaxError)) throw error;
        return sendJsonRpcError(response, 400, `Parse error: ${error.message}`, {}, JSON_RPC_PARSE_ERROR);
      }
      await answer(principal, request, response, body);
    } catch (error) {
      // A refusal (a workspace the caller may not use, a policy) keeps its own status and message.
      if (isToolportError(error) && !response.headersSent) {
        return sendJsonRpcError(response, httpStatusForErrorCode(error.code), error.message);
      }
      // A mounted handler must not reject into a bare node:http server (an unhandled rejection ends the process).
      options.onError?.(error);
      if (!response.headersSent)
        sendJsonRpcError(response, 500, 'Internal error while handling the MCP request.');
      else response.end();
    }
  };

  return Object.assign(handle, {
    closeStreams(): void {
      for (const stream of openStreams) stream.end();
      openStreams.clear();
    },
  });
}
