import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineTool } from '../../src/core/tool-types.ts';
import { createTestDatabase, TEST_ENGINES, type TestDatabaseTarget } from '../support/test-databases.ts';
import { createTestUser, startTestServer, type TestServer } from '../support/test-server.ts';
import { createTestRegistry } from '../support/server-test-tools.ts';

type Json = Record<string, unknown> & { error?: { code: string; message: string } };

const webPageSummaryStub = defineTool<{ url: string }>({
  definition: {
    name: 'web_page_summary',
    description: 'Stub.',
    parameters: {
      type: 'object',
      properties: { url: { type: 'string' } },
      required: ['url'],
      additionalProperties: false,
    },
  },
  settings: {
    title: 'Web page summary',
    description: 'Stub',
    category: 'web',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: {},
    parameterDescriptors: [],
  },
  execute: async ({ url }) => ({ url, title: 'Example', summary: 'A page.', extractedAt: 'now' }),
});

describe.each(TEST_ENGINES)('API-1 agents, HTTP tools, MCP servers, summary routes on %s', (engine) => {
  let target: TestDatabaseTarget;
  let server: TestServer;
  let alice: Awaited<ReturnType<typeof createTestUser>>;
  let bob: Awaited<ReturnType<typeof createTestUser>>;

  const call = async (
    method: 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    who: { headers: { authorization: string } },
    payload?: unknown,
  ) => {
    const response = await server.app.inject({
      method,
      url,
      headers: who.headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return {
      status: response.statusCode,
      body: (response.body === '' ? {} : response.json()) as Json,
      raw: response.body,
    };
  };

  beforeAll(async () => {
    target = await createTestDatabase(engine);
    server = await startTestServer(await target.open(), {
      registry: createTestRegistry([webPageSummaryStub]),
    });
    alice = await createTestUser(server.services, 'alice');
    bob = await createTestUser(server.services, 'bob');
  });
  afterAll(async () => {
    await server?.close();
    await target?.dispose();
  });

  it('agents: create, list, select tools with merged config, and restrict a chat’s tools', async () => {
    const created = await call('POST', '/api/agents', alice, {
      name: 'researcher',
      description: 'Finds things',
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect((await call('POST', '/api/agents', alice, { name: 'researcher' })).status).toBe(409);
    expect(
      ((await call('GET', '/api/agents', alice)).body.agents as Json[]).map((agent) => agent.name),
    ).toEqual(['researcher']);

    // A built-in's overlay is its settings, merged by spread and validated after the merge (seed 003).
    let patched = await call('PATCH', `/api/agents/${id}/tools/configurable`, alice, {
      enabled: true,
      config: { maxResults: 20 },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      toolName: 'configurable',
      enabled: true,
      config: { maxResults: 20 },
    });
    patched = await call('PATCH', `/api/agents/${id}/tools/configurable`, alice, {
      config: { speed: 'slow' },
    });
    expect(patched.body.config).toEqual({ maxResults: 20, speed: 'slow' });
    const outOfBounds = await call('PATCH', `/api/agents/${id}/tools/configurable`, alice, {
      config: { maxResults: 1000 },
    });
    expect(outOfBounds.status).toBe(422);
    expect(outOfBounds.raw).toContain('maxResults');
    const stored = await server.services.repositories.agents.listTools(alice.id, id);
    expect(stored[0]?.config).toEqual({ maxResults: 20, speed: 'slow' });

    // The listing names every tool the agent can be given, with its type and whether this agent gets it.
    const tools = await call('GET', `/api/agents/${id}/tools`, alice);
    const listed = tools.body.tools as Json[];
    expect(listed.find((tool) => tool.toolName === 'configurable')).toMatchObject({
      enabled: true,
      selected: true,
      type: 'custom',
      config: { maxResults: 20, speed: 'slow' },
    });
    expect(listed.find((tool) => tool.toolName === 'get_current_datetime')).toMatchObject({
      enabled: false,
      selected: false,
      type: 'builtin',
    });
    expect(
      (await call('PATCH', `/api/agents/${id}/tools/no_such_tool`, alice, { enabled: true })).status,
    ).toBe(404);

    // A chat bound to the agent runs only the agent's allowlist.
    const chat = await server.services.repositories.chats.create(alice.id, { mode: 'chat', agentId: id });
    const allowed = await call('POST', '/api/tools/configurable/execute', alice, {
      args: {},
      chatId: chat.id,
    });
    expect(allowed.status).toBe(200);
    const blocked = await call('POST', '/api/tools/always_on/execute', alice, { args: {}, chatId: chat.id });
    expect(blocked.status).toBe(403);
    expect(blocked.body.error?.code).toBe('disabled');
  });

  it("agents: another user's agent is 404 everywhere", async () => {
    const id = (await call('POST', '/api/agents', alice, { name: 'private-agent' })).body.id as string;
    expect((await call('GET', `/api/agents/${id}`, bob)).status).toBe(404);
    expect((await call('GET', `/api/agents/${id}/tools`, bob)).status).toBe(404);
    expect((await call('PATCH', `/api/agents/${id}/tools/configurable`, bob, { enabled: true })).status).toBe(
      404,
    );
    expect((await call('DELETE', `/api/agents/${id}`, bob)).status).toBe(404);
    expect((await call('DELETE', `/api/agents/${id}`, alice)).status).toBe(204);
  });

  it('HTTP tools: stored as type http + config; auth.value and headers are write-only', async () => {
    const created = await call('POST', '/api/tools/http-tool', alice, {
      name: 'weather',
      config: {
        url: 'https://api.example.test/weather?city={{city}}',
        method: 'GET',
        headers: { 'x-api-key': 'header-secret-9' },
        auth: { type: 'bearer', value: 'bearer-secret-9' },
        timeout: 5000,
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'weather',
      type: 'http',
      enabled: true,
      config: { method: 'GET', headers: { 'x-api-key': '***' }, auth: { type: 'bearer', value: '***' } },
    });
    const listed = await call('GET', '/api/tools/http-tool', alice);
    expect((listed.body.tools as Json[]).map((tool) => tool.name)).toEqual(['weather']);
    for (const response of [created, listed]) {
      expect(response.raw).not.toContain('bearer-secret-9');
      expect(response.raw).not.toContain('header-secret-9');
    }
    const id = created.body.id as string;
    const patched = await call('PATCH', `/api/tools/http-tool/${id}`, alice, {
      config: { timeout: 9000, auth: { type: 'bearer', value: '***' } },
    });
    expect(patched.body.config).toMatchObject({
      timeout: 9000,
      url: 'https://api.example.test/weather?city={{city}}',
    });
    const row = await server.services.repositories.customTools.get(alice.id, id);
    expect(row?.config).toMatchObject({
      auth: { value: 'bearer-secret-9' },
      headers: { 'x-api-key': 'header-secret-9' },
    });

    expect(
      (
        await call('POST', '/api/tools/http-tool', alice, {
          name: 'weather',
          config: { url: 'x', method: 'GET' },
        })
      ).status,
    ).toBe(409);
    expect(
      (
        await call('POST', '/api/tools/http-tool', alice, {
          name: 'bad name',
          config: { url: 'x', method: 'GET' },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call('POST', '/api/tools/http-tool', alice, {
          name: 'b',
          config: { url: 'x', method: 'TRACE' },
        })
      ).status,
    ).toBe(400);
    expect((await call('GET', '/api/tools/http-tool', bob)).body.tools).toEqual([]);
    expect((await call('PATCH', `/api/tools/http-tool/${id}`, bob, { enabled: false })).status).toBe(404);
    expect((await call('DELETE', `/api/tools/http-tool/${id}`, bob)).status).toBe(404);
    expect((await call('DELETE', `/api/tools/http-tool/${id}`, alice)).status).toBe(204);
  });

  it('MCP servers: CRUD with masked header and env values, scoped to the owner', async () => {
    const created = await call('POST', '/api/mcp-servers', alice, {
      name: 'files',
      transport: 'stdio',
      config: { command: 'mcp-files', args: ['--root', '/srv'], env: { TOKEN: 'env-secret-7' } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'files',
      transport: 'stdio',
      enabled: true,
      config: { env: { TOKEN: '***' } },
    });
    const id = created.body.id as string;
    const patched = await call('PATCH', `/api/mcp-servers/${id}`, alice, {
      enabled: false,
      config: { env: { TOKEN: '***' } },
    });
    expect(patched.body).toMatchObject({ enabled: false, config: { command: 'mcp-files' } });
    const row = await server.services.repositories.mcpServers.get(alice.id, id);
    expect(row?.config).toMatchObject({ env: { TOKEN: 'env-secret-7' } });
    expect((await call('GET', '/api/mcp-servers', alice)).raw).not.toContain('env-secret-7');
    expect((await call('GET', `/api/mcp-servers/${id}`, bob)).status).toBe(404);
    expect((await call('DELETE', `/api/mcp-servers/${id}`, alice)).status).toBe(204);
    expect((await call('GET', `/api/mcp-servers/${id}`, alice)).status).toBe(404);
  });

  it('summary routes: GET describes the tool, POST runs it; a disabled one refuses to run', async () => {
    const described = await call('GET', '/api/tools/web-page-summary', alice);
    expect(described.body).toMatchObject({ name: 'web_page_summary', enabled: true });
    const ran = await call('POST', '/api/tools/web-page-summary', alice, { url: 'https://example.test' });
    expect(ran.status).toBe(200);
    expect(ran.body.result).toMatchObject({ url: 'https://example.test', summary: 'A page.' });
    const invalid = await call('POST', '/api/tools/web-page-summary', alice, { url: 3 });
    expect(invalid.status).toBe(422);
    // youtube_summary is the real built-in here, disabled by default (it spends the user's provider tokens).
    const youtube = await call('GET', '/api/tools/youtube-summary', alice);
    expect(youtube.body).toMatchObject({ name: 'youtube_summary', enabled: false });
    const refused = await call('POST', '/api/tools/youtube-summary', alice, { videoId: 'dQw4w9WgXcQ' });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'disabled' });
  });
});
