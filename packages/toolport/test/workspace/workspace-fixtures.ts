import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The seed's create-ticket script, verbatim except for its URL (tests talk to loopback only). */
export function createTicketScript(url: string): string {
  return `async function main() {
  try {
    const response = await g.http.makeHttpRequest({
      url: ${JSON.stringify(url)},
      method: "POST",
      body: JSON.stringify({
        title: g.tool.args.title,
        body: g.tool.args.body,
        priority: g.tool.args.priority || "medium"
      }),
      headers: { "Content-Type": "application/json" }
    });


    const ticket = JSON.parse(response.body);
    return { ticketId: ticket.id, url: ticket.url };
  } catch (e) {
    return { error: e.message };
  }
}
`;
}

/** The seed's create-ticket tools.json entry. */
export const CREATE_TICKET_TOOL = {
  name: 'create-ticket',
  description: 'Create a support ticket in the ticketing system',
  script: 'scripts/create-ticket.js',
  timeout: 15,
  headers: { Authorization: 'Bearer {{TICKETING_API_KEY}}' },
  parameters: {
    type: 'object',
    properties: {
      title: { type: 'string', description: 'Ticket title' },
      body: { type: 'string', description: 'Ticket description' },
      priority: { type: 'string', enum: ['low', 'medium', 'high'] },
    },
    required: ['title', 'body'],
  },
};

/** The seed's search-products entry (its script navigates with g.nav). */
export const SEARCH_PRODUCTS_TOOL = {
  name: 'search-products',
  description: 'Search the product catalog by keyword',
  script: 'scripts/search-products.js',
  timeout: 30,
  parameters: {
    type: 'object',
    properties: {
      keyword: { type: 'string', description: 'Search keyword' },
      maxResults: { type: 'number', description: 'Maximum results to return (default: 10)' },
    },
    required: ['keyword'],
  },
};

/** The seed's search-products script with its "... extrair resultados ..." filled in, against a local store. */
export function searchProductsScript(storeUrl: string): string {
  return `async function main() {
  const keyword = g.tool.args.keyword;
  const maxResults = g.tool.args.maxResults || 10;


  await g.nav.navigateToUrl(${JSON.stringify(`${storeUrl}/search?q=`)} + keyword);
  const results = (await g.nav.getText("#results")).split("\\n").filter((line) => line.trim() !== "");


  return results.slice(0, maxResults);
}
`;
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A loopback server: a ticketing API that echoes the Authorization header back, and a small store page. */
export async function startLoopbackServices(): Promise<{
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      if (request.url === '/tickets' && request.method === 'POST') {
        response.writeHead(201, {
          'content-type': 'application/json',
          'x-echo-auth': request.headers.authorization ?? '',
        });
        response.end(
          JSON.stringify({
            id: 'T-1',
            url: `${base}/tickets/T-1`,
            echo: request.headers.authorization ?? null,
          }),
        );
        return;
      }
      if (request.url?.startsWith('/search')) {
        const keyword = new URL(request.url, base).searchParams.get('q') ?? '';
        const items = ['Red lamp', 'Blue lamp', 'Green lamp', 'Desk'].filter((item) =>
          item.toLowerCase().includes(keyword),
        );
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end(
          `<html><body><h1>Results</h1><div id="results">${items.map((item) => `<p>${item}</p>`).join('')}</div></body></html>`,
        );
        return;
      }
      response.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A real workspace directory with tools.json and scripts. */
export function createWorkspace(tools: unknown[], scripts: Record<string, string>): string {
  const directory = realpathSync(mkdtempSync(join(tmpdir(), 'toolport-workspace-')));
  mkdirSync(join(directory, 'scripts'));
  writeWorkspace(directory, tools, scripts);
  return directory;
}

export function writeWorkspace(
  directory: string,
  tools: unknown[],
  scripts: Record<string, string> = {},
): void {
  for (const [name, source] of Object.entries(scripts))
    writeFileSync(join(directory, 'scripts', name), source);
  writeFileSync(join(directory, 'tools.json'), JSON.stringify({ tools }, null, 2));
}
