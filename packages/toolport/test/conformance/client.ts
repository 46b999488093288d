/*
 * MCP-1 conformance driver: the official suite (`@modelcontextprotocol/conformance client --command …`) starts its own
 * test server for each scenario and runs this script with that server's URL as the last argument (the harness's
 * convention) and the scenario in MCP_CONFORMANCE_SCENARIO. It drives toolport's real client, `McpClientPool`, the
 * way a turn does: list the tools, then call the scenario's tool. Exit code 0 when the calls went through; the
 * harness judges the wire traffic itself.
 */
import { McpClientPool } from '../../src/mcp/mcp-client-pool.ts';
import type { McpServerConfig } from '../../src/mcp/mcp-server-config.ts';

/** The tool each client scenario's server offers, and the arguments it checks. */
const CALLS_BY_SCENARIO: Record<string, { tool: string; arguments: Record<string, unknown> }> = {
  tools_call: { tool: 'add_numbers', arguments: { a: 5, b: 3 } },
  'sse-retry': { tool: 'test_reconnection', arguments: {} },
};

async function main(): Promise<number> {
  const serverUrl = process.argv.at(-1);
  if (serverUrl === undefined || !/^https?:\/\//.test(serverUrl)) {
    process.stderr.write('usage: node client.ts <server-url>\n');
    return 2;
  }
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  const pool = new McpClientPool({ clientInfo: { name: 'toolport-conformance', version: '0.1.0' } });
  const config: McpServerConfig = {
    id: 'conformance',
    name: 'conformance',
    enabled: true,
    transport: 'http',
    url: serverUrl,
    protocol: 'streamable-http',
  };
  try {
    const tools = await pool.listTools('conformance-user', config);
    process.stdout.write(`listed ${tools.length} tools: ${tools.map((tool) => tool.name).join(', ')}\n`);
    const call = CALLS_BY_SCENARIO[scenario];
    // The auth scenarios' servers offer one tool behind authorization: calling it proves the token is used.
    const planned = call ?? (tools[0] === undefined ? undefined : { tool: tools[0].name, arguments: {} });
    if (planned !== undefined) {
      const result = await pool.callTool('conformance-user', config, planned.tool, planned.arguments);
      process.stdout.write(`${planned.tool}: ${JSON.stringify(result.content)}\n`);
    }
    return 0;
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await pool.close();
  }
}

process.exitCode = await main();
