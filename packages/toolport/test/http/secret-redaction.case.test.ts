import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolportLogger } from '../../src/core/tool-types.ts';
import { createMcpEndpointPlugin, mcpAllowedHosts } from '../../src/http/plugins/mcp-endpoint.ts';
import { secretTells } from '../support/secret-encodings.ts';
import { createTestDatabase, TEST_ENGINES, type TestDatabaseTarget } from '../support/test-databases.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

type User = { id: string; token: string; headers: { authorization: string } };

/**
 * SEC-1 / issue 9 item 4, attacked through the real API: a tool echoes the caller's secret raw, Base64 (three
 * alignments), base64url, percent-encoded, JSON-escaped and as HTTP Basic `user:secret` — in its result, partial
 * result, progress, logs and errors. Nothing of it may reach the HTTP response, `/mcp` (content and
 * `structuredContent`) or the log; each user's redaction uses that user's secrets only.
 */
describe.each(TEST_ENGINES)('SEC-1 secrets echoed in any encoding are redacted, on %s', (engine) => {
  let target: TestDatabaseTarget;
  let server: TestServer;
  let baseUrl: string;
  let admin: User;
  let member: User;
  const adminSecret = 'sk-Adm1n/"quoted" + spaced é-0123456789';
  const memberSecret = 'ghp_member+secret/with=chars&é 42';
  const logLines: string[] = [];
  const capture =
    (level: string) =>
    (object: Record<string, unknown>, message?: string): void => {
      logLines.push(`${level} ${JSON.stringify(object)} ${message ?? ''}`);
    };
  const logger: ToolportLogger = {
    debug: capture('debug'),
    info: capture('info'),
    warn: capture('warn'),
    error: capture('error'),
  };

  const execute = async (user: User, args: Record<string, unknown>) => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/tools/secret_encodings/execute',
      headers: user.headers,
      payload: { args },
    });
    return { status: response.statusCode, raw: response.body };
  };
  const expectNoTell = (text: string, secret: string): void => {
    for (const tell of secretTells(secret)) expect(text, `leaks ${JSON.stringify(tell)}`).not.toContain(tell);
  };

  beforeAll(async () => {
    target = await createTestDatabase(engine);
    server = await startTestServer(await target.open(), {
      services: { logger },
      plugins: [createMcpEndpointPlugin({ allowedHosts: mcpAllowedHosts('127.0.0.1') })],
    });
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
    const makeUser = async (name: string, isAdmin: boolean): Promise<User> => {
      const { user, token } = await server.services.tokens.createUser(`${name}-${process.pid}`, { isAdmin });
      return { id: user.id, token, headers: { authorization: `Bearer ${token}` } };
    };
    admin = await makeUser('admin', true);
    member = await makeUser('member', false);
    await server.services.secrets.set(admin.id, 'API_KEY', adminSecret);
    await server.services.secrets.set(member.id, 'API_KEY', memberSecret);
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await target?.dispose();
  });

  it('POST /api/tools/:name/execute: every encoding of the caller’s secret is redacted, for both users', async () => {
    for (const [user, secret] of [
      [admin, adminSecret],
      [member, memberSecret],
    ] as const) {
      const { status, raw } = await execute(user, { name: 'API_KEY' });
      expect(status).toBe(200);
      expect(raw).toContain('***');
      expectNoTell(raw, secret);
    }
  });

  it('errors (message and details) are redacted too', async () => {
    const { status, raw } = await execute(member, { name: 'API_KEY', fail: true });
    expect(status).toBeGreaterThanOrEqual(400);
    expect(raw).toContain('upstream rejected');
    expectNoTell(raw, memberSecret);
  });

  it('the tool’s log lines are redacted', async () => {
    logLines.length = 0;
    await execute(admin, { name: 'API_KEY' });
    expect(logLines.join('\n')).toContain('echoing');
    expectNoTell(logLines.join('\n'), adminSecret);
  });

  it("one user's secrets neither redact nor reveal another's: B's value echoed by A stays, A's set applies to A", async () => {
    // The member echoes a text that happens to be the admin's secret: not the member's secret, so not redacted…
    const echoed = await execute(member, { name: 'API_KEY', text: `look: ${adminSecret}` });
    expect(JSON.parse(echoed.raw).result.text).toBe(`look: ${adminSecret}`);
    // …while the member's own secret in the same response is.
    expectNoTell(echoed.raw, memberSecret);
    // A user cannot read another's secret by name: the member's call sees only the member's value.
    const own = await execute(admin, { name: 'API_KEY' });
    expectNoTell(own.raw, memberSecret);
    expectNoTell(own.raw, adminSecret);
  });

  it('/mcp: content, structuredContent, progress and errors carry no encoding of the secret', async () => {
    for (const [user, secret] of [
      [admin, adminSecret],
      [member, memberSecret],
    ] as const) {
      const client = new Client({ name: 'redaction-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
          requestInit: { headers: user.headers },
        }),
      );
      try {
        const progress: string[] = [];
        const result = await client.callTool(
          { name: 'secret_encodings', arguments: { name: 'API_KEY' } },
          undefined,
          { onprogress: (notification) => progress.push(JSON.stringify(notification)) },
        );
        const wire = JSON.stringify(result);
        expect(wire).toContain('***');
        expect(result.structuredContent).toBeDefined();
        expectNoTell(wire, secret);
        expectNoTell(progress.join('\n'), secret);
        const failed = await client.callTool({
          name: 'secret_encodings',
          arguments: { name: 'API_KEY', fail: true },
        });
        expect(failed.isError).toBe(true);
        expectNoTell(JSON.stringify(failed), secret);
      } finally {
        await client.close();
      }
    }
  });
});
