/**
 * `toolport/mcp`: MCP in both directions (SPEC §6). A separate entry so the root `toolport` entry never loads the MCP
 * SDK. Named exports only.
 *
 * @example
 * ```ts
 * import { createToolRuntime, registerBuiltinTools, ToolRegistry } from 'toolport';
 * import { McpClientPool, parseMcpServerConfig } from 'toolport/mcp';
 *
 * const pool = new McpClientPool();
 * const config = parseMcpServerConfig({
 *   id: 'fs', name: 'fs', transport: 'stdio',
 *   command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'],
 * });
 * const builtins = registerBuiltinTools(new ToolRegistry()).listEntries();
 * const { entries, statuses } = await pool.getEntries('me', [config], {
 *   reservedNames: builtins.map((entry) => entry.tool.definition.name),
 * });
 * const runtime = createToolRuntime({ entries: builtins, extraEntries: entries, userId: 'me' });
 * // runtime.tools now lists fs_read_text_file, …; runtime.execute({ toolName: 'fs_list_directory', … })
 * await pool.close(); // ends every stdio child
 * ```
 */

export {
  DEFAULT_MCP_CALL_TIMEOUT_SECONDS,
  MAX_MCP_CALL_TIMEOUT_SECONDS,
  MIN_MCP_CALL_TIMEOUT_SECONDS,
  REDACTED_VALUE,
  applyRedactedValues,
  getMcpCallTimeoutMs,
  parseMcpServerConfig,
  redactMcpServerConfig,
} from './mcp-server-config.ts';
export type {
  McpRemoteProtocol,
  McpRemoteServerConfig,
  McpServerConfig,
  McpStdioServerConfig,
} from './mcp-server-config.ts';
export { listSecretReferences, resolveSecretReferences } from './resolve-secret-references.ts';
export { McpClientPool } from './mcp-client-pool.ts';
export type {
  McpCallOptions,
  McpClientPoolOptions,
  McpConnectionState,
  McpEntriesResult,
  McpGetEntriesOptions,
  McpServerStatus,
} from './mcp-client-pool.ts';
export { assignMcpToolNames, createMcpToolEntries, mcpContentToText } from './mcp-tool-entries.ts';
export type { CreateMcpToolEntriesOptions, McpServerListing, McpToolCaller } from './mcp-tool-entries.ts';
export { DEFAULT_MCP_SERVER_INFO, createMcpServer } from './mcp-server.ts';
export type { CreateMcpServerOptions } from './mcp-server.ts';
export { serveMcpOverStdio } from './mcp-stdio-server.ts';
export type { McpStdioServer, ServeMcpStdioOptions } from './mcp-stdio-server.ts';
export { toCallToolResult, toMcpTool } from './mcp-tool-projection.ts';
export { DEFAULT_MCP_ALLOWED_HOSTS, createMcpHttpHandler } from './mcp-http-handler.ts';
export type { McpHttpHandler, McpHttpHandlerOptions, McpHttpPrincipal } from './mcp-http-handler.ts';
