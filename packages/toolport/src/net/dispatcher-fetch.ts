import { Readable, type Transform } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { promisify } from 'node:util';
import {
  brotliDecompress,
  createBrotliDecompress,
  createGunzip,
  createInflate,
  gunzip,
  inflate,
} from 'node:zlib';
import type { Dispatcher } from 'undici';
import { ToolportError } from '../core/errors.ts';
import { planRedirect } from './redirect-plan.ts';

/**
 * A `fetch`-compatible function on undici's `dispatcher.request`, for SDKs that take a custom fetch (the MCP SDK's
 * HTTP transports, the provider SDKs). undici's `fetch` (the global one too) spends ~300 µs of a loopback round trip
 * on the WHATWG machinery (request and header objects, web streams on both ends): most of an MCP call over HTTP.
 *
 * What it keeps of fetch: the WHATWG `Response` (status, statusText, headers, `url`, `redirected`), a body that
 * streams (SSE) unless it is small and announced (`content-length` ≤ 1 MiB and not an event stream: read before the
 * promise resolves and handed over as bytes, which is what makes `response.json()` cheap), the abort signal for the
 * request and its body (rejecting with the signal's reason), `redirect: 'follow' | 'manual' | 'error'` (every hop
 * passed to `checkUrl` and planned by NET-1's `planRedirect`), fetch's default headers and per-body-type
 * `content-type`, gzip/deflate/br bodies decoded, and `TypeError("fetch failed")` for network failures. Left out on
 * purpose: cookies, caches, CORS, `credentials`, `keepalive`; a streamed request body cannot follow a 307/308.
 */
export interface DispatcherFetchOptions {
  dispatcher: Dispatcher;
  /** Called before every hop with the URL about to be requested: its parsed form, or throws to refuse it (NET-1). */
  checkUrl(url: string): URL;
  maxRedirects: number;
  /** Turns a failure of the dispatcher into the error the caller sees (NET-1 passes on no undici error). */
  toFetchError(error: unknown, url: string): unknown;
}

/** Bodies at most this large, announced by `content-length`, are read before the response is handed over. */
export const BUFFERED_RESPONSE_MAX_BYTES = 1024 * 1024;
/** Statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
/** fetch normalizes only these method names to upper case; any other is sent as written. */
const NORMALIZED_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH']);

/** Dropped with the body when a redirect turns the request into a GET (fetch's request-body-header names). */
const REQUEST_BODY_HEADERS = [
  'content-type',
  'content-length',
  'content-encoding',
  'content-language',
  'content-location',
];

/** The headers fetch adds when the caller set none (undici's fetch: its user agent, any type, the codings it decodes). */
function addDefaultHeaders(headers: Record<string, string>): void {
  headers.accept ??= '*/*';
  headers['accept-encoding'] ??= 'gzip, deflate, br';
  headers['user-agent'] ??= 'undici';
}

/** The DOM's BodyInit/HeadersInit, which this build's lib (no DOM) reaches only through RequestInit. */
type FetchBody = RequestInit['body'];
type FetchHeaders = RequestInit['headers'];

type RequestBody = string | Uint8Array | Readable | null;

interface PreparedBody {
  body: RequestBody;
  /** fetch's content-type for the body type, used when the caller set none. */
  contentType?: string;
  /** A stream can be sent once: a redirect that would resend it fails. */
  replayable: boolean;
}

async function prepareBody(body: FetchBody): Promise<PreparedBody> {
  if (body === null || body === undefined) return { body: null, replayable: true };
  if (typeof body === 'string') return { body, contentType: 'text/plain;charset=UTF-8', replayable: true };
  if (body instanceof Uint8Array) return { body, replayable: true };
  if (body instanceof ArrayBuffer) return { body: new Uint8Array(body), replayable: true };
  if (ArrayBuffer.isView(body)) {
    return { body: new Uint8Array(body.buffer, body.byteOffset, body.byteLength), replayable: true };
  }
  if (body instanceof URLSearchParams) {
    return {
      body: body.toString(),
      contentType: 'application/x-www-form-urlencoded;charset=UTF-8',
      replayable: true,
    };
  }
  if (body instanceof Blob || body instanceof FormData) {
    // The platform encodes these (a multipart boundary for FormData); they are small enough to hold.
    const encoded = new Response(body);
    const type = encoded.headers.get('content-type');
    return {
      body: new Uint8Array(await encoded.arrayBuffer()),
      ...(type === null || type === '' ? {} : { contentType: type }),
      replayable: true,
    };
  }
  if (body instanceof ReadableStream) {
    return { body: Readable.fromWeb(body as WebReadableStream), replayable: false };
  }
  if (typeof (body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator] === 'function') {
    return { body: Readable.from(body as AsyncIterable<Uint8Array>), replayable: false };
  }
  return { body: String(body), contentType: 'text/plain;charset=UTF-8', replayable: true };
}

