import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ToolportDatabase } from '../../src/persistence/database.ts';
import { createSandbox, mathTool, type CodeToolSandbox } from '../custom-tools/code-tool-harness.ts';
import { createTestDatabase, TEST_ENGINES, type TestDatabaseTarget } from '../support/test-databases.ts';
import {
  createTestUser,
  OPEN_TEST_POLICY,
  startTestServer,
  type TestServer,
} from '../support/test-server.ts';

/*
 * Issue 11 item 2: `GET /api/settings/tools` sends a user's serialized listing again while it would be built from the
 * same objects (http/tool-listing-cache.ts). What it sends must be the bytes the serializer produces, and every change
 * of anything the listing shows must be in the very next response — on the instance that made it and on another
 * instance sharing the database.
 */

type Json = Record<string, unknown>;
type Caller = { id: string; headers: { authorization: string } };
interface Descriptor {
  name: string;
  enabled: boolean;
  source: string;
  description: string;
  parameters: Json;
  policy: { allowed: boolean };
  updatedAt: string | null;
}

const FIXTURE = fileURLToPath(new URL('../mcp/fixtures/fixture-server.mjs', import.meta.url));
// `configurable` is kept to admins, so a changed admin flag changes what the listing says.
const POLICY = { ...OPEN_TEST_POLICY, tools: { ...OPEN_TEST_POLICY.tools, adminOnly: ['configurable'] } };

