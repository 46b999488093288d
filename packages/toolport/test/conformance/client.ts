/*
 * MCP-1 conformance driver: the official suite (`@modelcontextprotocol/conformance client --command …`) starts its own
 * test server for each scenario and runs this script with that server's URL as the last argument (the harness's
 * convention) and the scenario in MCP_CONFORMANCE_SCENARIO. It drives toolport's real client, `McpClientPool`, the
 * way a turn does: list the tools, then call the scenario's tool; when a server asks for OAuth, it authorizes
 * headlessly (test only) and retries. Exit code 0 when the calls went through; the
 * harness judges the wire traffic itself.
 */
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { McpClientPool } from '../../src/mcp/mcp-client-pool.ts';
import { createMemoryMcpOAuthStore, createMcpOAuthProvider } from '../../src/mcp/mcp-oauth-provider.ts';
import type { McpServerConfig } from '../../src/mcp/mcp-server-config.ts';

/** The suite's authorization servers redirect here with the code; nothing listens: the driver reads the Location. */
const REDIRECT_URL = 'http://localhost:3000/callback';
/** The metadata-document client id the CIMD scenario expects (SEP-991). */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
/** Authorization rounds (first authorization plus step-ups) before giving up, as a person would. */
const MAX_AUTHORIZATIONS = 3;

interface ConformanceContext {
  client_id?: string;
  client_secret?: string;
}

/**
 * Test-only headless authorization: a browser would show the authorization server's page; the suite's servers
 * approve at once, so following the URL without redirects yields the redirect back with `code`.
 */
async function authorizeHeadlessly(authorizationUrl: URL): Promise<string> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (location === null)
    throw new Error(`The authorization endpoint answered ${response.status} without a redirect.`);
  const code = new URL(location).searchParams.get('code');
  if (code === null) throw new Error(`The authorization redirect carried no code: ${location}`);
  return code;
}

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
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as ConformanceContext;
  const store = createMemoryMcpOAuthStore(
    context.client_id === undefined
      ? {}
      : {
          clientInformation: {
            client_id: context.client_id,
            ...(context.client_secret === undefined ? {} : { client_secret: context.client_secret }),
          },
        },
  );
  let pendingAuthorization: URL | undefined;
  const provider = createMcpOAuthProvider({
    store,
    redirectUrl: REDIRECT_URL,
    clientMetadataUrl: CLIENT_METADATA_URL,
    clientMetadata: {
      client_name: 'toolport',
      redirect_uris: [REDIRECT_URL],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: context.client_secret === undefined ? 'none' : 'client_secret_basic',
    },
    onAuthorizationUrl: (url) => {
      pendingAuthorization = url;
    },
  });
  const pool = new McpClientPool({
    clientInfo: { name: 'toolport-conformance', version: '0.1.0' },
    authProviderFor: () => provider,
  });
  const config: McpServerConfig = {
    id: 'conformance',
    name: 'conformance',
    enabled: true,
    transport: 'http',
    url: serverUrl,
    protocol: 'streamable-http',
  };
  const listAndCall = async (): Promise<void> => {
    const tools = await pool.listTools('conformance-user', config);
    process.stdout.write(`listed ${tools.length} tools: ${tools.map((tool) => tool.name).join(', ')}\n`);
    const call = CALLS_BY_SCENARIO[scenario];
    // The auth scenarios' servers offer one tool behind authorization: calling it proves the token is used.
    const planned = call ?? (tools[0] === undefined ? undefined : { tool: tools[0].name, arguments: {} });
    if (planned !== undefined) {
      const result = await pool.callTool('conformance-user', config, planned.tool, planned.arguments);
      process.stdout.write(`${planned.tool}: ${JSON.stringify(result.content)}\n`);
    }
  };
  try {
    for (let round = 0; ; round += 1) {
      try {
        await listAndCall();
        return 0;
      } catch (error) {
        const url = pendingAuthorization;
        pendingAuthorization = undefined;
        if (url === undefined || round >= MAX_AUTHORIZATIONS) throw error;
        process.stderr.write(`authorizing (round ${round + 1}) after: ${String(error)}\n`);
        const authorizationCode = await authorizeHeadlessly(url);
        await auth(provider, { serverUrl, authorizationCode });
        await pool.disconnect('conformance-user', config.id);
      }
    }
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await pool.close();
  }
}

process.exitCode = await main();