/** The caller's headers as one lower-cased record (repeated names joined, as the Headers class does). */
function flatHeaders(init: FetchHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  const add = (name: string, value: string): void => {
    const key = name.toLowerCase();
    flat[key] = flat[key] === undefined ? value : `${flat[key]}, ${value}`;
  };
  if (init === undefined) return flat;
  if (init instanceof Headers) init.forEach((value, name) => add(name, value));
  else if (Array.isArray(init)) for (const [name, value] of init) add(name!, value!);
  else for (const [name, value] of Object.entries(init)) add(name, String(value));
  return flat;
}

/** undici's header record as name/value pairs for the Response constructor (a repeated `set-cookie` stays repeated). */
function headerPairs(raw: Dispatcher.ResponseData['headers']): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const name in raw) {
    const value = raw[name];
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) pairs.push([name, item]);
    else pairs.push([name, value]);
  }
  return pairs;
}

function headerOf(raw: Dispatcher.ResponseData['headers'], name: string): string | null {
  const value = raw[name];
  return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
}

/** What an aborted signal rejects with, as fetch does: its reason, or an AbortError when it has none. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** Reads a small body whole; event-driven, because the async iterator costs more than a small loopback body. */
function readWhole(body: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    body.on('data', (chunk: Buffer) => chunks.push(chunk));
    body.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    body.once('error', reject);
  });
}

type Decoder = { once: (bytes: Buffer) => Promise<Buffer>; stream: () => Transform };
const DECODERS: Record<string, Decoder> = {
  gzip: { once: promisify(gunzip), stream: createGunzip },
  'x-gzip': { once: promisify(gunzip), stream: createGunzip },
  deflate: { once: promisify(inflate), stream: createInflate },
  br: { once: promisify(brotliDecompress), stream: createBrotliDecompress },
};

/** The decoders for `content-encoding`, in the order to apply them; undefined when a coding is unknown (kept). */
function decodersFor(contentEncoding: string | null): Decoder[] | undefined {
  if (contentEncoding === null) return [];
  const codings = contentEncoding
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  const decoders = codings.map((coding) => (Object.hasOwn(DECODERS, coding) ? DECODERS[coding] : undefined));
  return decoders.every((decoder) => decoder !== undefined) ? decoders.reverse() : undefined;
}

/**
 * The Node body as a web stream that reads only when the consumer pulls, closes the connection's response when the
 * consumer cancels, and ends with `mapError(error)` when the body fails (an abort: the signal's reason).
 */
function toWebStream(body: Readable, mapError: (error: unknown) => unknown): ReadableStream<Uint8Array> {
  let done = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      body.pause();
      body.on('data', (chunk: Buffer) => {
        if (done) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) body.pause();
      });
      body.once('end', () => {
        if (done) return;
        done = true;
        controller.close();
      });
      body.once('error', (error) => {
        if (done) return;
        done = true;
        controller.error(mapError(error));
      });
    },
    pull() {
      body.resume();
    },
    cancel() {
      done = true;
      discard(body);
    },
  });
}

/** Closes a body nobody will read, without an unhandled stream error. */
function discard(body: Readable): void {
  body.on('error', () => {});
  body.destroy();
}

/** `source` piped through the decoders, errors and early closes passed along in both directions. */
function decodeStream(source: Readable, decoders: Decoder[]): Readable {
  let current = source;
  for (const decoder of decoders) {
    const next = decoder.stream();
    const upstream = current;
    upstream.once('error', (error) => next.destroy(error));
    next.once('close', () => {
      if (!upstream.readableEnded) discard(upstream);
    });
    current = upstream.pipe(next);
  }
  return current;
}

function urlOf(input: string | URL | Request): string {
  return typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
}

