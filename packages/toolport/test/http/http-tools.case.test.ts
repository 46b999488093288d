import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolportLogger } from '../../src/core/tool-types.ts';
import { buildServer, type ToolportApp } from '../../src/http/build-server.ts';
import { createMcpEndpointPlugin, mcpAllowedHosts } from '../../src/http/plugins/mcp-endpoint.ts';
import { createToolportServices, type ToolportServices } from '../../src/services/toolport-services.ts';
import { FakeProviderServer } from '../providers/fake-provider-server.ts';
import { scriptStep } from '../providers/scripted-streams.ts';
import { echoAsJson, startLoopbackServer, type LoopbackServer } from '../support/loopback-upstream.ts';
import { createTestRegistry } from '../support/server-test-tools.ts';
import { createTestDatabase, TEST_ENGINES, type TestDatabaseTarget } from '../support/test-databases.ts';
import { TEST_SECRET_KEY } from '../support/test-server.ts';

type Json = Record<string, unknown>;
interface User {
  id: string;
  token: string;
  headers: { authorization: string };
}

// Values no response, log line or result may ever contain (each also checked in its encoded forms).
const SECRET = 'sk-alice-upstream-9f8e7d';
const LITERAL_KEY = 'literal-header-key-5c4b3a';
const BASIC_PASSWORD = 'basic-password-1a2b3c';

function encodedForms(value: string): string[] {
  return [
    value,
    Buffer.from(value).toString('base64').replace(/=+$/, ''),
    Buffer.from(value).toString('base64url'),
    encodeURIComponent(value),
    JSON.stringify(value).slice(1, -1),
  ];
}

function expectNoSecrets(text: string): void {
  for (const secret of [SECRET, LITERAL_KEY, BASIC_PASSWORD]) {
    for (const form of encodedForms(secret)) expect(text).not.toContain(form);
  }
}

