import type { Readable, Writable } from 'node:stream';
import type { ApprovalRequest } from '../core/tool-approval.ts';
import type { ToolRuntime } from '../core/tool-runtime.ts';
import { McpClientRequests } from './mcp-client-requests.ts';
import {
  createMcpToolsDispatcher,
  isJsonObject as isObject,
  isJsonRpcId as isRequestId,
  JSON_RPC_INVALID_REQUEST as INVALID_REQUEST,
  JSON_RPC_PARSE_ERROR as PARSE_ERROR,
  type JsonObject,
  type JsonRpcId as RequestId,
  type JsonRpcResponse,
} from './mcp-tools-dispatcher.ts';

/*
 * `toolport mcp`'s stdio server (MCP-2): newline-delimited JSON-RPC around the shared tools dispatcher
 * (`mcp-tools-dispatcher.ts`, also behind `/mcp`), without loading the SDK. Anything but initialize, ping,
 * tools/list and tools/call is "method not found", as for an SDK server without those capabilities.
 */

interface JsonRpcError {
  code: number;
  message: string;
}

export interface ServeMcpStdioOptions {
  runtime: ToolRuntime;
  serverInfo?: { name: string; version: string };
  input?: Readable;
  output?: Writable;
  /** Issue 16: called for an elicitation answered "always" (e.g. writes the stored user's allow rule). */
  rememberAlways?: (request: ApprovalRequest) => Promise<void>;
}

export interface McpStdioServer {
  /** Resolves when the input ends (the client closed stdin) or `close()` was called. */
  readonly closed: Promise<void>;
  close(): void;
  /**
   * Serves `runtime` from now on (code tools reloaded, CODE-1); calls already running finish on the old one. Sends
   * `notifications/tools/list_changed` when the listing differs.
   */
  replaceRuntime(runtime: ToolRuntime): void;
}

/** What a client's tools/list would show, to tell whether a new runtime changes it. */
function listingKey(runtime: ToolRuntime): string {
  return JSON.stringify(runtime.tools.map((tool) => tool.definition));
}

export function serveMcpOverStdio(options: ServeMcpStdioOptions): McpStdioServer {
  let runtime = options.runtime;
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const dispatcherFor = (served: ToolRuntime) =>
    createMcpToolsDispatcher({
      runtime: served,
      listChanged: true,
      ...(options.serverInfo === undefined ? {} : { serverInfo: options.serverInfo }),
      ...(options.rememberAlways === undefined ? {} : { rememberAlways: options.rememberAlways }),
    });
  let dispatch = dispatcherFor(runtime);
  let initialized = false;
  const inFlight = new Map<RequestId, AbortController>();
  const running = new Set<Promise<void>>();
  let buffered = '';
  let open = true;
  // Issue 16: whether the client's initialize declared elicitation, and our requests waiting for its answers.
  let clientCanElicit = false;
  const clientRequests = new McpClientRequests();
  const elicit = (params: JsonObject, signal: AbortSignal): Promise<unknown> =>
    clientRequests.request('client', 'elicitation/create', params, signal, send);

  const send = (message: JsonObject | JsonRpcResponse): void => {
    if (open) output.write(`${JSON.stringify(message)}\n`);
  };
  const fail = (id: RequestId | null, error: JsonRpcError): void => send({ jsonrpc: '2.0', id, error });

  function handleRequest(id: RequestId, method: string, params: JsonObject): void {
    const controller = new AbortController();
    if (method === 'tools/call') inFlight.set(id, controller);
    if (method === 'initialize') {
      initialized = true;
      clientCanElicit = isObject(params.capabilities) && isObject(params.capabilities.elicitation);
    }
    const call = dispatch(id, method, params, {
      signal: controller.signal,
      notify: send,
      ...(clientCanElicit ? { elicit } : {}),
    })
      .then((response: JsonRpcResponse) => {
        // A cancelled request gets no response (MCP cancellation).
        if (!controller.signal.aborted) send(response);
      })
      .finally(() => {
        if (inFlight.get(id) === controller) inFlight.delete(id);
        running.delete(call);
      });
    running.add(call);
  }

  function handleMessage(message: unknown): void {
    if (!isObject(message) || message.jsonrpc !== '2.0') {
      return fail(isObject(message) && isRequestId(message.id) ? message.id : null, {
        code: INVALID_REQUEST,
        message: 'Not a JSON-RPC 2.0 message.',
      });
    }
    const { id, method } = message;
    if (typeof method !== 'string') {
      // A response: to one of our elicitations, or to nothing we sent (ignored).
      clientRequests.settle('client', message);
      return;
    }
    const params = isObject(message.params) ? message.params : {};
    if (id === undefined) {
      if (method === 'notifications/cancelled' && isRequestId(params.requestId)) {
        inFlight.get(params.requestId)?.abort(new Error(String(params.reason ?? 'cancelled by the client')));
      }
      return;
    }
    if (!isRequestId(id))
      return fail(null, { code: INVALID_REQUEST, message: 'The id must be a string or number.' });
    handleRequest(id, method, params);
  }

  function handleLine(line: string): void {
    if (line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return fail(null, { code: PARSE_ERROR, message: 'Parse error: a line was not valid JSON.' });
    }
    if (Array.isArray(message)) for (const item of message) handleMessage(item);
    else handleMessage(message);
  }

  const onData = (chunk: Buffer | string): void => {
    buffered += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    let newline = buffered.indexOf('\n');
    while (newline !== -1) {
      const line = buffered.slice(0, newline).replace(/\r$/, '');
      buffered = buffered.slice(newline + 1);
      handleLine(line);
      newline = buffered.indexOf('\n');
    }
  };

  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  const close = (): void => {
    if (!open) return;
    open = false;
    input.off('data', onData);
    for (const controller of inFlight.values()) controller.abort(new Error('The MCP session ended.'));
    resolveClosed();
  };
  // The client ends a session by closing stdin: answer the calls already received, then stop.
  const drainThenClose = (): void => {
    void Promise.allSettled([...running]).then(close);
  };
  const replaceRuntime = (next: ToolRuntime): void => {
    const changed = listingKey(next) !== listingKey(runtime);
    runtime = next;
    dispatch = dispatcherFor(next);
    if (initialized && changed) send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
  };
  input.on('data', onData);
  input.once('end', drainThenClose);
  input.once('close', drainThenClose);
  return { closed, close, replaceRuntime };
}