export function createDispatcherFetch(options: DispatcherFetchOptions): typeof globalThis.fetch {
  const { dispatcher, checkUrl, maxRedirects } = options;

  async function exchange(input: string | URL | Request, init: RequestInit | undefined): Promise<Response> {
    // A Request object carries its own method, headers, body and signal; `init` overrides them, as in fetch.
    const request =
      input instanceof Request ? (init === undefined ? input : new Request(input, init)) : undefined;
    let url = urlOf(input);
    const rawMethod = request?.method ?? init?.method ?? 'GET';
    let method = NORMALIZED_METHODS.has(rawMethod.toUpperCase()) ? rawMethod.toUpperCase() : rawMethod;
    let headers = flatHeaders(request?.headers ?? init?.headers);
    const signal = request?.signal ?? init?.signal ?? undefined;
    const redirectMode = request?.redirect ?? init?.redirect ?? 'follow';
    if (signal?.aborted === true) throw abortReason(signal);
    let prepared = await prepareBody(request === undefined ? init?.body : request.body);
    if (prepared.contentType !== undefined && headers['content-type'] === undefined)
      headers['content-type'] = prepared.contentType;
    addDefaultHeaders(headers);
    let redirected = false;
    // What the caller sees when the exchange fails: the signal's reason after an abort, else a "fetch failed".
    const failure = (error: unknown): unknown =>
      signal?.aborted === true ? abortReason(signal) : options.toFetchError(error, url);

    for (let hop = 0; ; hop += 1) {
      const target = checkUrl(url);
      let response: Dispatcher.ResponseData;
      try {
        response = await dispatcher.request({
          origin: target.origin,
          path: `${target.pathname}${target.search}`,
          method: method as Dispatcher.HttpMethod,
          headers,
          body: prepared.body,
          ...(signal === undefined ? {} : { signal }),
        });
      } catch (error) {
        throw failure(error);
      }
      const status = response.statusCode;
      const location = response.headers.location;
      if (status >= 300 && status <= 399 && typeof location === 'string' && redirectMode !== 'manual') {
        discard(response.body);
        if (redirectMode === 'error')
          throw new TypeError('fetch failed: a redirect was refused (redirect: error).');
        const plan = planRedirect({
          status,
          location,
          url,
          method,
          hasBody: prepared.body !== null,
          hop,
          maxRedirects,
        });
        if (!plan.dropBody && !prepared.replayable && prepared.body !== null) {
          throw new ToolportError(
            'execution_failed',
            `A streamed request body cannot follow a ${status} redirect.`,
          );
        }
        url = plan.url;
        method = plan.method;
        if (plan.dropBody) {
          prepared = { body: null, replayable: true };
          for (const name of REQUEST_BODY_HEADERS) delete headers[name];
        }
        if (plan.crossOrigin) addDefaultHeaders((headers = {}));
        redirected = true;
        continue;
      }
      return toResponse(response, method, url, redirected, failure);
    }
  }

  return (async (input: string | URL | Request, init?: RequestInit) => exchange(input, init)) as typeof fetch;
}

async function toResponse(
  response: Dispatcher.ResponseData,
  method: string,
  url: string,
  redirected: boolean,
  mapError: (error: unknown) => unknown,
): Promise<Response> {
  const status = response.statusCode;
  if (status < 200 || status > 599) {
    discard(response.body);
    throw new TypeError(`fetch failed: the server answered status ${status}.`);
  }
  const raw = response.headers;
  const init: ResponseInit = { status, statusText: response.statusText ?? '', headers: headerPairs(raw) };
  let body: FetchBody;
  if (NULL_BODY_STATUSES.has(status) || method === 'HEAD') {
    discard(response.body);
    body = null;
  } else {
    const decoders = decodersFor(headerOf(raw, 'content-encoding')) ?? [];
    const length = Number(headerOf(raw, 'content-length') ?? Number.NaN);
    const small = Number.isInteger(length) && length <= BUFFERED_RESPONSE_MAX_BYTES;
    const eventStream = (headerOf(raw, 'content-type') ?? '').toLowerCase().includes('text/event-stream');
    if (small && !eventStream) {
      try {
        let bytes = await readWhole(response.body);
        for (const decoder of decoders) bytes = await decoder.once(bytes);
        body = bytes as Uint8Array<ArrayBuffer>;
      } catch (error) {
        throw mapError(error);
      }
    } else {
      body = toWebStream(
        decoders.length === 0 ? response.body : decodeStream(response.body, decoders),
        mapError,
      );
    }
  }
  let answer: Response;
  try {
    answer = new Response(body, init);
  } catch {
    // A reason phrase the WHATWG parser refuses: the status alone is what callers read.
    answer = new Response(body, { ...init, statusText: '' });
  }
  // A constructed Response has an empty `url` and `redirected: false`; fetch reports where it ended up.
  Object.defineProperty(answer, 'url', { value: url });
  if (redirected) Object.defineProperty(answer, 'redirected', { value: true });
  return answer;
}
