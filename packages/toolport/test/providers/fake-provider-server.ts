import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProviderName } from '../../src/providers/provider-adapter.ts';

/**
 * A local stand-in for the four providers' streaming endpoints, speaking each one's real SSE framing so the real SDK
 * clients parse it: OpenAI Responses (`event:` + `data:`), Chat Completions (`data:` … `data: [DONE]`), Anthropic
 * (`event: <type>` + `data:`), Gemini `streamGenerateContent?alt=sse` (`data:` with CRLF separators), Gemini
 * Interactions (`data:`). Loopback only (127.0.0.1, port 0). Responses are queued per wire format and served in order;
 * every request body is recorded so tests can assert what the adapter sent back.
 */

/** The streaming wire formats plus the two (non-streaming) image endpoints. */
export type FakeEndpoint = ProviderName | 'openai-images' | 'gemini-images';

export interface ScriptedResponse {
  /** One JSON payload per SSE event, exactly as the provider sends it. */
  payloads: readonly unknown[];
  /** A plain JSON response instead of a stream (image endpoints). */
  json?: unknown;
  /** Keep the stream open after the payloads until the client goes away (cancellation tests). */
  hang?: boolean;
  /** An HTTP error instead of a stream. */
  status?: number;
  errorBody?: unknown;
  /** Milliseconds to wait between events. */
  delayMs?: number;
}

export interface RecordedRequest {
  format: FakeEndpoint;
  path: string;
  body: Record<string, unknown>;
  /** The credential the SDK sent (`authorization`, `x-api-key` or `x-goog-api-key`). */
  apiKey?: string;
}

function formatOf(path: string): FakeEndpoint | undefined {
  if (path.startsWith('/v1/images/generations')) return 'openai-images';
  if (path.includes(':generateContent')) return 'gemini-images';
  if (path.startsWith('/v1/responses')) return 'openai';
  if (path.startsWith('/v1/chat/completions')) return 'openai-chat';
  if (path.startsWith('/v1/messages')) return 'anthropic';
  if (path.includes(':streamGenerateContent')) return 'gemini';
  if (path.includes('/interactions')) return 'gemini-interactions';
  return undefined;
}

function frame(format: FakeEndpoint, payload: unknown): string {
  const data = JSON.stringify(payload);
  const type = (payload as { type?: unknown }).type;
  switch (format) {
    case 'openai':
      return `event: ${String(type)}\ndata: ${data}\n\n`;
    case 'anthropic':
      return `event: ${String(type)}\ndata: ${data}\n\n`;
    case 'gemini':
      return `data: ${data}\r\n\r\n`;
    default:
      return `data: ${data}\n\n`;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class FakeProviderServer {
  readonly requests: RecordedRequest[] = [];
  /** Requests whose client closed the connection before the stream ended. */
  abortedRequests = 0;
  /** Milliseconds the server spent writing responses (the benchmark subtracts it). */
  serverTimeMs = 0;
  readonly #queues = new Map<FakeEndpoint, ScriptedResponse[]>();
  readonly #server: Server;
  #url = '';

  private constructor() {
    this.#server = createServer((request, response) => void this.#handle(request, response));
  }

  /** `host`: another loopback address (127.0.0.2) plays an allowlisted upstream in the policy tests. */
  static async start(host = '127.0.0.1'): Promise<FakeProviderServer> {
    const fake = new FakeProviderServer();
    await new Promise<void>((resolve) => fake.#server.listen(0, host, resolve));
    fake.#url = `http://${host}:${(fake.#server.address() as AddressInfo).port}`;
    return fake;
  }

  get url(): string {
    return this.#url;
  }

  /** The `baseURL` to give each SDK so its requests land here. */
  baseURLFor(format: FakeEndpoint): string {
    return format === 'openai' || format === 'openai-chat' || format === 'openai-images'
      ? `${this.#url}/v1`
      : this.#url;
  }

  enqueue(format: FakeEndpoint, response: ScriptedResponse | readonly unknown[]): void {
    const queue = this.#queues.get(format) ?? [];
    queue.push(Array.isArray(response) ? { payloads: response } : (response as ScriptedResponse));
    this.#queues.set(format, queue);
  }

  pending(format: FakeEndpoint): number {
    return this.#queues.get(format)?.length ?? 0;
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const started = performance.now();
    const path = request.url ?? '/';
    const format = formatOf(path);
    const scripted = format === undefined ? undefined : this.#queues.get(format)?.shift();
    if (format === undefined || scripted === undefined) {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `fake server: nothing scripted for ${path}` } }));
      return;
    }
    const text = Buffer.concat(chunks).toString('utf8');
    this.requests.push({
      format,
      path,
      body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
      apiKey: sentApiKey(request),
    });
    if (scripted.status !== undefined) {
      response.writeHead(scripted.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(scripted.errorBody ?? { error: { message: 'scripted failure' } }));
      return;
    }
    let finished = false;
    response.on('close', () => {
      if (!finished) this.abortedRequests += 1;
    });
    if (scripted.json !== undefined || format === 'openai-images' || format === 'gemini-images') {
      if (scripted.delayMs !== undefined) await sleep(scripted.delayMs);
      if (scripted.hang === true || response.destroyed) return;
      finished = true;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(scripted.json ?? {}));
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const payload of scripted.payloads) {
      if (scripted.delayMs !== undefined) await sleep(scripted.delayMs);
      if (response.destroyed) return;
      response.write(frame(format, payload));
    }
    if (format === 'openai-chat') response.write('data: [DONE]\n\n');
    this.serverTimeMs += performance.now() - started;
    if (scripted.hang === true) return;
    finished = true;
    response.end();
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

function sentApiKey(request: IncomingMessage): string | undefined {
  const header = (name: string): string | undefined => {
    const value = request.headers[name];
    return typeof value === 'string' ? value : undefined;
  };
  const bearer = header('authorization')?.replace(/^Bearer\s+/i, '');
  return bearer ?? header('x-api-key') ?? header('x-goog-api-key');
}

/** Reads a recorded fixture: one JSON payload per non-empty line. */
export function parseFixtureLines(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown);
}
