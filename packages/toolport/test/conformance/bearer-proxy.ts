import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The conformance harness cannot send headers to a server under test, and toolport's `/mcp` needs a bearer token: this
 * loopback proxy adds `Authorization` to every request and passes everything else through untouched (the `Host` and
 * `Origin` headers too, so the DNS-rebinding scenario still reaches toolport's own check), streaming both ways.
 */
export async function startBearerProxy(
  target: URL,
  token: string,
): Promise<{ url: URL; close(): Promise<void> }> {
  const server: Server = createServer((incoming, outgoing) => {
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502);
      outgoing.end();
    });
    outgoing.on('close', () => upstream.destroy());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}${target.pathname}`),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
