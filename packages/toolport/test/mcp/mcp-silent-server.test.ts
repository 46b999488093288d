import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, migrateDatabase, type ToolportDatabase } from '../../src/persistence/database.ts';
import { FakeProviderServer } from '../providers/fake-provider-server.ts';
import { scriptStep } from '../providers/scripted-streams.ts';
import { createTestUser, startTestServer, type TestServer } from '../support/test-server.ts';

type User = Awaited<ReturnType<typeof createTestUser>>;

/*
 * Issue 10 item 1, reproduced through the API: a user's stdio server `{"command":"node"}` (no script: it reads one
 * from stdin and never answers the handshake) must not hold up that user's requests for the connect timeout (30 s,
 * longer than this file's test timeout), whether a built-in runs, the settings list or the inspector is read.
 */
describe('MCP-1 a silent MCP server through the API', () => {
  let directory: string;
  let database: ToolportDatabase;
  let server: TestServer;
  let alice: User;
  let serverId: string;
  let fake: FakeProviderServer;

  beforeAll(async () => {
    fake = await FakeProviderServer.start();
    directory = mkdtempSync(join(tmpdir(), 'toolport-mcp-silent-'));
    database = openDatabase(`sqlite:${join(directory, 'toolport.db')}`);
    await migrateDatabase(database);
    server = await startTestServer(database, { mcp: { listingWaitMs: 200 } });
    alice = await createTestUser(server.services, 'alice');
    const created = await server.app.inject({
      method: 'POST',
      url: '/api/mcp-servers',
      headers: alice.headers,
      payload: { name: 'silent', transport: 'stdio', config: { command: 'node' } },
    });
    expect(created.statusCode).toBe(201);
    serverId = (created.json() as { id: string }).id;
  });

  afterAll(async () => {
    await fake.close();
    await server.close();
    await database.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('runs a built-in, lists the settings and inspects a chat while the server connects, saying so', async () => {
    const executed = await server.app.inject({
      method: 'POST',
      url: '/api/tools/get_current_datetime/execute',
      headers: alice.headers,
      payload: { args: {} },
    });
    expect(executed.statusCode).toBe(200);

    const settings = await server.app.inject({
      method: 'GET',
      url: '/api/settings/tools',
      headers: alice.headers,
    });
    expect(settings.statusCode).toBe(200);

    const chat = await server.app.inject({
      method: 'POST',
      url: '/api/chats',
      headers: alice.headers,
      payload: { title: 'c' },
    });
    const chatId = (chat.json() as { id: string }).id;
    const inspected = await server.app.inject({
      method: 'GET',
      url: `/api/chats/${chatId}/capabilities`,
      headers: alice.headers,
    });
    expect(inspected.statusCode).toBe(200);
    const body = inspected.json() as {
      tools: { name: string }[];
      mcpServers: { name: string; status: { state: string } }[];
    };
    expect(body.tools.map((tool) => tool.name)).toContain('get_current_datetime');
    expect(body.mcpServers).toEqual([
      expect.objectContaining({ name: 'silent', status: expect.objectContaining({ state: 'connecting' }) }),
    ]);

    const status = await server.app.inject({
      method: 'GET',
      url: `/api/mcp-servers/${serverId}/status`,
      headers: alice.headers,
    });
    expect(status.json()).toMatchObject({ status: { state: 'connecting', connected: false } });
  });

  it('runs a turn with the tools that are ready', async () => {
    const secret = await server.app.inject({
      method: 'PUT',
      url: '/api/secrets/KEY',
      headers: alice.headers,
      payload: { value: 'sk-test' },
    });
    expect(secret.statusCode).toBe(200);
    const provider = await server.app.inject({
      method: 'POST',
      url: '/api/providers',
      headers: alice.headers,
      payload: {
        provider: 'anthropic',
        baseUrl: fake.baseURLFor('anthropic'),
        defaultModel: 'm',
        apiKeySecret: 'KEY',
      },
    });
    expect(provider.statusCode).toBe(201);
    const chat = await server.app.inject({
      method: 'POST',
      url: '/api/chats',
      headers: alice.headers,
      payload: { title: 't' },
    });
    fake.enqueue('anthropic', scriptStep('anthropic', { text: 'Ready.' }));
    const before = fake.requests.length;
    const turn = await server.app.inject({
      method: 'POST',
      url: `/api/chats/${(chat.json() as { id: string }).id}/turns`,
      headers: alice.headers,
      payload: { message: 'hi', provider: 'anthropic' },
    });
    expect(turn.statusCode).toBe(200);
    expect(turn.body).toContain('event: turn_completed');
    const sent = (fake.requests[before]!.body.tools as Array<{ name: string }>).map((tool) => tool.name);
    expect(sent).toContain('get_current_datetime');
    expect(sent.some((name) => name.startsWith('silent_'))).toBe(false);
  });
});
