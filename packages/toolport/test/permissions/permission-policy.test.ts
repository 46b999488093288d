import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/core/tool-registry.ts';
import { migrateDatabase, openDatabase, type ToolportDatabase } from '../../src/persistence/database.ts';
import { loadOperatorPolicy } from '../../src/policy/load-operator-policy.ts';
import { registerBuiltinTools } from '../../src/tools/index.ts';
import { createTestUser, startTestServer, type TestServer } from '../support/test-server.ts';

type Json = Record<string, unknown> & { error?: { code: string; message: string } };
type User = Awaited<ReturnType<typeof createTestUser>>;

/*
 * Issue 16 under the operator policy (AUTH-2, default policy: shells are admin-only): a permission rule can only
 * narrow what a user already may run. A non-admin's `allow` (on their settings or an agent's row) never brings back a
 * tool the policy keeps from them, and one user's rules and approvals are nobody else's.
 */
describe('issue 16 permissions never widen the operator policy', () => {
  let dataDirectory: string;
  let database: ToolportDatabase;
  let server: TestServer;
  let admin: User;
  let user: User;

  const call = async (
    method: 'GET' | 'PUT' | 'POST' | 'PATCH',
    url: string,
    who: User,
    payload?: unknown,
  ) => {
    const response = await server.app.inject({
      method,
      url,
      headers: who.headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: response.statusCode, body: response.json() as Json, raw: response.body };
  };

  beforeAll(async () => {
    dataDirectory = realpathSync(mkdtempSync(join(tmpdir(), 'toolport-permission-policy-')));
    const { policy } = loadOperatorPolicy({ dataDirectory, env: {}, cwd: process.cwd() });
    database = openDatabase(`sqlite:${join(dataDirectory, 'toolport.db')}`);
    await migrateDatabase(database);
    server = await startTestServer(database, {
      registry: registerBuiltinTools(new ToolRegistry()),
      services: { policy },
    });
    admin = await createTestUser(server.services, 'admin', { isAdmin: true });
    user = await createTestUser(server.services, 'user');
  });
  afterAll(async () => {
    await server?.close();
    await database?.close();
    rmSync(dataDirectory, { recursive: true, force: true });
  });

  it('a non-admin may enable no admin-only tool through permission, alone or with enabled', async () => {
    const refused = await call('PUT', '/api/settings/tools/bash', user, {
      enabled: true,
      permission: 'allow',
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error?.message).toContain('policy "tools.adminOnly"');
    // The refused request saved nothing.
    expect((await call('GET', '/api/settings/tools/bash', user)).body).toMatchObject({
      enabled: false,
      permission: 'allow',
      policy: { allowed: false },
    });
    // A rule alone is stored (it only ever narrows), and still gives no shell.
    const ruled = await call('PUT', '/api/settings/tools/bash', user, { permission: { '*': 'allow' } });
    expect(ruled.status).toBe(200);
    expect(ruled.body).toMatchObject({ enabled: false, policy: { allowed: false } });
    const ran = await call('POST', '/api/tools/bash/execute', user, { args: { command: 'echo widened' } });
    expect(ran.status).toBeGreaterThanOrEqual(400);
    expect(ran.raw).not.toContain('widened');
  });

  it("an agent row's allow selects no admin-only tool for a non-admin's agent", async () => {
    const agent = await call('POST', '/api/agents', user, { name: 'shell-agent' });
    expect(agent.status).toBe(201);
    const agentId = String(agent.body.id);
    const row = await call('PATCH', `/api/agents/${agentId}/tools/bash`, user, { permission: 'allow' });
    expect(row.status).toBe(200);
    const chatId = String((await call('POST', '/api/chats', user, {})).body.id);
    const inspected = await call('GET', `/api/chats/${chatId}/capabilities?agent=${agentId}`, user);
    expect(inspected.status).toBe(200);
    expect((inspected.body.tools as Json[]).map((tool) => tool.name)).not.toContain('bash');
  });

  it("an admin's rules and a chat's approvals belong to their owner", async () => {
    expect(
      (await call('PUT', '/api/settings/tools/read_file', admin, { permission: { '*': 'deny' } })).status,
    ).toBe(200);
    expect((await call('GET', '/api/settings/tools/read_file', user)).body.permission).toBe('allow');
    const adminChat = String((await call('POST', '/api/chats', admin, {})).body.id);
    const answered = await call('POST', `/api/chats/${adminChat}/approvals/call-1`, user, {
      decision: 'approve',
      remember: 'always',
    });
    expect(answered.status).toBe(404);
    expect((await call('GET', '/api/settings/tools/read_file', admin)).body.permission).toEqual({
      '*': 'deny',
    });
  });
});
