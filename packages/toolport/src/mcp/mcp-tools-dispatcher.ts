import type { ApprovalRequest, ApproveCallback } from '../core/tool-approval.ts';
import type { ToolRuntime } from '../core/tool-runtime.ts';
import type { ToolProgress } from '../core/tool-types.ts';
import { askThroughElicitation } from './mcp-approval.ts';
import { toCallToolResult, toMcpTool, unknownToolMessage } from './mcp-tool-projection.ts';

/*
 * The part of MCP a tools-only server speaks — initialize, ping, tools/list, tools/call with progress — as one
 * transport-free function, shared by `toolport mcp` (newline-delimited JSON-RPC on stdio) and `/mcp` (Streamable
 * HTTP). No SDK at run time: the SDK's server module alone costs more start-up than `toolport mcp`'s budget, and
 * building an SDK server per stateless HTTP request costs more than the call. Conformance is tested with the official
 * SDK client and the MCP Inspector CLI.
 */

/** Newest first; the answer is the client's version when we know it, else the newest (MCP version negotiation). */
export const SUPPORTED_MCP_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

export const JSON_RPC_PARSE_ERROR = -32700;
export const JSON_RPC_INVALID_REQUEST = -32600;
export const JSON_RPC_METHOD_NOT_FOUND = -32601;
export const JSON_RPC_INVALID_PARAMS = -32602;
export const JSON_RPC_INTERNAL_ERROR = -32603;

export type JsonRpcId = string | number;
export type JsonObject = Record<string, unknown>;

export interface JsonRpcResponse {
  jsonrpc: '2.0';
  id: JsonRpcId | null;
  result?: unknown;
  error?: { code: number; message: string };
}

export interface McpDispatchContext {
  /** Aborts the call (client cancellation, session or connection end). */
  signal: AbortSignal;
  /** Sends a notification to the client (progress); called only for a request with a `progressToken`. */
  notify(message: JsonObject): void;
  /**
   * Issue 16: sends a server-to-client request (`elicitation/create`) and resolves with the client's result. Present
   * only when the client declared the elicitation capability; without it an `ask` call is denied with a message.
   */
  elicit?: (params: JsonObject, signal: AbortSignal) => Promise<unknown>;
}

export interface McpToolsDispatcherOptions {
  runtime: ToolRuntime;
  serverInfo?: { name: string; version: string };
  instructions?: string;
  /** Announce `tools.listChanged`: the host sends `notifications/tools/list_changed` (`toolport mcp`'s reloads). */
  listChanged?: boolean;
  /** Issue 16: called for an elicitation answered "always" (writes the stored user's allow rule). */
  rememberAlways?: (request: ApprovalRequest) => Promise<void>;
}

export type McpToolsDispatcher = (
  id: JsonRpcId,
  method: string,
  params: JsonObject,
  context: McpDispatchContext,
) => Promise<JsonRpcResponse>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isJsonRpcId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || typeof value === 'number';
}

export function jsonRpcError(id: JsonRpcId | null, code: number, message: string): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/** The progress token of a tools/call request, when the client asked for progress. */
export function progressTokenOf(params: JsonObject): JsonRpcId | undefined {
  const meta = isJsonObject(params._meta) ? params._meta : undefined;
  return meta !== undefined && isJsonRpcId(meta.progressToken) ? meta.progressToken : undefined;
}

export function createMcpToolsDispatcher(options: McpToolsDispatcherOptions): McpToolsDispatcher {
  const { runtime } = options;
  const serverInfo = options.serverInfo ?? { name: 'toolport', version: '0.1.0' };
  const enabled = new Set(runtime.tools.map((tool) => tool.definition.name));
  let listing: unknown[] | undefined;
  const reply = (id: JsonRpcId, result: unknown): JsonRpcResponse => ({ jsonrpc: '2.0', id, result });

  async function callTool(id: JsonRpcId, params: JsonObject, context: McpDispatchContext) {
    const name = params.name;
    if (typeof name !== 'string')
      return jsonRpcError(id, JSON_RPC_INVALID_PARAMS, 'params.name must be a string.');
    // Only an unknown or disabled tool is a protocol error; every outcome of a tool that ran is a result.
    if (!enabled.has(name)) return jsonRpcError(id, JSON_RPC_INVALID_PARAMS, unknownToolMessage(name));
    const progressToken = progressTokenOf(params);
    const onProgress =
      progressToken === undefined
        ? undefined
        : (progress: ToolProgress) =>
            context.notify({
              jsonrpc: '2.0',
              method: 'notifications/progress',
              params: { progressToken, ...progress },
            });
    // Issue 16: a call a rule marks `ask` is put to the human through the client's elicitation, never run unasked.
    const approve: ApproveCallback = async (request) => {
      const decision = await askThroughElicitation(request, context.elicit, context.signal);
      if (decision.decision === 'approve' && decision.remember === 'always')
        await options.rememberAlways?.(request);
      return decision;
    };
    const outcome = await runtime.execute(
      { toolName: name, arguments: params.arguments ?? {}, callId: `mcp-${String(id)}` },
      { signal: context.signal, approve, ...(onProgress === undefined ? {} : { onProgress }) },
    );
    return reply(id, toCallToolResult(outcome));
  }

  return async (id, method, params, context) => {
    try {
      switch (method) {
        case 'initialize': {
          const requested = params.protocolVersion;
          const protocolVersion =
            typeof requested === 'string' && SUPPORTED_MCP_PROTOCOL_VERSIONS.includes(requested)
              ? requested
              : SUPPORTED_MCP_PROTOCOL_VERSIONS[0];
          return reply(id, {
            protocolVersion,
            capabilities: { tools: { listChanged: options.listChanged === true } },
            serverInfo,
            ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
          });
        }
        case 'ping':
          return reply(id, {});
        case 'tools/list':
          listing ??= runtime.tools.map(toMcpTool);
          return reply(id, { tools: listing });
        case 'tools/call':
          return await callTool(id, params, context);
        default:
          return jsonRpcError(id, JSON_RPC_METHOD_NOT_FOUND, `Method not found: ${method}`);
      }
    } catch (error) {
      return jsonRpcError(
        id,
        JSON_RPC_INTERNAL_ERROR,
        error instanceof Error ? error.message : String(error),
      );
    }
  };
}
