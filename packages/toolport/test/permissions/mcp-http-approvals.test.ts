import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpEndpointPlugin, mcpAllowedHosts } from '../../src/http/plugins/mcp-endpoint.ts';
import { migrateDatabase, openDatabase, type ToolportDatabase } from '../../src/persistence/database.ts';
import { createTestUser, startTestServer, type TestServer } from '../support/test-server.ts';

type User = Awaited<ReturnType<typeof createTestUser>>;
type Answer = { action: 'accept' | 'decline'; content?: Record<string, unknown> };

/*
 * Issue 16 over the real, SDK-free `/mcp` (Streamable HTTP, stateless): an `ask` call's `elicitation/create` goes out
 * on the call's SSE stream and the SDK client's answer comes back as a later POST; a client without the capability is
 * refused; "always" writes the caller's allow rule.
 */
describe('issue 16 MCP approval over /mcp (toolport serve)', () => {
  let directory: string;
  let database: ToolportDatabase;
  let server: TestServer;
  let alice: User;
  let bob: User;

  const settings = async (who: User, toolName: string, body?: object) =>
    (
      await server.app.inject({
        method: body === undefined ? 'GET' : 'PUT',
        url: `/api/settings/tools/${toolName}`,
        headers: who.headers,
        ...(body === undefined ? {} : { payload: body }),
      })
    ).json() as Record<string, unknown>;

  const connect = async (who: User, elicitation: boolean, answers: Answer[], asked: string[]) => {
    const port = (server.app.server.address() as AddressInfo).port;
    const client = new Client(
      { name: 'approval-test', version: '1.0.0' },
      { capabilities: elicitation ? { elicitation: {} } : {} },
    );
    if (elicitation) {
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        asked.push(request.params.message);
        return answers.shift() ?? { action: 'decline' };
      });
    }
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
        requestInit: { headers: who.headers },
      }),
    );
    const datetime = async () => {
      const result = await client.callTool({ name: 'get_current_datetime', arguments: {} });
      return { isError: result.isError === true, text: JSON.stringify(result.content) };
    };
    return { client, datetime };
  };

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'toolport-mcp-http-approvals-'));
    database = openDatabase(`sqlite:${join(directory, 'toolport.db')}`);
    await migrateDatabase(database);
    server = await startTestServer(database, {
      plugins: [createMcpEndpointPlugin({ allowedHosts: mcpAllowedHosts('127.0.0.1') })],
    });
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    alice = await createTestUser(server.services, 'alice');
    bob = await createTestUser(server.services, 'bob');
    for (const who of [alice, bob]) await settings(who, 'get_current_datetime', { permission: 'ask' });
  });
  afterAll(async () => {
    await server.close();
    await database.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('a client with elicitation is asked on the call’s stream: decline refuses, accept runs, always writes the rule', async () => {
    const asked: string[] = [];
    const { client, datetime } = await connect(
      alice,
      true,
      [{ action: 'decline' }, { action: 'accept' }, { action: 'accept', content: { always: true } }],
      asked,
    );
    try {
      const declined = await datetime();
      expect(declined.isError).toBe(true);
      expect(declined.text).toContain('permission_denied');
      expect(declined.text).toContain('declined');
      const accepted = await datetime();
      expect(accepted.isError).toBe(false);
      expect(asked).toHaveLength(2);
      expect(asked[0]).toContain('get_current_datetime');
      expect(asked[0]).toContain('"ask"');

      expect((await datetime()).isError).toBe(false);
      expect(asked).toHaveLength(3);
      // "always" became alice's allow rule for exactly this tool; the next call runs unasked.
      expect((await settings(alice, 'get_current_datetime')).permission).toEqual({
        '*': 'ask',
        get_current_datetime: 'allow',
      });
      expect((await datetime()).isError).toBe(false);
      expect(asked).toHaveLength(3);
      // Bob's rule is his own.
      expect((await settings(bob, 'get_current_datetime')).permission).toBe('ask');
    } finally {
      await client.close();
    }
  });

  it('a client without elicitation gets a clear refusal, never a silent run', async () => {
    const { client, datetime } = await connect(bob, false, [], []);
    try {
      const refused = await datetime();
      expect(refused.isError).toBe(true);
      expect(refused.text).toContain('permission_denied');
      expect(refused.text).toContain('does not support elicitation');
    } finally {
      await client.close();
    }
  });
});