describe.each(TEST_ENGINES)('HTTP-1 HTTP tools through the real API on %s', (engine) => {
  let target: TestDatabaseTarget;
  let services: ToolportServices;
  let app: ToolportApp;
  let baseUrl: string;
  let upstream: LoopbackServer;
  let canary: LoopbackServer;
  let fake: FakeProviderServer;
  let alice: User;
  let bob: User;
  const logLines: string[] = [];

  const call = async (
    method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
    url: string,
    who: User,
    payload?: unknown,
  ) => {
    const response = await app.inject({
      method,
      url,
      headers: who.headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    const raw = response.body;
    expectNoSecrets(raw);
    return {
      status: response.statusCode,
      raw,
      body: (raw === '' || !String(response.headers['content-type']).includes('json')
        ? {}
        : response.json()) as Json,
    };
  };

  const createTool = async (who: User, name: string, config: Json, enabled = true) => {
    const created = await call('POST', '/api/tools/http-tool', who, { name, config, enabled });
    expect(created.status, created.raw).toBe(201);
    return created.body;
  };

  const execute = (who: User, name: string, args: Json) =>
    call('POST', `/api/tools/${name}/execute`, who, { args });

  beforeAll(async () => {
    upstream = await startLoopbackServer('127.0.0.2', (request, response) => {
      const path = request.url.split('?')[0]!;
      if (path === '/to-canary') {
        response.writeHead(302, { location: `${canary.origin}/stolen` }).end();
      } else if (path === '/to-canary-307') {
        response.writeHead(307, { location: `${canary.origin}/stolen-body` }).end();
      } else if (path === '/missing') {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"no such item"}');
      } else if (path === '/leak') {
        // A hostile or careless upstream echoing the credentials back in every encoding.
        const auth = String(request.headers.authorization ?? '');
        const key = String(request.headers['x-api-key'] ?? '');
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            auth,
            key,
            base64: Buffer.from(`prefix-${key}-suffix`).toString('base64'),
            base64url: Buffer.from(`xx${auth}`).toString('base64url'),
            percent: encodeURIComponent(`a b ${key}`),
            nested: JSON.stringify({ echoed: `"${auth}"` }),
          }),
        );
      } else if (path === '/text') {
        response.writeHead(200, { 'content-type': 'text/plain' }).end('plain words');
      } else if (path === '/big') {
        response.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(150_000));
      } else if (path === '/openapi.yaml') {
        response.writeHead(200, { 'content-type': 'application/yaml' });
        response.end(
          `openapi: 3.0.3\ninfo: {title: Remote, version: '1'}\npaths:\n  /ping:\n    get:\n      operationId: remotePing\n      responses: {'200': {description: ok}}\n`,
        );
      } else echoAsJson(request, response);
    });
    canary = await startLoopbackServer('127.0.0.1');
    fake = await FakeProviderServer.start();
    target = await createTestDatabase(engine);
    const logStream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString('utf8'));
        done();
      },
    });
    const toolLogger: ToolportLogger = {
      debug: (object, message) => logLines.push(JSON.stringify({ level: 'debug', ...object, message })),
      info: (object, message) => logLines.push(JSON.stringify({ level: 'info', ...object, message })),
      warn: (object, message) => logLines.push(JSON.stringify({ level: 'warn', ...object, message })),
      error: (object, message) => logLines.push(JSON.stringify({ level: 'error', ...object, message })),
    };
    services = createToolportServices({
      database: await target.open(),
      registry: createTestRegistry(),
      secretKey: TEST_SECRET_KEY,
      logger: toolLogger,
      outboundAllowlist: { cidrs: ['127.0.0.2/32'] },
    });
    app = await buildServer({
      services,
      logger: { level: 'debug', stream: logStream },
      plugins: [createMcpEndpointPlugin({ allowedHosts: mcpAllowedHosts('127.0.0.1') })],
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const admin = await services.tokens.createUser(`alice-${engine}-${process.pid}`, { isAdmin: true });
    alice = { id: admin.user.id, token: admin.token, headers: { authorization: `Bearer ${admin.token}` } };
    const plain = await services.tokens.createUser(`bob-${engine}-${process.pid}`);
    bob = { id: plain.user.id, token: plain.token, headers: { authorization: `Bearer ${plain.token}` } };
    expect((await call('PUT', '/api/secrets/UPSTREAM_TOKEN', alice, { value: SECRET })).status).toBe(200);
    expect((await call('PUT', '/api/secrets/BASIC_PW', alice, { value: BASIC_PASSWORD })).status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await services?.mcp.close();
    await services?.httpTools.close();
    await services?.flush();
    await target?.dispose();
    await upstream?.close();
    await canary?.close();
    await fake?.close();
    // The canary on 127.0.0.1 must never have been reached by anything a tool, a redirect or an import did.
    expect(canary?.received ?? []).toEqual([]);
    expectNoSecrets(logLines.join('\n'));
  });

  const weatherConfig = (): Json => ({
    url: `${upstream.origin}/items/{{id}}?q={{query}}&lang=en&page={{page}}`,
    method: 'POST',
    description: 'Looks an item up.',
    parameters: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        query: { type: 'string' },
        page: { type: 'integer' },
        count: { type: 'integer' },
        note: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['id'],
    },
    headers: { 'X-API-Key': LITERAL_KEY, 'X-Trace': '{{note}}', Accept: 'application/json' },
    auth: { type: 'bearer', value: '{{UPSTREAM_TOKEN}}' },
    body: { count: '{{count}}', tags: '{{tags}}', label: 'note: {{note}}', fixed: true },
  });

  it('creates a tool: literal credentials write-only (***), secret references shown as their template, sealed at rest', async () => {
    const created = await createTool(alice, 'lookup_item', weatherConfig());
    expect(created).toMatchObject({
      name: 'lookup_item',
      type: 'http',
      enabled: true,
      config: {
        headers: { 'X-API-Key': '***', 'X-Trace': '{{note}}', Accept: 'application/json' },
        auth: { type: 'bearer', value: '{{UPSTREAM_TOKEN}}' },
      },
    });
    const listed = await call('GET', '/api/tools/http-tool', alice);
    expect((listed.body.tools as Json[]).map((tool) => tool.name)).toContain('lookup_item');
    const row = await services.repositories.customTools.get(alice.id, String(created.id));
    expect(JSON.stringify(row?.config)).not.toContain(LITERAL_KEY);
  });

  it('runs as a tool of its owner: path segment and query encoded, JSON body typed, secrets resolved in headers only', async () => {
    const since = upstream.received.length;
    const result = await execute(alice, 'lookup_item', {
      id: '../admin?x=1#frag',
      query: 'a&b=c {{UPSTREAM_TOKEN}}',
      count: 3,
      tags: ['x', 'y'],
      note: 'quote " and {{UPSTREAM_TOKEN}}',
    });
    expect(result.status, result.raw).toBe(200);
    const sent = upstream.received.at(-1)!;
    expect(upstream.received.length).toBe(since + 1);
    // One encoded segment: `..`, `/`, `?`, `#` cannot escape it; the query value is one encoded value; an absent
    // optional `page` drops its pair.
    expect(sent.url).toBe(
      '/items/..%2Fadmin%3Fx%3D1%23frag?q=a%26b%3Dc%20%7B%7BUPSTREAM_TOKEN%7D%7D&lang=en',
    );
    expect(sent.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(sent.headers['x-api-key']).toBe(LITERAL_KEY);
    // A model value that looks like a secret reference is sent literally, never expanded.
    expect(sent.headers['x-trace']).toBe('quote " and {{UPSTREAM_TOKEN}}');
    expect(JSON.parse(sent.body)).toEqual({
      count: 3,
      tags: ['x', 'y'],
      label: 'note: quote " and {{UPSTREAM_TOKEN}}',
      fixed: true,
    });
    expect(sent.headers['content-type']).toBe('application/json');
    const toolResult = result.body.result as Json;
    expect(toolResult).toMatchObject({
      status: 200,
      headers: { 'content-type': 'application/json', 'x-ratelimit-remaining': '41' },
    });
    expect(toolResult.headers).not.toHaveProperty('x-internal');
    expect((toolResult.body as Json).method).toBe('POST');
    // The upstream echoed the Authorization header: the result carries it redacted.
    expect(JSON.stringify(toolResult)).toContain('Bearer ***');
  });

  it('refuses a path value that would be a dot segment', async () => {
    const refused = await execute(alice, 'lookup_item', { id: '..' });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ code: 'validation_failed' });
  });

  it('redacts every echoed form of the secrets used (raw, Base64, base64url, percent, JSON-escaped, Basic)', async () => {
    await createTool(alice, 'leaky', {
      url: `${upstream.origin}/leak`,
      method: 'GET',
      parameters: { type: 'object', properties: {} },
      headers: { 'X-API-Key': LITERAL_KEY },
      auth: { type: 'basic', value: 'alice:{{BASIC_PW}}' },
    });
    const result = await execute(alice, 'leaky', {});
    expect(result.status, result.raw).toBe(200);
    expect(upstream.received.at(-1)!.headers.authorization).toBe(
      `Basic ${Buffer.from(`alice:${BASIC_PASSWORD}`).toString('base64')}`,
    );
    const body = (result.body.result as Json).body as Json;
    expect(body.key).toBe('***');
    expect(body.auth).toBe('Basic ***');
    // `expectNoSecrets` in `call` already checked the raw response for every form.
  });

  it('non-2xx is a tool error with details.status and a short excerpt; the result cap sets truncated', async () => {
    await createTool(alice, 'missing_item', {
      url: `${upstream.origin}/missing`,
      method: 'GET',
      parameters: { type: 'object' },
    });
    const failed = await execute(alice, 'missing_item', {});
    expect(failed.body.error).toMatchObject({ code: 'execution_failed', status: 404 });
    expect(String((failed.body.error as Json).message)).toContain('no such item');

    await createTool(alice, 'big_text', {
      url: `${upstream.origin}/big`,
      method: 'GET',
      parameters: { type: 'object' },
    });
    const big = await execute(alice, 'big_text', {});
    const result = big.body.result as Json;
    expect(result.truncated).toBe(true);
    expect(String(result.body).length).toBe(100_000);
  });

  it('responseMapping returns {[as]: value}; an unmatched path is a clear error', async () => {
    await createTool(alice, 'mapped', {
      url: `${upstream.origin}/echo`,
      method: 'GET',
      parameters: { type: 'object' },
      responseMapping: { path: '$.method', as: 'verb' },
    });
    expect((await execute(alice, 'mapped', {})).body.result).toEqual({ verb: 'GET' });
    const tool = (await call('GET', '/api/tools/http-tool', alice)).body.tools as Json[];
    const id = String(tool.find((entry) => entry.name === 'mapped')!.id);
    expect(
      (
        await call('PATCH', `/api/tools/http-tool/${id}`, alice, {
          config: { responseMapping: { path: '$.nothing.here', as: 'x' } },
        })
      ).status,
    ).toBe(200);
    const unmatched = await execute(alice, 'mapped', {});
    expect(unmatched.body.error).toMatchObject({ code: 'execution_failed' });
    expect(String((unmatched.body.error as Json).message)).toContain('matched nothing');
    const evalPath = await call('PATCH', `/api/tools/http-tool/${id}`, alice, {
      config: { responseMapping: { path: '$[?(@.constructor.constructor("return process")())]', as: 'x' } },
    });
    expect(evalPath.status).toBe(422);
    expect(evalPath.body.error).toMatchObject({ code: 'validation_failed', field: 'responseMapping.path' });
  });

  it('NET-1: a redirect to a blocked address, a 307 with a body and a URL on the canary never reach the canary', async () => {
    await createTool(alice, 'redirects', {
      url: `${upstream.origin}/to-canary`,
      method: 'GET',
      parameters: { type: 'object' },
    });
    const redirected = await execute(alice, 'redirects', {});
    expect(redirected.status).toBe(403);
    expect(redirected.body.error).toMatchObject({ code: 'permission_denied' });

    await createTool(alice, 'redirects_body', {
      url: `${upstream.origin}/to-canary-307`,
      method: 'POST',
      parameters: { type: 'object' },
      body: { a: 1 },
    });
    expect((await execute(alice, 'redirects_body', {})).body.error).toMatchObject({
      code: 'permission_denied',
    });

    await createTool(alice, 'direct_canary', {
      url: `${canary.origin}/direct`,
      method: 'GET',
      parameters: { type: 'object' },
    });
    expect((await execute(alice, 'direct_canary', {})).body.error).toMatchObject({
      code: 'permission_denied',
    });
    expect(canary.received).toEqual([]);
  });

  it.each([
    [
      'a templated host',
      { url: 'http://{{host}}/x', parameters: { type: 'object', properties: { host: { type: 'string' } } } },
      'url',
    ],
    [
      'a templated port',
      {
        url: `http://127.0.0.2:{{port}}/x`,
        parameters: { type: 'object', properties: { port: { type: 'string' } } },
      },
      'url',
    ],
    ['a secret reference in the URL', { url: `${'http://127.0.0.2:1'}/x?k={{UPSTREAM_TOKEN}}` }, 'url'],
    ['userinfo in the URL', { url: 'http://user:pw@127.0.0.2:1/x' }, 'url'],
    ['port 0', { url: 'http://127.0.0.2:0/x' }, 'url'],
    ['a numeric url', { url: 42 }, 'url'],
    ['method TRACE', { method: 'TRACE' }, 'method'],
    ['timeout -5', { timeout: -5 }, 'timeout'],
    ['a header with CR/LF', { headers: { 'X-Evil': 'a\r\nHost: evil' } }, 'headers.X-Evil'],
    ['a JSON body concatenating raw JSON', { method: 'POST', body: '{"n": {{count}}}' }, 'body'],
    ['a secret in the body', { method: 'POST', body: { k: '{{UPSTREAM_TOKEN}}' } }, 'body'],
    ['missing parameters', { parameters: undefined }, 'parameters'],
    [
      'an invalid parameters schema',
      { parameters: { type: 'object', properties: { a: { type: 'nonsense' } } } },
      'parameters',
    ],
    ['*** with nothing stored', { auth: { type: 'bearer', value: '***' } }, 'auth.value'],
    ['an unknown field', { surprise: true }, 'surprise'],
  ])('refuses %s at create time with a 422 naming the field', async (_label, change, field) => {
    const config = {
      url: `${upstream.origin}/x`,
      method: 'GET',
      parameters: { type: 'object' },
      ...change,
    } as Json;
    if ('parameters' in change && change.parameters === undefined) delete config.parameters;
    const refused = await call('POST', '/api/tools/http-tool', alice, { name: 'refused_tool', config });
    expect(refused.status, refused.raw).toBe(422);
    expect(refused.body.error).toMatchObject({ code: 'validation_failed', field });
  });

  it('refuses a placeholder that names both an argument and a secret, and a built-in name (409)', async () => {
    const both = await call('POST', '/api/tools/http-tool', alice, {
      name: 'ambiguous',
      config: {
        url: `${upstream.origin}/x`,
        method: 'GET',
        parameters: { type: 'object', properties: { UPSTREAM_TOKEN: { type: 'string' } } },
        headers: { 'X-Token': '{{UPSTREAM_TOKEN}}' },
      },
    });
    expect(both.status).toBe(422);
    expect(String((both.body.error as Json).message)).toContain('UPSTREAM_TOKEN');
    const builtin = await call('POST', '/api/tools/http-tool', alice, {
      name: 'always_on',
      config: { url: `${upstream.origin}/x`, method: 'GET', parameters: { type: 'object' } },
    });
    expect(builtin.status).toBe(409);
  });

  it('PATCH merges by spread and validates like a create; *** keeps the stored secret, another value replaces it', async () => {
    const created = await createTool(alice, 'patchable', {
      url: `${upstream.origin}/echo`,
      method: 'GET',
      parameters: { type: 'object' },
      auth: { type: 'api-key', value: LITERAL_KEY, headerName: 'X-API-Key' },
    });
    const url = `/api/tools/http-tool/${String(created.id)}`;
    for (const [config, field] of [
      [{ method: 'TRACE' }, 'method'],
      [{ url: 42 }, 'url'],
      [{ timeout: -5 }, 'timeout'],
    ] as const) {
      const refused = await call('PATCH', url, alice, { config });
      expect(refused.status, refused.raw).toBe(422);
      expect(refused.body.error).toMatchObject({ code: 'validation_failed', field });
    }
    const kept = await call('PATCH', url, alice, {
      config: { timeout: 9000, auth: { type: 'api-key', value: '***', headerName: 'X-API-Key' } },
    });
    expect(kept.body.config).toMatchObject({
      timeout: 9000,
      url: `${upstream.origin}/echo`,
      auth: { value: '***' },
    });
    await execute(alice, 'patchable', {});
    expect(upstream.received.at(-1)!.headers['x-api-key']).toBe(LITERAL_KEY);
    expect((await call('PATCH', url, alice, { name: 'lookup_item' })).status).toBe(409);
    expect((await call('PATCH', url, alice, { name: 'always_on' })).status).toBe(409);
    await call('PATCH', url, alice, {
      config: { auth: { type: 'api-key', value: 'replacement-key-77', headerName: 'X-API-Key' } },
    });
    await execute(alice, 'patchable', {});
    expect(upstream.received.at(-1)!.headers['x-api-key']).toBe('replacement-key-77');
  });

  it('the dry run shows the exact request with credentials masked, and with send: true the result', async () => {
    const tools = (await call('GET', '/api/tools/http-tool', alice)).body.tools as Json[];
    const id = String(tools.find((tool) => tool.name === 'lookup_item')!.id);
    const since = upstream.received.length;
    const dry = await call('POST', `/api/tools/http-tool/${id}/test`, alice, {
      args: { id: '42', count: 1 },
    });
    expect(dry.status, dry.raw).toBe(200);
    expect(dry.body.request).toEqual({
      method: 'POST',
      url: `${upstream.origin}/items/42?lang=en`,
      headers: {
        'X-API-Key': '***',
        Accept: 'application/json',
        authorization: 'Bearer ***',
        'content-type': 'application/json',
      },
      body: '{"count":1,"label":"note: ","fixed":true}',
    });
    expect(upstream.received.length).toBe(since);
    const sent = await call('POST', `/api/tools/http-tool/${id}/test`, alice, {
      args: { id: '42' },
      send: true,
    });
    expect(sent.body.response).toMatchObject({ ok: true, result: { status: 200 } });
    expect(upstream.received.length).toBe(since + 1);
  });

  it('user B cannot see, run, test, patch or delete A’s tool, and A’s tools are not B’s', async () => {
    const tools = (await call('GET', '/api/tools/http-tool', alice)).body.tools as Json[];
    const id = String(tools.find((tool) => tool.name === 'lookup_item')!.id);
    expect((await call('GET', '/api/tools/http-tool', bob)).body.tools).toEqual([]);
    expect((await call('PATCH', `/api/tools/http-tool/${id}`, bob, { enabled: false })).status).toBe(404);
    expect((await call('POST', `/api/tools/http-tool/${id}/test`, bob, { args: { id: '1' } })).status).toBe(
      404,
    );
    expect((await call('DELETE', `/api/tools/http-tool/${id}`, bob)).status).toBe(404);
    expect((await execute(bob, 'lookup_item', { id: '1' })).status).toBe(404);
    const bobsSettings = (await call('GET', '/api/settings/tools', bob)).body.tools as Json[];
    expect(bobsSettings.map((tool) => tool.name)).not.toContain('lookup_item');
    // Bob's own tool with the same name is his, and a reference to "UPSTREAM_TOKEN" is his (unset) secret.
    await createTool(bob, 'lookup_item', {
      url: `${upstream.origin}/echo`,
      method: 'GET',
      parameters: { type: 'object' },
      auth: { type: 'bearer', value: '{{UPSTREAM_TOKEN}}' },
    });
    const bobRun = await execute(bob, 'lookup_item', {});
    expect(bobRun.body.error).toMatchObject({ code: 'not_found', secret: 'UPSTREAM_TOKEN' });
  });

  it('appears in the settings API (source http), the capability inspector, and disappears when disabled', async () => {
    const settings = (await call('GET', '/api/settings/tools', alice)).body.tools as Json[];
    expect(settings.find((tool) => tool.name === 'lookup_item')).toMatchObject({ source: 'http' });
    const chat = await call('POST', '/api/chats', alice, {});
    const inspected = await call(
      'GET',
      `/api/chats/${String(chat.body.id)}/capabilities?provider=openai-chat`,
      alice,
    );
    const entry = (inspected.body.tools as Json[]).find((tool) => tool.name === 'lookup_item');
    expect(entry).toMatchObject({ source: 'http' });
    const created = await createTool(
      alice,
      'switch_me',
      { url: `${upstream.origin}/echo`, method: 'GET', parameters: { type: 'object' } },
      false,
    );
    expect((await execute(alice, 'switch_me', {})).status).toBe(404);
    await call('PATCH', `/api/tools/http-tool/${String(created.id)}`, alice, { enabled: true });
    expect((await execute(alice, 'switch_me', {})).status).toBe(200);
  });

  it('a model calls it in a chat turn; the secret stays out of the stream', async () => {
    expect(
      (await call('PUT', '/api/secrets/KEY_fake', alice, { value: 'sk-fake-provider-key' })).status,
    ).toBe(200);
    const provider = await call('POST', '/api/providers', alice, {
      name: 'fake',
      provider: 'openai-chat',
      baseUrl: fake.baseURLFor('openai-chat'),
      defaultModel: 'test-model',
      apiKeySecret: 'KEY_fake',
    });
    expect(provider.status, provider.raw).toBe(201);
    const chat = await call('POST', '/api/chats', alice, {});
    fake.enqueue(
      'openai-chat',
      scriptStep('openai-chat', { toolCalls: [{ id: 'call_http', name: 'leaky', arguments: '{}' }] }),
    );
    fake.enqueue('openai-chat', scriptStep('openai-chat', { text: 'Done.' }));
    const turn = await call('POST', `/api/chats/${String(chat.body.id)}/turns`, alice, {
      message: 'Call it',
      provider: 'fake',
    });
    expect(turn.status).toBe(200);
    expect(turn.raw).toContain('"type":"tool_result"');
    expect(turn.raw).toContain('Basic ***');
    // What went back to the model (the provider's next request) is redacted too.
    expectNoSecrets(JSON.stringify(fake.requests.at(-1)));
  });

  it('is served on /mcp to its owner', async () => {
    const client = new Client({ name: 'http-tools-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${alice.token}` } },
      }),
    );
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('lookup_item');
      const result = await client.callTool({ name: 'leaky', arguments: {} });
      expect(result.isError).toBeFalsy();
      expectNoSecrets(JSON.stringify(result));
    } finally {
      await client.close();
    }
  });

  it('imports an OpenAPI document: one tool per operation, $refs resolved, security mapped, the rest skipped with reasons', async () => {
    const document = {
      openapi: '3.0.3',
      info: { title: 'Pets', version: '1' },
      servers: [{ url: `${upstream.origin}/v1` }],
      components: {
        securitySchemes: {
          petsAuth: { type: 'http', scheme: 'bearer' },
          cookieAuth: { type: 'apiKey', in: 'cookie', name: 'sid' },
        },
        schemas: {
          Pet: {
            type: 'object',
            properties: { name: { type: 'string' }, age: { type: 'integer' } },
            required: ['name'],
          },
        },
        parameters: { PetId: { name: 'petId', in: 'path', required: true, schema: { type: 'string' } } },
      },
      security: [{ petsAuth: [] }],
      paths: {
        '/pets/{petId}': {
          parameters: [{ $ref: '#/components/parameters/PetId' }],
          get: {
            operationId: 'getPet',
            summary: 'One pet',
            parameters: [{ name: 'verbose', in: 'query', schema: { type: 'boolean' } }],
          },
          head: { operationId: 'headPet' },
          delete: { parameters: [{ name: 'sid', in: 'cookie', schema: { type: 'string' } }] },
        },
        '/pets': {
          post: {
            operationId: 'lookup_item',
            requestBody: {
              required: true,
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } },
            },
          },
          put: { security: [{ cookieAuth: [] }] },
          patch: {
            requestBody: {
              content: { 'application/json': { schema: { $ref: `${canary.origin}/external.json` } } },
            },
          },
        },
      },
    };
    const planned = await call('POST', '/api/tools/http-tool/import', alice, { document, dryRun: true });
    expect(planned.status, planned.raw).toBe(200);
    const plannedTools = planned.body.tools as Json[];
    expect(plannedTools.map((tool) => tool.name).sort()).toEqual(['getPet', 'lookup_item_2']);
    expect(plannedTools.find((tool) => tool.name === 'getPet')).toMatchObject({
      config: {
        url: `${upstream.origin}/v1/pets/{{petId}}?verbose={{verbose}}`,
        method: 'GET',
        auth: { type: 'bearer', value: '{{PETSAUTH}}' },
        parameters: {
          properties: { petId: { type: 'string' }, verbose: { type: 'boolean' } },
          required: ['petId'],
        },
      },
    });
    expect(plannedTools.find((tool) => tool.name === 'lookup_item_2')).toMatchObject({
      config: {
        method: 'POST',
        body: { name: '{{name}}', age: '{{age}}' },
        parameters: { required: ['name'] },
      },
    });
    const skipped = planned.body.skipped as Array<{ operation: string; reason: string }>;
    expect(skipped.map((entry) => entry.operation).sort()).toEqual([
      'DELETE /pets/{petId}',
      'HEAD /pets/{petId}',
      'PATCH /pets',
      'PUT /pets',
    ]);
    for (const entry of skipped) expect(entry.reason.length).toBeGreaterThan(5);
    expect((await call('GET', '/api/tools/http-tool', alice)).raw).not.toContain('getPet');

    const imported = await call('POST', '/api/tools/http-tool/import', alice, {
      document: JSON.stringify(document),
    });
    expect(imported.status, imported.raw).toBe(201);
    expect((imported.body.tools as Json[]).every((tool) => typeof tool.id === 'string')).toBe(true);
    expect(
      ((await call('GET', '/api/tools/http-tool', alice)).body.tools as Json[]).map((tool) => tool.name),
    ).toContain('getPet');

    const fromUrl = await call('POST', '/api/tools/http-tool/import', alice, {
      url: `${upstream.origin}/openapi.yaml`,
      dryRun: true,
    });
    expect(fromUrl.status, fromUrl.raw).toBe(200);
    expect(fromUrl.body.tools).toMatchObject([
      { name: 'remotePing', config: { url: `${upstream.origin}/ping` } },
    ]);
    const blocked = await call('POST', '/api/tools/http-tool/import', alice, {
      url: `${canary.origin}/openapi.yaml`,
    });
    expect(blocked.status).toBe(403);
    expect(canary.received).toEqual([]);
  });
});
