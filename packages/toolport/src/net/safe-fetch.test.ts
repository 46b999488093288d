import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isToolportError } from '../core/errors.ts';
import { EnvHttpProxyAgent, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import { createSafeFetch } from './safe-fetch.ts';

// Every server here listens on loopback; the guard is what must refuse them unless allowlisted.
interface TestServer {
  server: Server;
  port: number;
  hits: string[];
}

async function startServer(
  host: string,
  handle: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<TestServer> {
  const hits: string[] = [];
  const server = createServer((request, response) => {
    hits.push(request.url ?? '');
    handle(request, response);
  });
  server.listen(0, host);
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port, hits };
}

async function errorOf(promise: Promise<unknown>): Promise<{ code?: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    return { code: isToolportError(error) ? error.code : undefined, message: (error as Error).message };
  }
  throw new Error('expected a rejection');
}

describe('NET-1 safe fetch', () => {
  let main: TestServer;
  let other: TestServer;
  const otherHeaders: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    other = await startServer('127.0.0.2', (request, response) => {
      otherHeaders.push(request.headers);
      response.end('other');
    });
    main = await startServer('127.0.0.1', (request, response) => {
      if (request.url === '/redirect-cross-origin') {
        response.writeHead(302, { location: `http://127.0.0.2:${other.port}/landing` }).end();
      } else if (request.url === '/redirect-out') {
        response.writeHead(302, { location: `http://127.0.0.2:${other.port}/stolen` }).end();
      } else if (request.url === '/redirect-in') {
        response.writeHead(301, { location: '/final' }).end();
      } else if (request.url === '/see-other') {
        response.writeHead(303, { location: '/after-post' }).end();
      } else if (request.url === '/keep-post-cross-origin') {
        response.writeHead(307, { location: `http://127.0.0.2:${other.port}/got-body` }).end();
      } else if (request.url === '/to-metadata') {
        response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      } else if (request.url === '/after-post') {
        response.end(`${request.method ?? ''} /after-post`);
      } else if (request.url === '/loop') {
        response.writeHead(302, { location: '/loop' }).end();
      } else if (request.url === '/big') {
        response.end(Buffer.alloc(1_000_000, 97));
      } else if (request.url === '/hang') {
        // never answers
      } else response.end(`ok ${request.url}`);
    });
  });

  afterAll(() => {
    main.server.closeAllConnections();
    main.server.close();
    other.server.close();
  });

  it('refuses a literal loopback address before connecting', async () => {
    const { client } = createSafeFetch();
    const error = await errorOf(client.request({ url: `http://127.0.0.1:${main.port}/secret` }));
    expect(error.code).toBe('permission_denied');
    expect(error.message).toContain('loopback');
    expect(main.hits).not.toContain('/secret');
  });

  it('refuses alternative spellings of loopback (decimal, IPv4-mapped IPv6)', async () => {
    const { client } = createSafeFetch();
    expect((await errorOf(client.request({ url: `http://2130706433:${main.port}/d` }))).code).toBe(
      'permission_denied',
    );
    expect((await errorOf(client.request({ url: `http://[::ffff:127.0.0.1]:${main.port}/m` }))).code).toBe(
      'permission_denied',
    );
  });

  it('checks the resolved address at connect time: a name resolving to loopback is refused', async () => {
    const { client } = createSafeFetch({ resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    const error = await errorOf(client.request({ url: `http://rebind.example:${main.port}/rebound` }));
    expect(error.code).toBe('permission_denied');
    expect(error.message).toContain('rebind.example (127.0.0.1)');
    expect(main.hits).not.toContain('/rebound');
  });

  it('refuses a name that resolves to a public and a private address', async () => {
    const { client } = createSafeFetch({
      resolve: async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ],
    });
    expect((await errorOf(client.request({ url: `http://mixed.example:${main.port}/mixed` }))).code).toBe(
      'permission_denied',
    );
  });

  it('refuses localhost through the system resolver', async () => {
    const { client } = createSafeFetch();
    expect((await errorOf(client.request({ url: `http://localhost:${main.port}/local` }))).code).toBe(
      'permission_denied',
    );
    expect(main.hits).not.toContain('/local');
  });

  it('lets an allowlisted address through and follows a redirect that stays allowed', async () => {
    const { client } = createSafeFetch({ allowlist: { cidrs: ['127.0.0.1/32'] } });
    const response = await client.request({ url: `http://127.0.0.1:${main.port}/redirect-in` });
    expect(response.status).toBe(200);
    expect(new TextDecoder().decode(response.body)).toBe('ok /final');
  });

  it('re-checks every redirect hop: a redirect to a blocked address is refused', async () => {
    const { client } = createSafeFetch({ allowlist: { cidrs: ['127.0.0.1/32'] } });
    const error = await errorOf(client.request({ url: `http://127.0.0.1:${main.port}/redirect-out` }));
    expect(error.code).toBe('permission_denied');
    expect(other.hits).toEqual([]);
  });

  it('drops every caller header when a redirect changes origin (credentials never follow)', async () => {
    const { client } = createSafeFetch({ allowlist: { cidrs: ['127.0.0.1/32', '127.0.0.2/32'] } });
    const response = await client.request({
      url: `http://127.0.0.1:${main.port}/redirect-cross-origin`,
      headers: { authorization: 'Bearer SECRET-API-KEY', 'x-api-key': 'SECRET-2', cookie: 'session=abc' },
    });
    expect(new TextDecoder().decode(response.body)).toBe('other');
    const landed = otherHeaders.at(-1)!;
    expect(landed.authorization).toBeUndefined();
    expect(landed['x-api-key']).toBeUndefined();
    expect(landed.cookie).toBeUndefined();
  });

  it('stops a redirect loop', async () => {
    const { client } = createSafeFetch({ allowlist: { cidrs: ['127.0.0.1/32'] }, maxRedirects: 3 });
    expect((await errorOf(client.request({ url: `http://127.0.0.1:${main.port}/loop` }))).message).toContain(
      'Too many redirects',
    );
  });

  it('caps the response size and says it truncated', async () => {
    const { client } = createSafeFetch({ allowlist: { cidrs: ['127.0.0.1/32'] } });
    const response = await client.request({
      url: `http://127.0.0.1:${main.port}/big`,
      maxResponseBytes: 1000,
    });
    expect(response.body.byteLength).toBe(1000);
    expect(response.truncated).toBe(true);
  });

  it('caps the time', async () => {
    const { client } = createSafeFetch({ allowlist: { cidrs: ['127.0.0.1/32'] } });
    expect(
      (await errorOf(client.request({ url: `http://127.0.0.1:${main.port}/hang`, timeoutMs: 200 }))).code,
    ).toBe('timeout');
  });

  it("stops at the caller's abort: mid-request at once, and an aborted signal sends nothing", async () => {
    const { client, close } = createSafeFetch({ allowlist: { cidrs: ['127.0.0.1/32'] } });
    const controller = new AbortController();
    const pending = errorOf(client.request({ url: `http://127.0.0.1:${main.port}/hang` }, controller.signal));
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    expect((await pending).code).toBe('aborted');
    const hitsBefore = main.hits.length;
    const aborted = AbortSignal.abort();
    expect(
      (await errorOf(client.request({ url: `http://127.0.0.1:${main.port}/unsent` }, aborted))).code,
    ).toBe('aborted');
    expect(main.hits.length).toBe(hitsBefore);
    await close();
  });

  it('reuses kept-alive connections: sequential requests do not open one connection each', async () => {
    const connections: unknown[] = [];
    const counting = await startServer('127.0.0.1', (request, response) => {
      if (request.url === '/hop') response.writeHead(302, { location: '/end' }).end('a redirect body');
      else response.end(`done ${request.url}`);
    });
    counting.server.on('connection', (socket) => connections.push(socket));
    const { client, close } = createSafeFetch({ allowlist: { cidrs: ['127.0.0.1/32'] } });
    for (let index = 0; index < 20; index += 1) {
      const response = await client.request({ url: `http://127.0.0.1:${counting.port}/item-${index}` });
      expect(Buffer.from(response.body).toString()).toBe(`done /item-${index}`);
    }
    expect(connections.length).toBeLessThanOrEqual(2);
    // A redirect's body is not read: its connection is dropped, the hop goes on another.
    const redirected = await client.request({ url: `http://127.0.0.1:${counting.port}/hop` });
    expect(Buffer.from(redirected.body).toString()).toBe('done /end');
    expect(counting.hits.slice(-2)).toEqual(['/hop', '/end']);
    expect(connections.length).toBeLessThanOrEqual(4);
    await close();
    counting.server.closeAllConnections();
    counting.server.close();
  });

  it('refuses schemes other than http and https', async () => {
    const { client } = createSafeFetch();
    expect((await errorOf(client.request({ url: 'file:///etc/passwd' }))).code).toBe('validation_failed');
  });

  it('refuses userinfo and port 0 by its own check, before undici, without repeating the credentials', async () => {
    const { client, fetch } = createSafeFetch({ allowlist: { cidrs: ['127.0.0.1/32'] } });
    const before = main.hits.length;
    for (const url of [`http://admin:hunter2-pw@127.0.0.1:${main.port}/creds`, `http://127.0.0.1:0/zero`]) {
      const error = await errorOf(client.request({ url }));
      expect(error.code).toBe('validation_failed');
      expect(error.message).not.toContain('hunter2-pw');
      const viaFetch = await errorOf(fetch(url));
      expect(viaFetch.code).toBe('validation_failed');
      expect(viaFetch.message).not.toContain('hunter2-pw');
    }
    expect(main.hits.length).toBe(before);
  });

  it('turns a 303 into a GET without the body, and never resends a body to another origin', async () => {
    const { client } = createSafeFetch({ allowlist: { cidrs: ['127.0.0.1/32', '127.0.0.2/32'] } });
    const seeOther = await client.request({
      url: `http://127.0.0.1:${main.port}/see-other`,
      method: 'POST',
      body: 'x=1',
    });
    expect(new TextDecoder().decode(seeOther.body)).toBe('GET /after-post');
    const before = other.hits.length;
    const error = await errorOf(
      client.request({
        url: `http://127.0.0.1:${main.port}/keep-post-cross-origin`,
        method: 'POST',
        body: 'secret=1',
      }),
    );
    expect(error.code).toBe('permission_denied');
    expect(other.hits.length).toBe(before);
  });

  it('denies a redirect to a metadata address even when the allowlist covers link-local', async () => {
    const { client } = createSafeFetch({ allowlist: { cidrs: ['127.0.0.1/32', '169.254.0.0/16'] } });
    const error = await errorOf(client.request({ url: `http://127.0.0.1:${main.port}/to-metadata` }));
    expect(error.code).toBe('permission_denied');
    expect(error.message).toContain('cloud metadata');
  });

  it('ignores HTTP_PROXY/HTTPS_PROXY and a global proxy dispatcher: the request goes direct, the proxy sees nothing', async () => {
    const proxy = await startServer('127.0.0.1', (_request, response) => response.end('proxied'));
    const saved = {
      http: process.env.HTTP_PROXY,
      https: process.env.HTTPS_PROXY,
      previous: getGlobalDispatcher(),
    };
    process.env.HTTP_PROXY = `http://127.0.0.1:${proxy.port}`;
    process.env.HTTPS_PROXY = `http://127.0.0.1:${proxy.port}`;
    setGlobalDispatcher(new EnvHttpProxyAgent());
    try {
      const guarded = createSafeFetch({ allowlist: { cidrs: ['127.0.0.2/32'] } });
      const response = await guarded.client.request({ url: `http://127.0.0.2:${other.port}/direct` });
      expect(new TextDecoder().decode(response.body)).toBe('other');
      expect(await (await guarded.fetch(`http://127.0.0.2:${other.port}/direct-fetch`)).text()).toBe('other');
      expect(proxy.hits).toEqual([]);
      await guarded.close();
    } finally {
      setGlobalDispatcher(saved.previous);
      if (saved.http === undefined) delete process.env.HTTP_PROXY;
      else process.env.HTTP_PROXY = saved.http;
      if (saved.https === undefined) delete process.env.HTTPS_PROXY;
      else process.env.HTTPS_PROXY = saved.https;
      proxy.server.close();
    }
  });

  it('offers a fetch-compatible function with the same guard (for SDK transports)', async () => {
    const guarded = createSafeFetch({
      allowlist: { hosts: ['allowed.example'] },
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    const response = await guarded.fetch(`http://allowed.example:${main.port}/via-fetch`);
    expect(await response.text()).toBe('ok /via-fetch');
    await expect(guarded.fetch(`http://127.0.0.1:${main.port}/x`)).rejects.toMatchObject({
      code: 'permission_denied',
    });
    await guarded.close();
  });
});
