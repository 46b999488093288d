import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type SiteHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  body: string,
) => void | Promise<void>;

/**
 * A loopback web site for the summary tools' tests: routes by path (query string ignored unless the route names
 * it), every request recorded (path, headers, body) so a test can assert what was — and was not — fetched.
 */
export class SiteServer {
  readonly requests: Array<{
    method: string;
    path: string;
    headers: IncomingMessage['headers'];
    body: string;
  }> = [];
  readonly #routes = new Map<string, SiteHandler>();
  readonly #server: Server;
  #url = '';

  private constructor() {
    this.#server = createServer((request, response) => void this.#handle(request, response));
  }

  static async start(host = '127.0.0.1'): Promise<SiteServer> {
    const site = new SiteServer();
    await new Promise<void>((resolve) => site.#server.listen(0, host, resolve));
    site.#url = `http://${host}:${(site.#server.address() as AddressInfo).port}`;
    return site;
  }

  get url(): string {
    return this.#url;
  }

  route(path: string, handler: SiteHandler): void {
    this.#routes.set(path, handler);
  }

  /** Serves fixed bytes with a content type (and optional status). */
  serve(path: string, contentType: string, content: string | Buffer, status = 200): void {
    this.route(path, (_request, response) => {
      response.writeHead(status, { 'content-type': contentType });
      response.end(content);
    });
  }

  requested(path: string): number {
    return this.requests.filter((request) => request.path.split('?')[0] === path).length;
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const path = request.url ?? '/';
    this.requests.push({ method: request.method ?? 'GET', path, headers: request.headers, body });
    const handler = this.#routes.get(path) ?? this.#routes.get(path.split('?')[0]!);
    if (handler === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('not found');
      return;
    }
    await handler(request, response, body);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
