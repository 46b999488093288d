import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolExecutionOutcome } from '../core/execute-tool.ts';
import type { RuntimeTool } from '../core/tool-runtime.ts';

/*
 * How toolport's tools look over MCP (MCP-2), shared by the SDK server (Streamable HTTP) and the lean stdio server.
 * Type-only SDK imports: this module must not load the SDK at run time (`toolport mcp` cold start).
 */

/** A runtime tool as MCP lists it: its JSON Schema as `inputSchema`, its title and hints as annotations. */
export function toMcpTool(runtimeTool: RuntimeTool): McpTool {
  const { definition, tool } = runtimeTool;
  return {
    name: definition.name,
    title: tool.settings.title,
    description: definition.description,
    inputSchema: definition.parameters as McpTool['inputSchema'],
    annotations: { title: tool.settings.title, ...tool.annotations },
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * An execution outcome as an MCP result. Every outcome of a tool that ran — `not_found` for a missing file included —
 * is a result the model can read (`isError` with its code and message). Whether the *tool* exists and is enabled is
 * the caller's check, before the call, and only that is a protocol error (InvalidParams), as MCP asks.
 */
export function toCallToolResult(outcome: ToolExecutionOutcome): CallToolResult {
  // A workspace script's console output is a second text item, after the result (WS-1).
  const logs = outcome.logs === undefined ? [] : [{ type: 'text' as const, text: outcome.logs }];
  if (outcome.ok) {
    return {
      content: [{ type: 'text', text: outcome.output }, ...logs],
      ...(isPlainObject(outcome.result) && !outcome.truncated ? { structuredContent: outcome.result } : {}),
    };
  }
  return { isError: true, content: [{ type: 'text', text: outcome.output }, ...logs] };
}

export function unknownToolMessage(name: string): string {
  return `Unknown tool: ${name}. It does not exist or is disabled; call tools/list for the available tools.`;
}
