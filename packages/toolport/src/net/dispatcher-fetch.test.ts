import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync, createGzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isToolportError } from '../core/errors.ts';
import { createSafeFetch } from './safe-fetch.ts';

// NET-1's fetch (`createSafeFetch().fetch`, on undici's dispatcher.request) against real loopback servers: what the
// MCP SDK's transports and the provider SDKs rely on from fetch.

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('NET-1 fetch on dispatcher.request', () => {
  let server: Server;
  let base: string;
  const received: Received[] = [];
  // SSE: the second event is written only once the test says the first one was read (proves the body streams).
  let sendSecondEvent = deferred();
  let streamClosed = deferred();
  let hangClosed = deferred();

  const { fetch, close } = createSafeFetch({ allowlist: { cidrs: ['127.0.0.1/32'] } });

  beforeAll(async () => {
    server = createServer((request: IncomingMessage, response: ServerResponse) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({
          method: request.method ?? '',
          url: request.url ?? '',
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        const path = request.url ?? '';
        if (path === '/json') {
          const text = JSON.stringify({ hello: 'world' });
          response.writeHead(201, 'Made It', {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(text),
            'set-cookie': ['a=1', 'b=2'],
            'x-multi': 'one',
          });
          response.end(text);
        } else if (path === '/echo') {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(
            JSON.stringify({ method: request.method, body: Buffer.concat(chunks).toString('utf8') }),
          );
        } else if (path === '/sse') {
          response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
          response.write('event: message\ndata: first\n\n');
          response.once('close', () => streamClosed.resolve());
          void sendSecondEvent.promise.then(() => {
            if (!response.destroyed) response.write('event: message\ndata: second\n\n');
          });
        } else if (path === '/hang') {
          response.once('close', () => hangClosed.resolve());
        } else if (path === '/gzip-small') {
          const bytes = gzipSync('compressed and announced');
          response.writeHead(200, { 'content-encoding': 'gzip', 'content-length': bytes.length });
          response.end(bytes);
        } else if (path === '/gzip-stream') {
          response.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' });
          const gzip = createGzip();
          gzip.pipe(response);
          gzip.end('compressed and chunked');
        } else if (path === '/no-content') {
          response.writeHead(204).end();
        } else if (path === '/redirect') {
          response.writeHead(302, { location: '/json' }).end();
        } else if (path === '/see-other') {
          response.writeHead(303, { location: '/echo' }).end();
        } else if (path === '/to-blocked') {
          response.writeHead(302, { location: 'http://127.0.0.2:9/x' }).end();
        } else {
          response.end(`ok ${path}`);
        }
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await close();
    server.closeAllConnections();
    server.close();
  });

  it('answers a WHATWG Response: status, reason, headers (repeated set-cookie kept), url, JSON body', async () => {
    const response = await fetch(`${base}/json`);
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(201);
    expect(response.statusText).toBe('Made It');
    expect(response.ok).toBe(true);
    expect(response.url).toBe(`${base}/json`);
    expect(response.redirected).toBe(false);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await response.json()).toEqual({ hello: 'world' });
    expect(received.at(-1)).toMatchObject({ method: 'GET', headers: { accept: '*/*' } });
  });

  it('sends each body type with the caller headers, and fetch’s content-type when the caller set none', async () => {
    const send = async (body: BodyInit, headers?: HeadersInit) => {
      await (await fetch(`${base}/echo`, { method: 'post', body, ...(headers ? { headers } : {}) })).text();
      return received.at(-1)!;
    };
    expect(await send('plain')).toMatchObject({
      method: 'POST',
      body: 'plain',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
    });
    expect(await send('{}', { 'Content-Type': 'application/json', 'X-One': 'a' })).toMatchObject({
      body: '{}',
      headers: { 'content-type': 'application/json', 'x-one': 'a' },
    });
    expect(
      await send(new TextEncoder().encode('bytes'), new Headers({ authorization: 'Bearer t' })),
    ).toMatchObject({ body: 'bytes', headers: { authorization: 'Bearer t' } });
    expect(await send(new URLSearchParams({ a: '1', b: 'two' }), [['x-pair', 'p']])).toMatchObject({
      body: 'a=1&b=two',
      headers: { 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8', 'x-pair': 'p' },
    });
    const form = new FormData();
    form.set('field', 'value');
    const multipart = await send(form);
    expect(multipart.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(multipart.body).toContain('name="field"');
    expect(multipart.body).toContain('value');
    const streamed = await send(
      new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('from a '));
          controller.enqueue(new TextEncoder().encode('stream'));
          controller.close();
        },
      }),
    );
    expect(streamed.body).toBe('from a stream');
  });

  it('accepts a Request object (its method, headers and body)', async () => {
    const request = new Request(`${base}/echo`, { method: 'PUT', body: 'req', headers: { 'x-req': 'r' } });
    expect(await (await fetch(request)).json()).toEqual({ method: 'PUT', body: 'req' });
    expect(received.at(-1)!.headers['x-req']).toBe('r');
  });

  it('streams an SSE body: the first event is readable before the server writes the second', async () => {
    sendSecondEvent = deferred();
    const response = await fetch(`${base}/sse`, { headers: { accept: 'text/event-stream' } });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('data: first')) text += (await reader.read()).value ?? '';
    expect(text).not.toContain('second');
    sendSecondEvent.resolve();
    while (!text.includes('data: second')) text += (await reader.read()).value ?? '';
    expect(text).toBe('event: message\ndata: first\n\nevent: message\ndata: second\n\n');
    // Cancelling the body ends the exchange: the server sees its response closed.
    streamClosed = deferred();
    await reader.cancel();
    await streamClosed.promise;
  });

  it('honours the abort signal: before sending, while waiting for headers, and while reading a stream', async () => {
    const before = new AbortController();
    before.abort(new Error('stopped early'));
    await expect(fetch(`${base}/json`, { signal: before.signal })).rejects.toThrow('stopped early');

    hangClosed = deferred();
    const waiting = new AbortController();
    const pending = fetch(`${base}/hang`, { signal: waiting.signal });
    while (!received.some((entry) => entry.url === '/hang')) await new Promise((r) => setTimeout(r, 5));
    waiting.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    await hangClosed.promise;

    sendSecondEvent = deferred();
    const reading = new AbortController();
    const response = await fetch(`${base}/sse`, { signal: reading.signal });
    const reader = response.body!.getReader();
    await reader.read();
    reading.abort(new Error('stopped mid-stream'));
    await expect(reader.read()).rejects.toThrow('stopped mid-stream');
  });

  it('reports a network failure as fetch’s TypeError, keeping only the error code', async () => {
    const idle = createServer();
    idle.listen(0, '127.0.0.1');
    await once(idle, 'listening');
    const port = (idle.address() as AddressInfo).port;
    idle.close();
    await once(idle, 'close');
    const error = await fetch(`http://127.0.0.1:${port}/`).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe('fetch failed');
    const cause = (error as TypeError).cause as Error & { code?: string };
    expect(cause.code).toBe('ECONNREFUSED');
    expect(Object.keys(cause)).toEqual(['code']);
  });

  it('still applies NET-1: a blocked address is refused, before connecting and on a redirect', async () => {
    const strict = createSafeFetch();
    try {
      const before = received.length;
      await expect(strict.fetch(`${base}/json`)).rejects.toSatisfy(
        (error: unknown) => isToolportError(error) && error.code === 'permission_denied',
      );
      expect(received.length).toBe(before);
    } finally {
      await strict.close();
    }
    // 127.0.0.2 is outside this client's allowlist: the hop is checked like the first URL.
    await expect(fetch(`${base}/to-blocked`)).rejects.toSatisfy(
      (error: unknown) => isToolportError(error) && error.code === 'permission_denied',
    );
  });

  it('follows redirects by default, returns them with redirect: manual, refuses them with redirect: error', async () => {
    const followed = await fetch(`${base}/redirect`);
    expect(followed.status).toBe(201);
    expect(followed.redirected).toBe(true);
    expect(followed.url).toBe(`${base}/json`);
    await followed.body?.cancel();

    const manual = await fetch(`${base}/redirect`, { redirect: 'manual' });
    expect(manual.status).toBe(302);
    expect(manual.headers.get('location')).toBe('/json');

    await expect(fetch(`${base}/redirect`, { redirect: 'error' })).rejects.toThrow(TypeError);

    const afterPost = await fetch(`${base}/see-other`, {
      method: 'POST',
      body: 'payload',
      headers: { 'content-type': 'text/plain' },
    });
    expect(await afterPost.json()).toEqual({ method: 'GET', body: '' });
    expect(received.at(-1)!.headers['content-type']).toBeUndefined();
  });

  it('decodes a gzip body, announced or chunked, and has no body for 204 and HEAD', async () => {
    expect(await (await fetch(`${base}/gzip-small`)).text()).toBe('compressed and announced');
    expect(await (await fetch(`${base}/gzip-stream`)).text()).toBe('compressed and chunked');
    const empty = await fetch(`${base}/no-content`);
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
    const head = await fetch(`${base}/json`, { method: 'HEAD' });
    expect(head.status).toBe(201);
    expect(head.body).toBeNull();
  });
});
