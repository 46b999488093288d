import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a loopback test server received, as it arrived on the wire. */
export interface ReceivedRequest {
  method: string;
  /** The raw request target (path and query, undecoded). */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface LoopbackServer {
  host: string;
  port: number;
  origin: string;
  received: ReceivedRequest[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on a loopback address (NET-1 tests: the upstream on 127.0.0.2 under the allowlist, the canary on
 * 127.0.0.1 that must never be reached). `handle` answers; every request is recorded with its raw body.
 */
export async function startLoopbackServer(
  host: string,
  handle: (request: ReceivedRequest, response: ServerResponse, raw: IncomingMessage) => void = (
    _,
    response,
  ) => response.end('canary'),
): Promise<LoopbackServer> {
  const received: ReceivedRequest[] = [];
  const server = createServer((raw, response) => {
    const chunks: Buffer[] = [];
    raw.on('data', (chunk: Buffer) => chunks.push(chunk));
    raw.on('end', () => {
      const request: ReceivedRequest = {
        method: raw.method ?? 'GET',
        url: raw.url ?? '/',
        headers: raw.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(request);
      handle(request, response, raw);
    });
  });
  server.listen(0, host);
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    host,
    port,
    origin: `http://${host}:${port}`,
    received,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** Answers JSON describing the request, so a test can see exactly what a tool sent. */
export function echoAsJson(
  request: ReceivedRequest,
  response: ServerResponse,
  extra: Record<string, unknown> = {},
) {
  response.writeHead(200, {
    'content-type': 'application/json',
    'x-ratelimit-remaining': '41',
    'x-internal': 'no',
  });
  response.end(
    JSON.stringify({
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: request.body,
      ...extra,
    }),
  );
}
