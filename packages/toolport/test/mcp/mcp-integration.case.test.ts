import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpEndpointPlugin, mcpAllowedHosts } from '../../src/http/plugins/mcp-endpoint.ts';
import { createTestDatabase, TEST_ENGINES, type TestDatabaseTarget } from '../support/test-databases.ts';
import { createTestUser, startTestServer, type TestServer } from '../support/test-server.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/fixture-server.mjs', import.meta.url));

type Json = Record<string, unknown> & { error?: { code: string; message: string } };
type User = Awaited<ReturnType<typeof createTestUser>>;

interface CapabilityTool {
  name: string;
  source: string;
  origin: string;
  mcpServer?: string;
  strict: boolean;
  nonStrictReason?: string;
  wire: Record<string, unknown>;
}

describe.each(TEST_ENGINES)('MCP-1/MCP-2/MCP-3 wired into the server on %s', (engine) => {
  let target: TestDatabaseTarget;
  let server: TestServer;
  let baseUrl: string;
  let directory: string;
  let alice: User;
  let bob: User;

  const call = async (method: string, url: string, user: User | undefined, body?: unknown) => {
    const response = await server.app.inject({
      method: method as 'GET',
      url,
      headers: user === undefined ? {} : user.headers,
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });
    return {
      status: response.statusCode,
      body: (response.body === '' ? {} : response.json()) as Json,
      raw: response.body,
    };
  };

  const fixtureServer = (name: string, options: { enabled?: boolean; mode?: string } = {}) => ({
    name,
    transport: 'stdio',
    enabled: options.enabled ?? true,
    config: {
      command: process.execPath,
      args: [FIXTURE],
      env: {
        FIXTURE_MARKER_FILE: join(directory, `${name}.log`),
        ...(options.mode === undefined ? {} : { FIXTURE_MODE: options.mode }),
      },
    },
  });
  const marker = (name: string): string[] => {
    const file = join(directory, `${name}.log`);
    return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
  };
  const starts = (name: string) => marker(name).filter((line) => line.startsWith('start')).length;
  const listings = (name: string) => marker(name).filter((line) => line === 'list').length;

  const newChat = async (user: User) =>
    (await call('POST', '/api/chats', user, { title: 'c' })).body.id as string;
  const capabilities = async (user: User, chatId: string, query = '') =>
    call('GET', `/api/chats/${chatId}/capabilities${query}`, user);

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'toolport-mcp-integration-'));
    target = await createTestDatabase(engine);
    server = await startTestServer(await target.open(), {
      // The both-ways test reaches this server's own /mcp on 127.0.0.1; every other private address stays blocked.
      mcp: { outboundAllowlist: { cidrs: ['127.0.0.1/32'] }, connectTimeoutMs: 15_000 },
      plugins: [createMcpEndpointPlugin({ allowedHosts: mcpAllowedHosts('127.0.0.1') })],
    });
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
    alice = await createTestUser(server.services, 'alice');
    bob = await createTestUser(server.services, 'bob');
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await target?.dispose();
    rmSync(directory, { recursive: true, force: true });
  });

  it('validates configs, never returns env or header values, keeps *** on update, and shows a status', async () => {
    const invalid = await call('POST', '/api/mcp-servers', alice, {
      name: 'broken',
      transport: 'stdio',
      config: { args: ['x'] },
    });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error?.message).toContain('`command`');
    const badUrl = await call('POST', '/api/mcp-servers', alice, {
      name: 'broken',
      transport: 'http',
      config: { url: 'ftp://example.test/mcp' },
    });
    expect(badUrl.status).toBe(422);

    const created = await call('POST', '/api/mcp-servers', alice, {
      name: 'remote',
      transport: 'http',
      enabled: false,
      config: { url: 'https://mcp.example.test/mcp', headers: { 'X-Api-Key': 'header-secret-9' }, extra: 1 },
    });
    expect(created.status).toBe(201);
    expect(created.raw).not.toContain('header-secret-9');
    expect(created.body).toMatchObject({
      enabled: false,
      config: { url: 'https://mcp.example.test/mcp', protocol: 'auto', headers: { 'X-Api-Key': '***' } },
      status: { state: 'disabled', connected: false, connectCount: 0 },
    });
    expect(created.body.config).not.toHaveProperty('extra');
    const id = created.body.id as string;

    const patched = await call('PATCH', `/api/mcp-servers/${id}`, alice, {
      config: { headers: { 'X-Api-Key': '***', 'X-Other': 'two' }, callTimeoutSeconds: 5 },
    });
    expect(patched.status).toBe(200);
    const row = await server.services.repositories.mcpServers.get(alice.id, id);
    expect(row?.config).toMatchObject({
      headers: { 'X-Api-Key': 'header-secret-9', 'X-Other': 'two' },
      callTimeoutSeconds: 5,
    });
    expect(
      (await call('PATCH', `/api/mcp-servers/${id}`, alice, { config: { callTimeoutSeconds: 0 } })).status,
    ).toBe(422);

    const status = await call('GET', `/api/mcp-servers/${id}/status`, alice);
    expect(status.body).toMatchObject({ serverId: id, name: 'remote', status: { state: 'disabled' } });
    expect((await call('GET', `/api/mcp-servers/${id}/status`, bob)).status).toBe(404);
    const list = await call('GET', '/api/mcp-servers', alice);
    expect(list.raw).not.toContain('header-secret-9');
    expect(list.raw).not.toContain('two');
    expect((await call('DELETE', `/api/mcp-servers/${id}`, alice)).status).toBe(204);
  });

  it('never spawns a disabled server, not for the inspector, a runtime build, or the settings list', async () => {
    const user = await createTestUser(server.services, 'disabled');
    const created = await call('POST', '/api/mcp-servers', user, fixtureServer('off', { enabled: false }));
    const chatId = await newChat(user);
    const inspected = await capabilities(user, chatId);
    expect(inspected.status).toBe(200);
    expect((inspected.body.tools as CapabilityTool[]).some((tool) => tool.source === 'mcp')).toBe(false);
    await server.services.toolRuntime.getEnabledToolRuntime(user);
    expect((await call('GET', '/api/settings/tools', user)).status).toBe(200);
    expect(existsSync(join(directory, 'off.log'))).toBe(false);
    expect(
      (await call('GET', `/api/mcp-servers/${created.body.id as string}/status`, user)).body,
    ).toMatchObject({
      status: { state: 'disabled', connectCount: 0 },
    });
  });

  it('the inspector starts an enabled server once; the next runtime build and call reuse its connection and listing', async () => {
    const user = await createTestUser(server.services, 'inspect');
    const created = await call('POST', '/api/mcp-servers', user, fixtureServer('shared'));
    const serverId = created.body.id as string;
    expect(starts('shared')).toBe(0); // creating it does not start it
    const chatId = await newChat(user);

    const inspected = await capabilities(user, chatId, '?provider=openai&model=gpt-test');
    expect(inspected.status).toBe(200);
    expect(inspected.body).toMatchObject({ chatId, provider: 'openai', model: 'gpt-test', agentId: null });
    const tools = inspected.body.tools as CapabilityTool[];
    const echo = tools.find((tool) => tool.name === 'shared_echo');
    expect(echo).toMatchObject({ source: 'mcp', origin: 'mcp:shared', mcpServer: 'shared', strict: true });
    expect(echo?.wire).toMatchObject({ type: 'function', name: 'shared_echo', strict: true });
    expect(tools.find((tool) => tool.name === 'configurable')).toMatchObject({ source: 'custom' });
    expect(starts('shared')).toBe(1);
    expect(listings('shared')).toBe(1);

    // What a turn does: build the runtime, call a tool.
    const chat = await server.services.chats.get(user.id, chatId);
    const runtime = await server.services.toolRuntime.getEnabledToolRuntime(user, chat);
    const outcome = await runtime.execute({ toolName: 'shared_echo', arguments: { text: 'warm' } });
    expect(outcome).toMatchObject({ ok: true, result: 'warm' });
    expect(await capabilities(user, chatId, '?provider=anthropic')).toMatchObject({ status: 200 });
    expect(starts('shared')).toBe(1);
    expect(listings('shared')).toBe(1);

    const status = await call('GET', `/api/mcp-servers/${serverId}/status`, user);
    expect(status.body.status).toMatchObject({
      state: 'connected',
      connected: true,
      transport: 'stdio',
      toolCount: 7,
      connectCount: 1,
      listCount: 1,
    });
    expect(typeof (status.body.status as Json).lastListedAt).toBe('string');
    expect(inspected.body.mcpServers).toEqual([
      expect.objectContaining({ serverId, name: 'shared', enabled: true }),
    ]);

    // Another user's chat reads as missing, and starts nothing of theirs.
    expect((await capabilities(bob, chatId)).status).toBe(404);
    expect((await capabilities(user, chatId, '?provider=nope')).status).toBe(400);
    expect((await capabilities(user, chatId, '?agent=missing')).status).toBe(404);

    // Disabling ends the process right away; the tools are gone from the next inspection.
    await call('PATCH', `/api/mcp-servers/${serverId}`, user, { enabled: false });
    const after = await capabilities(user, chatId);
    expect((after.body.tools as CapabilityTool[]).some((tool) => tool.source === 'mcp')).toBe(false);
    expect(starts('shared')).toBe(1);
  });

  it('shows a foreign schema that cannot be strict as strict:false with its reason, without dropping it', async () => {
    const user = await createTestUser(server.services, 'loose');
    await call('POST', '/api/mcp-servers', user, fixtureServer('foreign', { mode: 'loose' }));
    const inspected = await capabilities(user, await newChat(user));
    const loose = (inspected.body.tools as CapabilityTool[]).find((tool) => tool.name === 'foreign_loose');
    expect(loose).toMatchObject({ source: 'mcp', strict: false });
    expect(loose?.nonStrictReason).toMatch(/filter.*additionalProperties/);
    expect(loose?.wire).toMatchObject({
      name: 'foreign_loose',
      strict: false,
      parameters: { properties: { filter: { type: 'object' } } },
    });
  });

  it('an MCP tool can be disabled on its own in the tool settings; the inspector and runtime drop just that one', async () => {
    const user = await createTestUser(server.services, 'pertool');
    await call('POST', '/api/mcp-servers', user, fixtureServer('pt'));
    const settings = await call('GET', '/api/settings/tools', user);
    expect(
      (settings.body.tools as { name: string; source: string }[]).find((tool) => tool.name === 'pt_pid'),
    ).toMatchObject({ source: 'mcp' });
    expect((await call('PUT', '/api/settings/tools/pt_pid', user, { enabled: false })).status).toBe(200);
    const names = ((await capabilities(user, await newChat(user))).body.tools as CapabilityTool[]).map(
      (tool) => tool.name,
    );
    expect(names).toContain('pt_echo');
    expect(names).not.toContain('pt_pid');
    expect(starts('pt')).toBe(1);
  });

  it('refuses a remote server on a private address that is not allowlisted, reported per server', async () => {
    const user = await createTestUser(server.services, 'private');
    const created = await call('POST', '/api/mcp-servers', user, {
      name: 'internal',
      transport: 'http',
      // Loopback but outside the test's 127.0.0.1/32 allowlist: refused before any connection is made.
      config: { url: 'http://127.0.0.2:9/mcp', protocol: 'streamable-http' },
    });
    const inspected = await capabilities(user, await newChat(user));
    expect(inspected.status).toBe(200);
    expect((inspected.body.tools as CapabilityTool[]).some((tool) => tool.source === 'mcp')).toBe(false);
    const status = await call('GET', `/api/mcp-servers/${created.body.id as string}/status`, user);
    expect(status.body.status).toMatchObject({ state: 'failed', connected: false });
    expect((status.body.status as { lastError: { message: string } }).lastError.message).toMatch(
      /Refused to connect to 127\.0\.0\.2.*loopback/,
    );
  });

  it('/mcp: 401 without a token, rebinding refused, the user’s enabled tools listed and callable, MCP both ways', async () => {
    const unauthenticated = await fetch(`${baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('www-authenticate')).toContain('Bearer');
    const rebinding = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        `${baseUrl}/mcp`,
        {
          method: 'POST',
          headers: { host: 'evil.example:80', ...alice.headers, 'content-type': 'application/json' },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.on('error', reject);
      request.end('{}');
    });
    expect(rebinding).toBe(403);

    // Alice disables one tool and adds a stdio MCP server.
    expect((await call('PUT', '/api/settings/tools/configurable', alice, { enabled: false })).status).toBe(
      200,
    );
    await call('POST', '/api/mcp-servers', alice, fixtureServer('alicefix'));

    const connect = async (token: string | undefined) => {
      const client = new Client({ name: 'integration-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
          ...(token === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
        }),
      );
      return client;
    };
    await expect(connect(undefined)).rejects.toThrow();

    const client = await connect(alice.token);
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('always_on');
      expect(names).toContain('alicefix_echo');
      expect(names).not.toContain('configurable');
      expect(names).not.toContain('off_by_default');
      const echoed = await client.callTool({
        name: 'alicefix_echo',
        arguments: { text: 'through toolport' },
      });
      expect(echoed.content).toEqual([{ type: 'text', text: 'through toolport' }]);
      const failed = await client.callTool({ name: 'alicefix_fail', arguments: {} });
      expect(failed.isError).toBe(true);
    } finally {
      await client.close();
    }

    // Bob points a remote MCP server at toolport's own /mcp with Alice's token from his secrets: MCP both ways.
    expect((await call('PUT', '/api/secrets/ALICE_TOKEN', bob, { value: alice.token })).status).toBe(200);
    const remote = await call('POST', '/api/mcp-servers', bob, {
      name: 'self',
      transport: 'http',
      config: { url: `${baseUrl}/mcp`, headers: { Authorization: 'Bearer {{ALICE_TOKEN}}' } },
    });
    expect(remote.status).toBe(201);
    expect(remote.raw).not.toContain(alice.token);
    const runtime = await server.services.toolRuntime.getEnabledToolRuntime(bob);
    const remoteNames = runtime.tools.map((tool) => tool.definition.name);
    expect(remoteNames).toContain('self_always_on');
    expect(remoteNames).not.toContain('self_configurable');
    // A call back from this process's own pool gets no MCP tools (no loops): Alice's servers stay hers.
    expect(remoteNames).not.toContain('self_alicefix_echo');
    const outcome = await runtime.execute({ toolName: 'self_always_on', arguments: {} });
    expect(outcome).toMatchObject({ ok: true, result: { ok: true } });
    const status = await call('GET', `/api/mcp-servers/${remote.body.id as string}/status`, bob);
    expect(status.body.status).toMatchObject({ connected: true, transport: 'streamable-http' });
  });

  it('a remote server pointing back at this server’s own /mcp does not loop', async () => {
    const user = await createTestUser(server.services, 'loop');
    await call('PUT', '/api/secrets/OWN_TOKEN', user, { value: user.token });
    await call('POST', '/api/mcp-servers', user, fixtureServer('inner'));
    await call('POST', '/api/mcp-servers', user, {
      name: 'loop',
      transport: 'http',
      config: {
        url: `${baseUrl}/mcp`,
        protocol: 'streamable-http',
        headers: { Authorization: 'Bearer {{OWN_TOKEN}}' },
      },
    });
    const names = (await server.services.toolRuntime.getEnabledToolRuntime(user)).tools.map(
      (tool) => tool.definition.name,
    );
    expect(names).toEqual(expect.arrayContaining(['inner_echo', 'loop_always_on']));
    expect(names.filter((name) => name.startsWith('loop_inner') || name.startsWith('loop_loop'))).toEqual([]);
  });
});
