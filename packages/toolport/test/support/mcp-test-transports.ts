import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterAll, beforeAll } from 'vitest';
import type { ToolRuntime } from '../../src/core/tool-runtime.ts';
import { createMcpHttpHandler } from '../../src/mcp/mcp-http-handler.ts';
import { createSafeFetch } from '../../src/net/safe-fetch.ts';
import { pipeTransport } from './mcp-pipe-transport.ts';

export interface McpTestTransports {
  /** `/mcp` on a loopback node:http server, set once the suite's beforeAll ran. */
  readonly url: URL;
  /** Fresh transports to both of toolport's MCP servers, by label. */
  readonly transports: Record<string, () => Transport>;
}

/**
 * MCP-2 suites run once per server: the lean stdio server (through pipes) and the Streamable HTTP handler
 * (behind `Bearer <token>` for user `u1`), the latter twice: the SDK client on the global fetch, and on NET-1's fetch
 * (what toolport's own MCP client pool uses: progress streams, cancellation and errors through `dispatcher-fetch.ts`).
 * Registers the HTTP server's beforeAll/afterAll in the calling file.
 */
export function useMcpTestTransports(
  makeRuntime: (userId: string) => ToolRuntime,
  token: string,
  labels = {
    stdio: 'stdio (lean server, SDK client)',
    http: 'Streamable HTTP (/mcp handler, SDK client)',
    httpNet1: 'Streamable HTTP (/mcp handler, SDK client on NET-1 fetch)',
  },
): McpTestTransports {
  const outbound = createSafeFetch({ allowlist: { cidrs: ['127.0.0.1/32'] } });
  let httpServer: HttpServer;
  let url: URL | undefined;
  beforeAll(async () => {
    const handler = createMcpHttpHandler({
      authenticate: (request) =>
        request.headers.authorization === `Bearer ${token}` ? { userId: 'u1' } : undefined,
      getRuntime: (principal) => makeRuntime(principal.userId),
    });
    httpServer = createServer((request, response) => {
      if (request.url === '/mcp') void handler(request, response);
      else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
    url = new URL(`http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`);
  });
  afterAll(async () => {
    httpServer.closeAllConnections();
    await new Promise((resolve) => httpServer.close(resolve));
    await outbound.close();
  });
  const urlOrFail = (): URL => {
    if (url === undefined) throw new Error('the MCP test server is not started yet (use it inside a test)');
    return url;
  };
  return {
    get url() {
      return urlOrFail();
    },
    transports: {
      [labels.stdio]: () => pipeTransport(makeRuntime('u1')),
      [labels.http]: () =>
        new StreamableHTTPClientTransport(urlOrFail(), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      [labels.httpNet1]: () =>
        new StreamableHTTPClientTransport(urlOrFail(), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
          fetch: outbound.fetch,
        }),
    },
  };
}