describe.each(TEST_ENGINES)('issue 11 GET /api/settings/tools served from its cache on %s', (engine) => {
  let target: TestDatabaseTarget;
  let sandbox: CodeToolSandbox;
  let first: TestServer;
  let second: TestServer;
  let user: Caller;
  let databases: ToolportDatabase[];

  const get = async (server: TestServer, who: Caller) => {
    const response = await server.app.inject({
      method: 'GET',
      url: '/api/settings/tools',
      headers: who.headers,
    });
    expect(response.statusCode, response.body).toBe(200);
    return response;
  };
  const listing = async (server: TestServer, who: Caller = user) =>
    (await get(server, who)).json() as { tools: Descriptor[]; loadErrors: Array<{ file: string }> };
  const tool = async (server: TestServer, name: string, who: Caller = user) =>
    (await listing(server, who)).tools.find((entry) => entry.name === name);
  const call = async (
    server: TestServer,
    method: 'PUT' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    body?: Json,
  ) => {
    const response = await server.app.inject({
      method,
      url,
      headers: user.headers,
      ...(body === undefined ? {} : { payload: body }),
    });
    expect(response.statusCode, response.body).toBeLessThan(300);
    return response.body === '' ? {} : (response.json() as Json);
  };

  beforeAll(async () => {
    target = await createTestDatabase(engine);
    sandbox = createSandbox('toolport-listing-cache-');
    sandbox.write('operator/.toolport/tools/math.ts', mathTool());
    const services = { policy: POLICY, codeToolRoots: [join(sandbox.root, 'operator')] };
    databases = [await target.open(), await target.open()];
    first = await startTestServer(databases[0]!, { services });
    second = await startTestServer(databases[1]!, { services });
    user = await createTestUser(first.services, 'listing');
  });
  afterEach(() => vi.restoreAllMocks());
  afterAll(async () => {
    await first?.close();
    await second?.close();
    await target?.dispose();
    sandbox?.remove();
  });

  it('sends the same bytes and headers as the listing it built, without building it again', async () => {
    const built = vi.spyOn(first.services.toolSettings, 'describeListing');
    const uncached = await get(first, user);
    expect(built).toHaveBeenCalledTimes(1);
    const cached = await get(first, user);
    const again = await get(first, user);
    expect(built).toHaveBeenCalledTimes(1);
    for (const response of [cached, again]) {
      expect(response.rawPayload.equals(uncached.rawPayload)).toBe(true);
      expect(response.headers['content-type']).toBe(uncached.headers['content-type']);
      expect(response.headers['content-length']).toBe(uncached.headers['content-length']);
    }
    expect(uncached.headers['content-type']).toBe('application/json; charset=utf-8');
    // Only this user's listing is kept: another user's is built for them.
    const other = await createTestUser(first.services, 'other');
    await get(first, other);
    expect(built).toHaveBeenCalledTimes(2);
  });

  it.each([
    ['this instance', () => first],
    ['another instance on the same database', () => second],
  ])('shows a settings change made through %s on the next request', async (_label, writer) => {
    for (const server of [first, second])
      expect((await tool(server, 'configurable'))?.parameters.maxResults).toBe(10);
    await call(writer(), 'PUT', '/api/settings/tools/configurable', { parameters: { maxResults: 7 } });
    for (const server of [first, second]) {
      const changed = await tool(server, 'configurable');
      expect(changed?.parameters.maxResults).toBe(7);
      expect(changed?.updatedAt).not.toBeNull();
    }
    await call(writer(), 'DELETE', '/api/settings/tools/configurable');
    for (const server of [first, second]) {
      const reset = await tool(server, 'configurable');
      expect(reset?.parameters.maxResults).toBe(10);
      expect(reset?.updatedAt).toBeNull();
    }
  });

  it('shows a changed admin flag at once (it is read with the token, not versioned)', async () => {
    for (const server of [first, second])
      expect((await tool(server, 'configurable'))?.policy.allowed).toBe(false);
    await databases[0]!.db.updateTable('users').set({ is_admin: 1 }).where('id', '=', user.id).execute();
    for (const server of [first, second])
      expect((await tool(server, 'configurable'))?.policy.allowed).toBe(true);
    await databases[1]!.db.updateTable('users').set({ is_admin: 0 }).where('id', '=', user.id).execute();
    for (const server of [first, second])
      expect((await tool(server, 'configurable'))?.policy.allowed).toBe(false);
  });

  it('shows an HTTP tool row created, disabled and deleted through another instance', async () => {
    for (const server of [first, second]) expect(await tool(server, 'lookup_thing')).toBeUndefined();
    const created = await call(first, 'POST', '/api/tools/http-tool', {
      name: 'lookup_thing',
      enabled: true,
      config: {
        url: 'http://127.0.0.2:9/thing',
        method: 'GET',
        parameters: { type: 'object', properties: {} },
      },
    });
    for (const server of [first, second]) expect((await tool(server, 'lookup_thing'))?.source).toBe('http');
    await call(first, 'PATCH', `/api/tools/http-tool/${String(created.id)}`, { enabled: false });
    for (const server of [first, second]) expect(await tool(server, 'lookup_thing')).toBeUndefined();
    await call(first, 'PATCH', `/api/tools/http-tool/${String(created.id)}`, { enabled: true });
    for (const server of [first, second]) expect(await tool(server, 'lookup_thing')).toBeDefined();
    await call(first, 'DELETE', `/api/tools/http-tool/${String(created.id)}`);
    for (const server of [first, second]) expect(await tool(server, 'lookup_thing')).toBeUndefined();
  });

  it("shows an MCP server's tools once it lists them, and drops them when its row is disabled elsewhere", async () => {
    for (const server of [first, second]) expect(await tool(server, 'fixture_echo')).toBeUndefined();
    const created = await call(first, 'POST', '/api/mcp-servers', {
      name: 'fixture',
      transport: 'stdio',
      enabled: true,
      config: { command: process.execPath, args: [FIXTURE] },
    });
    // Each instance connects its own pool on its first listing (waiting for it: `listingWaitMs`).
    for (const server of [first, second]) expect((await tool(server, 'fixture_echo'))?.source).toBe('mcp');
    await call(second, 'PATCH', `/api/mcp-servers/${String(created.id)}`, { enabled: false });
    for (const server of [first, second]) expect(await tool(server, 'fixture_echo')).toBeUndefined();
    await call(second, 'DELETE', `/api/mcp-servers/${String(created.id)}`);
  });

  it('shows a code tool file changed or broken on disk, and its load error', async () => {
    for (const server of [first, second]) {
      expect((await tool(server, 'math_add'))?.description).toBe('Add two numbers');
      expect((await listing(server)).loadErrors).toEqual([]);
    }
    sandbox.write('operator/.toolport/tools/math.ts', mathTool('Adds two numbers, now longer'));
    for (const server of [first, second]) {
      expect((await tool(server, 'math_add'))?.description).toBe('Adds two numbers, now longer');
    }
    const broken = sandbox.write('operator/.toolport/tools/broken.ts', 'export default {\n');
    for (const server of [first, second]) {
      expect((await listing(server)).loadErrors.map((error) => error.file)).toEqual([broken]);
    }
    sandbox.write('operator/.toolport/tools/broken.ts', mathTool().replaceAll('add', 'plus'));
    for (const server of [first, second]) {
      const fixed = await listing(server);
      expect(fixed.loadErrors).toEqual([]);
      expect(fixed.tools.map((entry) => entry.name)).toContain('broken_plus');
      expect(fixed.tools.find((entry) => entry.name === 'math_add')?.source).toBe('code');
    }
  });
});
