import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpEndpointPlugin, mcpAllowedHosts } from '../../src/http/plugins/mcp-endpoint.ts';
import { migrateDatabase, openDatabase, type ToolportDatabase } from '../../src/persistence/database.ts';
import { createTestUser, startTestServer, type TestServer } from '../support/test-server.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/fixture-server.mjs', import.meta.url));
type User = Awaited<ReturnType<typeof createTestUser>>;

/*
 * Issue 10 item 5: `/mcp` stays stateless (any instance answers any POST) without rebuilding the caller's runtime per
 * POST. Builds are counted by wrapping the real `getEnabledToolRuntime` (it still runs); changes made through the
 * services (settings, MCP rows, MCP listings) must show on the next request, and a change made through another
 * instance on the same database shortly after.
 */
describe('MCP-2 /mcp reuses the caller’s runtime until something it was built from changes', () => {
  let directory: string;
  let database: ToolportDatabase;
  let first: TestServer;
  let second: TestServer;
  let alice: User;
  const builds = new Map<TestServer, number>();

  const start = async (runtimeMaxAgeMs?: number) => {
    const server = await startTestServer(database, {
      plugins: [
        createMcpEndpointPlugin({
          allowedHosts: mcpAllowedHosts('127.0.0.1'),
          ...(runtimeMaxAgeMs === undefined ? {} : { runtimeMaxAgeMs }),
        }),
      ],
    });
    const original = server.services.toolRuntime.getEnabledToolRuntime.bind(server.services.toolRuntime);
    builds.set(server, 0);
    server.services.toolRuntime.getEnabledToolRuntime = (...args) => {
      builds.set(server, builds.get(server)! + 1);
      return original(...args);
    };
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    return server;
  };
  const connect = async (server: TestServer): Promise<Client> => {
    const port = (server.app.server.address() as AddressInfo).port;
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
        requestInit: { headers: alice.headers },
      }),
    );
    return client;
  };
  const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'toolport-mcp-cache-'));
    database = openDatabase(`sqlite:${join(directory, 'toolport.db')}`);
    await migrateDatabase(database);
    // The first instance's entries outlive the whole test (only its own changes may drop them, however slow the
    // machine); the second keeps the default age, so it sees the first's changes shortly after.
    first = await start(600_000);
    second = await start();
    alice = await createTestUser(first.services, 'alice');
  });
  afterAll(async () => {
    await first.close();
    await second.close();
    await database.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('builds the runtime once for a run of calls, and again after a settings change through the services', async () => {
    const client = await connect(first);
    try {
      const before = builds.get(first)!;
      expect(await names(client)).toContain('get_current_datetime');
      for (let call = 0; call < 5; call += 1) {
        const result = await client.callTool({
          name: 'get_current_datetime',
          arguments: { timezone: 'UTC' },
        });
        expect(result.isError).toBeFalsy();
      }
      expect(builds.get(first)! - before).toBe(1);

      const disabled = await first.app.inject({
        method: 'PUT',
        url: '/api/settings/tools/get_current_datetime',
        headers: alice.headers,
        payload: { enabled: false },
      });
      expect(disabled.statusCode).toBe(200);
      expect(await names(client)).not.toContain('get_current_datetime');
      expect(builds.get(first)! - before).toBe(2);
    } finally {
      await client.close();
      await first.app.inject({
        method: 'DELETE',
        url: '/api/settings/tools/get_current_datetime',
        headers: alice.headers,
      });
    }
  });

  it("shows a new MCP server's tools on the next request once it is listed", async () => {
    const client = await connect(first);
    try {
      expect(await names(client)).not.toContain('fixture_echo');
      const created = await first.app.inject({
        method: 'POST',
        url: '/api/mcp-servers',
        headers: alice.headers,
        payload: {
          name: 'fixture',
          transport: 'stdio',
          config: { command: process.execPath, args: [FIXTURE] },
        },
      });
      expect(created.statusCode).toBe(201);
      expect(await names(client)).toContain('fixture_echo');
      const result = await client.callTool({ name: 'fixture_echo', arguments: { text: 'cached' } });
      expect(result.content).toEqual([{ type: 'text', text: 'cached' }]);
      const deleted = await first.app.inject({
        method: 'DELETE',
        url: `/api/mcp-servers/${(created.json() as { id: string }).id}`,
        headers: alice.headers,
      });
      expect(deleted.statusCode).toBe(204);
      expect(await names(client)).not.toContain('fixture_echo');
    } finally {
      await client.close();
    }
  });

  it('another instance on the same database answers too, and sees a change made through the first', async () => {
    const client = await connect(second);
    try {
      expect(await names(client)).toContain('get_current_datetime');
      await first.app.inject({
        method: 'PUT',
        url: '/api/settings/tools/get_current_datetime',
        headers: alice.headers,
        payload: { enabled: false },
      });
      let listed = await names(client);
      for (let attempt = 0; attempt < 100 && listed.includes('get_current_datetime'); attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        listed = await names(client);
      }
      expect(listed).not.toContain('get_current_datetime');
    } finally {
      await client.close();
    }
  });

  it('announces tools/list_changed on the GET stream when a setting changes, and only to that user', async () => {
    const bob = await createTestUser(first.services, 'bob');
    // The test before left the tool disabled (through the first instance): start from the default.
    await first.app.inject({
      method: 'DELETE',
      url: '/api/settings/tools/get_current_datetime',
      headers: alice.headers,
    });
    const client = await connect(first);
    const bobClient = new Client({ name: 'bob', version: '1.0.0' });
    const port = (first.app.server.address() as AddressInfo).port;
    await bobClient.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
        requestInit: { headers: bob.headers },
      }),
    );
    let aliceChanges = 0;
    let bobChanges = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      aliceChanges += 1;
    });
    bobClient.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      bobChanges += 1;
    });
    try {
      expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
      expect(await names(client)).toContain('get_current_datetime');
      const disabled = await first.app.inject({
        method: 'PUT',
        url: '/api/settings/tools/get_current_datetime',
        headers: alice.headers,
        payload: { enabled: false },
      });
      expect(disabled.statusCode).toBe(200);
      const deadline = Date.now() + 10_000;
      while (aliceChanges === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      expect(aliceChanges).toBeGreaterThan(0);
      expect(await names(client)).not.toContain('get_current_datetime');
      // Give bob's stream as long again: alice's change is not his.
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(bobChanges).toBe(0);
    } finally {
      await client.close();
      await bobClient.close();
      await first.app.inject({
        method: 'DELETE',
        url: '/api/settings/tools/get_current_datetime',
        headers: alice.headers,
      });
    }
  });

  it('answers a GET without text/event-stream with 406, and a GET without a token with 401', async () => {
    const port = (first.app.server.address() as AddressInfo).port;
    const plain = await fetch(`http://127.0.0.1:${port}/mcp`, {
      headers: { ...alice.headers, accept: 'application/json' },
    });
    expect(plain.status).toBe(406);
    const anonymous = await fetch(`http://127.0.0.1:${port}/mcp`, {
      headers: { accept: 'text/event-stream' },
    });
    expect(anonymous.status).toBe(401);
  });
});
