import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_ENGINES, type TestDatabaseTarget } from '../support/test-databases.ts';
import { createTestUser, startTestServer, type TestServer } from '../support/test-server.ts';

type Json = Record<string, unknown>;

describe.each(TEST_ENGINES)('SEC-1 MCP server credentials (one credential module) on %s', (engine) => {
  let target: TestDatabaseTarget;
  let server: TestServer;
  let alice: Awaited<ReturnType<typeof createTestUser>>;

  beforeAll(async () => {
    target = await createTestDatabase(engine);
    server = await startTestServer(await target.open());
    alice = await createTestUser(server.services, 'alice');
  });
  afterAll(async () => {
    await server?.close();
    await target?.dispose();
  });

  const call = async (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) => {
    const response = await server.app.inject({
      method,
      url,
      headers: alice.headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: response.statusCode, raw: response.body, body: response.json() as Json };
  };

  it('seals literal header and env values at rest, masks them, shows references, keeps *** and redacts literals', async () => {
    const remote = await call('POST', '/api/mcp-servers', {
      name: 'remote',
      transport: 'http',
      enabled: false,
      config: {
        url: 'https://mcp.example.test/mcp',
        headers: { 'X-Api-Key': 'mcp-literal-key-31', Authorization: 'Bearer {{MCP_TOKEN}}' },
      },
    });
    expect(remote.status, remote.raw).toBe(201);
    expect(remote.body.config).toMatchObject({
      headers: { 'X-Api-Key': '***', Authorization: 'Bearer {{MCP_TOKEN}}' },
    });
    const local = await call('POST', '/api/mcp-servers', {
      name: 'local',
      transport: 'stdio',
      enabled: false,
      config: { command: 'true', env: { GITHUB_TOKEN: 'ghp-literal-token-42', NODE_ENV: 'production' } },
    });
    expect(local.status, local.raw).toBe(201);
    for (const response of [remote, local, await call('GET', '/api/mcp-servers')]) {
      expect(response.raw).not.toContain('mcp-literal-key-31');
      expect(response.raw).not.toContain('ghp-literal-token-42');
    }

    const rows = await server.services.database.db.selectFrom('mcp_servers').select(['config']).execute();
    const atRest = rows.map((row) => row.config).join('\n');
    expect(atRest).not.toContain('mcp-literal-key-31');
    expect(atRest).not.toContain('ghp-literal-token-42');
    expect(atRest).toContain('Bearer {{MCP_TOKEN}}');

    // The pool still receives the plain values, and `***` in an update keeps them.
    const patched = await call('PATCH', `/api/mcp-servers/${String(remote.body.id)}`, {
      config: { headers: { 'X-Api-Key': '***', Authorization: 'Bearer {{MCP_TOKEN}}' } },
    });
    expect(patched.status, patched.raw).toBe(200);
    const stored = await server.services.repositories.mcpServers.get(alice.id, String(remote.body.id));
    expect(stored?.config).toMatchObject({ headers: { 'X-Api-Key': 'mcp-literal-key-31' } });

    const redacted = await server.services.secrets.createReader(alice.id).listSecretValues!();
    expect(redacted).toContain('mcp-literal-key-31');
    expect(redacted).toContain('ghp-literal-token-42');
    expect(redacted).not.toContain('production');
  });
});
