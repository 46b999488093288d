import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_OPERATOR_POLICY, type OperatorPolicy } from '../../src/policy/operator-policy.ts';
import { createTestDatabase, TEST_ENGINES, type TestDatabaseTarget } from '../support/test-databases.ts';
import { createTestUser, startTestServer, type TestServer } from '../support/test-server.ts';

type Json = Record<string, unknown>;

const config = {
  url: 'https://api.example.test/items',
  method: 'GET',
  parameters: { type: 'object' },
};

describe.each(TEST_ENGINES)('AUTH-2 policy customTools.http on %s', (engine) => {
  let target: TestDatabaseTarget;
  let server: TestServer;
  let admin: Awaited<ReturnType<typeof createTestUser>>;
  let user: Awaited<ReturnType<typeof createTestUser>>;

  const call = async (method: 'GET' | 'POST' | 'PATCH', url: string, who: typeof user, payload?: unknown) => {
    const response = await server.app.inject({
      method,
      url,
      headers: who.headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: response.statusCode, body: response.json() as Json };
  };

  beforeAll(async () => {
    target = await createTestDatabase(engine);
    const policy: OperatorPolicy = {
      ...DEFAULT_OPERATOR_POLICY,
      customTools: { ...DEFAULT_OPERATOR_POLICY.customTools, http: 'admins' },
    };
    server = await startTestServer(await target.open(), { services: { policy } });
    const created = await server.services.tokens.createUser(`admin-${engine}-${process.pid}`, {
      isAdmin: true,
    });
    admin = {
      id: created.user.id,
      isAdmin: true,
      token: created.token,
      headers: { authorization: `Bearer ${created.token}` },
    };
    user = await createTestUser(server.services, 'plain');
  });

  afterAll(async () => {
    await server?.close();
    await server?.services.httpTools.close();
    await target?.dispose();
  });

  it('refuses a non-admin create and import with 403 permission_denied naming customTools.http; admins may', async () => {
    const refused = await call('POST', '/api/tools/http-tool', user, { name: 'mine', config });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'permission_denied', policyKey: 'customTools.http' });
    expect(String((refused.body.error as Json).message)).toContain('customTools.http');
    const imported = await call('POST', '/api/tools/http-tool/import', user, {
      document: { openapi: '3.0.0', info: { title: 't', version: '1' }, paths: {} },
    });
    expect(imported.status).toBe(403);
    expect((await call('POST', '/api/tools/http-tool', admin, { name: 'admins_tool', config })).status).toBe(
      201,
    );
  });

  it("a non-admin's existing row is not a tool, cannot be enabled or sent, and can still be disabled", async () => {
    // Created before the operator tightened the policy.
    const row = await server.services.repositories.customTools.create(user.id, {
      name: 'legacy',
      type: 'http',
      config,
      enabled: true,
    });
    const settings = (await call('GET', '/api/settings/tools', user)).body.tools as Json[];
    expect(settings.map((tool) => tool.name)).not.toContain('legacy');
    expect((await call('PATCH', `/api/tools/http-tool/${row.id}`, user, { enabled: true })).status).toBe(403);
    expect((await call('POST', `/api/tools/http-tool/${row.id}/test`, user, { send: true })).status).toBe(
      403,
    );
    expect((await call('POST', `/api/tools/http-tool/${row.id}/test`, user, {})).status).toBe(200);
    expect((await call('PATCH', `/api/tools/http-tool/${row.id}`, user, { enabled: false })).status).toBe(
      200,
    );
    const adminSettings = (await call('GET', '/api/settings/tools', admin)).body.tools as Json[];
    expect(adminSettings.find((tool) => tool.name === 'admins_tool')).toMatchObject({ source: 'http' });
  });
});
