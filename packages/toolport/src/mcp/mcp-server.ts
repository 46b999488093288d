import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CancelledNotificationSchema,
  ElicitResultSchema,
  ErrorCode as McpErrorCode,
  ListToolsRequestSchema,
  type CallToolResult,
  type RequestId,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import type { ApproveCallback } from '../core/tool-approval.ts';
import type { ToolRuntime } from '../core/tool-runtime.ts';
import { askThroughElicitation } from './mcp-approval.ts';
import { toCallToolResult, toMcpTool, unknownToolMessage } from './mcp-tool-projection.ts';

export interface CreateMcpServerOptions {
  /** The tools to serve: the calling user's enabled tools (`createToolRuntime` / `getEnabledToolRuntime`). */
  runtime: ToolRuntime;
  serverInfo?: { name: string; version: string };
  instructions?: string;
  /**
   * Cancellation across requests, for stateless transports where `notifications/cancelled` arrives on another HTTP
   * request (another server instance) than the call it cancels. Without it the SDK's per-connection handling applies.
   */
  cancellation?: McpCallCancellation;
  /**
   * Issue 16: whether the client declared elicitation, for stateless transports where this server never saw the
   * client's `initialize`. Without it, the capabilities of this connection's `initialize` decide.
   */
  clientCanElicit?: boolean;
}

export interface McpCallCancellation {
  /** Registers an in-flight call; returns the function that unregisters it. */
  track(requestId: RequestId, controller: AbortController): () => void;
  cancel(requestId: RequestId, reason: string | undefined): void;
}

/**
 * A JSON-RPC InvalidParams error. Not an `McpError`: its message already reads "MCP error -32602: …", which the SDK
 * sends as the wire message, and the client's own `McpError` prefixes it again.
 */
function invalidParams(message: string): Error & { code: number } {
  return Object.assign(new Error(message), { code: McpErrorCode.InvalidParams });
}

export const DEFAULT_MCP_SERVER_INFO = { name: 'toolport', version: '0.1.0' } as const;

/**
 * SPEC MCP-2: toolport's tools as an SDK `Server`, for any SDK transport (the `/mcp` Streamable HTTP handler uses
 * it). A tool's failure is an `isError` result the model can read; an unknown or disabled tool is a protocol error
 * (InvalidParams), as the MCP specification asks. Progress the tool reports is forwarded when the client asked.
 */
export function createMcpServer(options: CreateMcpServerOptions): Server {
  const { runtime } = options;
  const server = new Server(options.serverInfo ?? DEFAULT_MCP_SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
  });
  const byName = new Set(runtime.tools.map((tool) => tool.definition.name));
  let listing: McpTool[] | undefined;

  server.setRequestHandler(ListToolsRequestSchema, () => {
    listing ??= runtime.tools.map(toMcpTool);
    return { tools: listing };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name } = request.params;
    if (!byName.has(name)) throw invalidParams(unknownToolMessage(name));
    const progressToken = request.params._meta?.progressToken;
    let signal = extra.signal;
    let untrack: (() => void) | undefined;
    if (options.cancellation !== undefined) {
      const controller = new AbortController();
      extra.signal.addEventListener('abort', () => controller.abort(extra.signal.reason), { once: true });
      untrack = options.cancellation.track(extra.requestId, controller);
      signal = controller.signal;
    }
    const approve: ApproveCallback = (approval) => {
      const declared = server.getClientCapabilities();
      const canElicit =
        declared === undefined ? options.clientCanElicit === true : declared.elicitation !== undefined;
      return askThroughElicitation(
        approval,
        canElicit
          ? (params, elicitSignal) =>
              extra.sendRequest(
                { method: 'elicitation/create', params: params as never },
                ElicitResultSchema,
                {
                  signal: elicitSignal,
                },
              )
          : undefined,
        signal,
      );
    };
    const outcome = await runtime
      .execute(
        {
          toolName: name,
          arguments: request.params.arguments ?? {},
          callId: `mcp-${String(extra.requestId)}`,
        },
        {
          signal,
          approve,
          onProgress:
            progressToken === undefined
              ? undefined
              : (progress) => {
                  void extra
                    .sendNotification({
                      method: 'notifications/progress',
                      params: { progressToken, ...progress },
                    })
                    .catch(() => {});
                },
        },
      )
      .finally(() => untrack?.());
    return toCallToolResult(outcome);
  });
  if (options.cancellation !== undefined) {
    const { cancellation } = options;
    server.setNotificationHandler(CancelledNotificationSchema, (notification) => {
      const { requestId, reason } = notification.params;
      if (requestId !== undefined) cancellation.cancel(requestId, reason);
    });
  }
  return server;
}
