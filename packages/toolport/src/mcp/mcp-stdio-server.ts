import type { Readable, Writable } from 'node:stream';
import type { ToolRuntime } from '../core/tool-runtime.ts';
import { toCallToolResult, toMcpTool, unknownToolMessage } from './mcp-tool-projection.ts';
import { createMcpCallNotifier, createMcpLogLevelStore, isMcpLogLevel } from './mcp-logging.ts';

/*
 * `toolport mcp`'s stdio server (MCP-2). It speaks the small part of MCP a tools-only server needs — initialize, ping,
 * tools/list, tools/call with progress and logging (`mcp-logging.ts`), logging/setLevel, cancellation — directly over newline-delimited JSON-RPC, without loading the
 * SDK: the SDK's server module alone costs more start-up time than the 250 ms goal for the first tools/list answer.
 * Same projection as the SDK-based server (`mcp-tool-projection.ts`); conformance is tested with the official SDK
 * client and the MCP Inspector CLI. Anything else is "method not found", as for an SDK server without those
 * capabilities.
 */

/** Newest first; the answer is the client's version when we know it, else the newest (MCP version negotiation). */
const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

type RequestId = string | number;
type JsonObject = Record<string, unknown>;

interface JsonRpcError {
  code: number;
  message: string;
}

export interface ServeMcpStdioOptions {
  runtime: ToolRuntime;
  serverInfo?: { name: string; version: string };
  input?: Readable;
  output?: Writable;
}

export interface McpStdioServer {
  /** Resolves when the input ends (the client closed stdin) or `close()` was called. */
  readonly closed: Promise<void>;
  close(): void;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || typeof value === 'number';
}

export function serveMcpOverStdio(options: ServeMcpStdioOptions): McpStdioServer {
  const { runtime } = options;
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const serverInfo = options.serverInfo ?? { name: 'toolport', version: '0.1.0' };
  const enabled = new Set(runtime.tools.map((tool) => tool.definition.name));
  const inFlight = new Map<RequestId, AbortController>();
  const running = new Set<Promise<void>>();
  let listing: unknown[] | undefined;
  const logLevel = createMcpLogLevelStore();
  let buffered = '';
  let open = true;

  const send = (message: JsonObject): void => {
    if (open) output.write(`${JSON.stringify(message)}\n`);
  };
  const reply = (id: RequestId, result: unknown): void => send({ jsonrpc: '2.0', id, result });
  const fail = (id: RequestId | null, error: JsonRpcError): void => send({ jsonrpc: '2.0', id, error });

  async function callTool(id: RequestId, params: JsonObject): Promise<void> {
    const name = params.name;
    if (typeof name !== 'string')
      return fail(id, { code: INVALID_PARAMS, message: 'params.name must be a string.' });
    if (!enabled.has(name)) return fail(id, { code: INVALID_PARAMS, message: unknownToolMessage(name) });
    const meta = isObject(params._meta) ? params._meta : undefined;
    const progressToken =
      meta !== undefined && isRequestId(meta.progressToken) ? meta.progressToken : undefined;
    const controller = new AbortController();
    const notifier = createMcpCallNotifier({
      toolName: name,
      progressToken,
      logLevel,
      send: (notification) => send({ jsonrpc: '2.0', ...notification }),
    });
    inFlight.set(id, controller);
    try {
      const outcome = await runtime.execute(
        { toolName: name, arguments: params.arguments ?? {}, callId: `mcp-${String(id)}` },
        { signal: controller.signal, ...notifier.callOptions },
      );
      notifier.finish();
      // A cancelled request gets no response (MCP cancellation).
      if (controller.signal.aborted) return;
      const result = toCallToolResult(outcome);
      if (result === undefined) fail(id, { code: INVALID_PARAMS, message: unknownToolMessage(name) });
      else reply(id, result);
    } finally {
      notifier.finish();
      inFlight.delete(id);
    }
  }

  function handleRequest(id: RequestId, method: string, params: JsonObject): void {
    switch (method) {
      case 'initialize': {
        const requested = params.protocolVersion;
        const protocolVersion =
          typeof requested === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
            ? requested
            : SUPPORTED_PROTOCOL_VERSIONS[0];
        return reply(id, {
          protocolVersion,
          capabilities: { tools: { listChanged: false }, logging: {} },
          serverInfo,
        });
      }
      case 'ping':
        return reply(id, {});
      case 'logging/setLevel':
        if (!isMcpLogLevel(params.level))
          return fail(id, { code: INVALID_PARAMS, message: 'params.level must be an MCP log level.' });
        logLevel.set(params.level);
        return reply(id, {});
      case 'tools/list':
        listing ??= runtime.tools.map(toMcpTool);
        return reply(id, { tools: listing });
      case 'tools/call': {
        const call = callTool(id, params)
          .catch((error: unknown) =>
            fail(id, {
              code: INTERNAL_ERROR,
              message: error instanceof Error ? error.message : String(error),
            }),
          )
          .finally(() => running.delete(call));
        running.add(call);
        return;
      }
      default:
        return fail(id, { code: METHOD_NOT_FOUND, message: `Method not found: ${method}` });
    }
  }

  function handleMessage(message: unknown): void {
    if (!isObject(message) || message.jsonrpc !== '2.0') {
      return fail(isObject(message) && isRequestId(message.id) ? message.id : null, {
        code: INVALID_REQUEST,
        message: 'Not a JSON-RPC 2.0 message.',
      });
    }
    const { id, method } = message;
    // A response to a request we never send: nothing to do.
    if (typeof method !== 'string') return;
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
  input.on('data', onData);
  input.once('end', drainThenClose);
  input.once('close', drainThenClose);
  return { closed, close };
}
