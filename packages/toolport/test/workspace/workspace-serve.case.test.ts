import { readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpEndpointPlugin } from '../../src/http/plugins/mcp-endpoint.ts';
import type { ToolportDatabase } from '../../src/persistence/database.ts';
import { DEFAULT_OPERATOR_POLICY } from '../../src/policy/operator-policy.ts';
import { FakeProviderServer } from '../providers/fake-provider-server.ts';
import { scriptStep } from '../providers/scripted-streams.ts';
import { createTestDatabase, TEST_ENGINES, type TestDatabaseTarget } from '../support/test-databases.ts';
import { createTestUser, startTestServer, type TestServer } from '../support/test-server.ts';
import {
  CREATE_TICKET_TOOL,
  createTicketScript,
  createWorkspace,
  startLoopbackServices,
  writeWorkspace,
} from './workspace-fixtures.ts';

type Json = Record<string, unknown> & { error?: { code: string; message: string } };
const TICKET_KEY = 'tk-live-9f8e7d6c5b4a';
const LOOPBACK = { outboundAllowlist: { cidrs: ['127.0.0.1/32'] } };

async function waitUntil(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function sha256Of(directory: string): string {
  return createHash('sha256')
    .update(readFileSync(join(directory, 'tools.json')))
    .digest('hex');
}

describe.each(TEST_ENGINES)('WS-1 workspace tools in serve on %s', (engine) => {
  let target: TestDatabaseTarget;
  let database: ToolportDatabase;
  let server: TestServer;
  let loopback: Awaited<ReturnType<typeof startLoopbackServices>>;
  let alice: Awaited<ReturnType<typeof createTestUser>>;
  let bob: Awaited<ReturnType<typeof createTestUser>>;
  let workspace: string;
  let tools: unknown[];
  let aliceChat: string;
  let fake: FakeProviderServer;

  const call = async (
    method: 'GET' | 'PUT' | 'POST',
    url: string,
    who: { headers: object },
    payload?: unknown,
  ) => {
    const response = await server.app.inject({
      method,
      url,
      headers: who.headers as Record<string, string>,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: response.statusCode, body: response.json() as Json, raw: response.body };
  };
  const execute = (who: { headers: object }, chatId: string, name: string, args: object = {}) =>
    call('POST', `/api/tools/${name}/execute`, who, { chatId, args });
  const newChat = async (who: { headers: object }) =>
    (await call('POST', '/api/chats', who, { workingDirectory: workspace, mode: 'agent' })).body.id as string;

  beforeAll(async () => {
    loopback = await startLoopbackServices();
    fake = await FakeProviderServer.start();
    target = await createTestDatabase(engine);
    database = await target.open();
    server = await startTestServer(database, { mcp: LOOPBACK, plugins: [createMcpEndpointPlugin()] });
    alice = await createTestUser(server.services, 'alice');
    bob = await createTestUser(server.services, 'bob');
    tools = [
      CREATE_TICKET_TOOL,
      { ...CREATE_TICKET_TOOL, name: 'leaky-ticket', script: 'scripts/leaky.js' },
      { name: 'read-secret', description: 'Reads a secret', script: 'scripts/read-secret.js' },
      { name: 'spin', description: 'Loops', script: 'scripts/spin.js' },
      { name: 'hog', description: 'Allocates', script: 'scripts/hog.js' },
    ];
    workspace = createWorkspace(tools, {
      'create-ticket.js': createTicketScript(`${loopback.url}/tickets`),
      // Tries every way to see the key: the response body and headers (the server echoes it), and logs them.
      'leaky.js': `async function main() {
        const response = await g.http.makeHttpRequest({ url: ${JSON.stringify(`${loopback.url}/tickets`)}, method: "POST", body: "{}",
          headers: { Authorization: "Bearer script-chosen" } });
        console.log(JSON.stringify(response));
        return { response, args: g.tool.args };
      }`,
      'read-secret.js':
        'async function main() { const value = await g.secrets.getSecret("TICKETING_API_KEY"); console.log(value); return { value }; }',
      'spin.js': '// @timeout 1\nasync function main() { for (;;) {} }',
      'hog.js': 'async function main() { const keep = []; for (;;) keep.push(new Array(1 << 20).fill(1)); }',
    });
    await call('PUT', '/api/secrets/TICKETING_API_KEY', alice, { value: TICKET_KEY });
    aliceChat = await newChat(alice);
  });
  afterAll(async () => {
    await server?.close();
    await target?.dispose();
    await loopback?.close();
    await fake?.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  it('lists a new tools.json as untrusted, and its tools do not run until the user trusts that exact file', async () => {
    const listed = await call('GET', '/api/workspace-trust', alice);
    expect(listed.body.workspaces).toEqual([
      expect.objectContaining({
        directory: workspace,
        trusted: false,
        sha256: null,
        currentSha256: sha256Of(workspace),
      }),
    ]);
    const refused = await execute(alice, aliceChat, 'create-ticket', { title: 'a', body: 'b' });
    expect(refused.status).toBe(403);
    expect(refused.body.error?.code).toBe('permission_denied');
    expect(refused.body.error?.message).toContain('not trusted');
    expect(loopback.requests).toHaveLength(0);

    const wrongHash = await call('POST', '/api/workspace-trust', alice, {
      directory: workspace,
      sha256: '0'.repeat(64),
    });
    expect(wrongHash.status).toBe(409);
    const trusted = await call('POST', '/api/workspace-trust', alice, {
      directory: workspace,
      sha256: sha256Of(workspace),
    });
    expect(trusted.status).toBe(200);
    expect(trusted.body).toMatchObject({
      directory: workspace,
      trusted: true,
      tools: tools.map((tool) => (tool as { name: string }).name),
    });
  });

  it("runs the seed's create-ticket with the key from the store, never visible to the script, the result or the logs", async () => {
    const before = loopback.requests.length;
    const outcome = await execute(alice, aliceChat, 'create-ticket', {
      title: 'Printer',
      body: 'On fire',
      priority: 'high',
    });
    expect(outcome.status).toBe(200);
    expect(outcome.body.result).toEqual({ ticketId: 'T-1', url: `${loopback.url}/tickets/T-1` });
    const sent = loopback.requests[before]!;
    expect(sent.headers.authorization).toBe(`Bearer ${TICKET_KEY}`);
    expect(sent.headers['content-type']).toBe('application/json');
    expect(JSON.parse(sent.body)).toEqual({ title: 'Printer', body: 'On fire', priority: 'high' });

    const leaky = await execute(alice, aliceChat, 'leaky-ticket', { title: 't', body: 'b' });
    expect(leaky.status).toBe(200);
    // The tool's header wins over the script's own Authorization; the echoed key is masked before the script sees it.
    expect(loopback.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TICKET_KEY}`);
    expect(leaky.raw).not.toContain(TICKET_KEY);
    expect(leaky.body.logs).toContain('"status":201');
    expect(leaky.body.logs).not.toContain(TICKET_KEY);
  });

  it('g.secrets works under origin api and the value is redacted from result and logs, raw or encoded', async () => {
    const outcome = await execute(alice, aliceChat, 'read-secret');
    expect(outcome.status).toBe(200);
    expect((outcome.body.result as { value: string }).value).toBe('***');
    const base64 = Buffer.from(`user:${TICKET_KEY}`).toString('base64');
    expect(base64.length).toBeGreaterThan(20);
    for (const leaked of [TICKET_KEY, encodeURIComponent(`${TICKET_KEY}/`), base64, base64.slice(8, 24)]) {
      expect(outcome.raw).not.toContain(leaked);
    }
    expect(outcome.body.logs).toContain('***');
  });

  it('a looping or allocating script gets a clear error and the server keeps serving', async () => {
    const spin = await execute(alice, aliceChat, 'spin');
    expect(spin.status).toBe(504);
    expect(spin.body.error?.code).toBe('timeout');
    const hog = await execute(alice, aliceChat, 'hog');
    expect(hog.status).toBe(500);
    expect(hog.body.error?.message).toContain('memory limit');
    expect((await server.app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
    expect((await execute(alice, aliceChat, 'create-ticket', { title: 'x', body: 'y' })).status).toBe(200);
  });

  it('shows workspace tools in the settings API (source workspace) with per-user enable/disable', async () => {
    const list = await call('GET', '/api/settings/tools', alice);
    const entry = (list.body.tools as { name: string; source: string }[]).find(
      (tool) => tool.name === 'create-ticket',
    );
    expect(entry).toMatchObject({ source: 'workspace', enabled: true });
    expect((await call('PUT', '/api/settings/tools/spin', alice, { enabled: false })).status).toBe(200);
    const disabled = await execute(alice, aliceChat, 'spin');
    expect(disabled.body.error?.code).toBe('disabled');
  });

  it('a chat turn offers the workspace tools to the model and runs them with origin chat', async () => {
    await call('PUT', '/api/secrets/KEY_CHAT', alice, { value: 'sk-alice-chat-provider' });
    const provider = await call('POST', '/api/providers', alice, {
      name: 'fake-chat',
      provider: 'openai-chat',
      baseUrl: fake.baseURLFor('openai-chat'),
      defaultModel: 'test-model',
      apiKeySecret: 'KEY_CHAT',
    });
    expect(provider.status).toBe(201);
    const since = fake.requests.length;
    fake.enqueue(
      'openai-chat',
      scriptStep('openai-chat', {
        toolCalls: [
          { id: 'call_ticket', name: 'create-ticket', arguments: '{"title":"From chat","body":"turn"}' },
          { id: 'call_secret', name: 'read-secret', arguments: '{}' },
        ],
      }),
    );
    fake.enqueue('openai-chat', scriptStep('openai-chat', { text: 'Filed.' }));
    const response = await server.app.inject({
      method: 'POST',
      url: `/api/chats/${aliceChat}/turns`,
      headers: alice.headers,
      payload: { message: 'file a ticket', provider: 'fake-chat' },
    });
    expect(response.statusCode).toBe(200);
    const requests = fake.requests.slice(since);
    const offered = JSON.stringify(requests[0]?.body.tools);
    expect(offered).toContain('create-ticket');
    expect(offered).not.toContain('TICKETING_API_KEY');
    const followUp = JSON.stringify(requests[1]?.body.messages);
    expect(followUp).toContain('T-1');
    // g.secrets runs under origin chat; the value reaches neither the model nor the stream.
    expect(followUp).toContain('***');
    expect(followUp).not.toContain(TICKET_KEY);
    expect(response.body).not.toContain(TICKET_KEY);
  });

  it('the capability inspector shows what a provider receives for the chat, workspace tools included', async () => {
    const inspected = await call('GET', `/api/chats/${aliceChat}/capabilities?provider=anthropic`, alice);
    expect(inspected.status).toBe(200);
    const tool = (inspected.body.tools as { name: string; source: string; wire: unknown }[]).find(
      (candidate) => candidate.name === 'create-ticket',
    );
    expect(tool).toMatchObject({ source: 'workspace' });
    expect(JSON.stringify(tool?.wire)).toContain('Ticket title');
    expect(JSON.stringify(inspected.body)).not.toContain('TICKETING_API_KEY');
  });

  it("trust is per user: bob's chat in the same directory does not run alice's trusted file", async () => {
    const bobChat = await newChat(bob);
    const outcome = await execute(bob, bobChat, 'read-secret');
    expect(outcome.status).toBe(403);
    expect(outcome.body.error?.message).toContain('not trusted');
  });

  it('/mcp?workspace= serves the meta-tools and script tools with origin mcp; a reload and a file change send list_changed', async () => {
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (server.app.server.address() as AddressInfo).port;
    const client = new Client({ name: 'ws-test', version: '1.0.0' });
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed += 1;
    });
    await client.connect(
      new StreamableHTTPClientTransport(
        new URL(`http://127.0.0.1:${port}/mcp?workspace=${encodeURIComponent(workspace)}`),
        {
          requestInit: { headers: alice.headers },
        },
      ),
    );
    try {
      expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(
        expect.arrayContaining([
          'GetWorkspaceTools',
          'ExecuteWorkspaceTool',
          'ReloadWorkspaceTools',
          'create-ticket',
        ]),
      );
      const listing = await client.callTool({ name: 'GetWorkspaceTools', arguments: {} });
      expect(JSON.stringify(listing)).not.toContain('TICKETING_API_KEY');
      expect(JSON.stringify(listing)).not.toContain('Bearer');
      const blocked = await client.callTool({
        name: 'ExecuteWorkspaceTool',
        arguments: { name: 'read-secret' },
      });
      expect(blocked.isError).toBe(true);
      expect(JSON.stringify(blocked.content)).toContain('origin mcp');
      const ticket = await client.callTool({ name: 'create-ticket', arguments: { title: 'm', body: 'c' } });
      expect(ticket.structuredContent).toEqual({ ticketId: 'T-1', url: `${loopback.url}/tickets/T-1` });
      // The SDK client keeps /mcp's GET stream open: ReloadWorkspaceTools announces the new set there.
      writeWorkspace(workspace, [
        ...tools,
        { name: 'added-later', description: 'new', script: 'scripts/spin.js' },
      ]);
      await call('POST', '/api/workspace-trust', alice, {
        directory: workspace,
        sha256: sha256Of(workspace),
      });
      const reloaded = await client.callTool({ name: 'ReloadWorkspaceTools', arguments: {} });
      expect(reloaded.isError ?? false).toBe(false);
      await waitUntil(() => changed >= 1, 'list_changed after ReloadWorkspaceTools');
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('added-later');
      // The file watcher: an edit alone (no reload call) announces the change too.
      const before = changed;
      writeWorkspace(workspace, tools);
      await waitUntil(() => changed > before, 'list_changed after tools.json changed on disk');
      expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('added-later');
      await call('POST', '/api/workspace-trust', alice, {
        directory: workspace,
        sha256: sha256Of(workspace),
      });
    } finally {
      await client.close();
    }
    const foreign = await fetch(`http://127.0.0.1:${port}/mcp?workspace=${encodeURIComponent(workspace)}`, {
      method: 'POST',
      headers: {
        ...bob.headers,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(foreign.status).toBe(403);
    // Nor may bob follow alice's trusted workspace on the GET stream.
    const foreignStream = await fetch(
      `http://127.0.0.1:${port}/mcp?workspace=${encodeURIComponent(workspace)}`,
      { headers: { ...bob.headers, accept: 'text/event-stream' } },
    );
    expect(foreignStream.status).toBe(403);
    expect(JSON.stringify(await foreignStream.json())).toContain('not one of your trusted workspaces');
  });

  it('a changed tools.json is untrusted again and does not run', async () => {
    writeWorkspace(workspace, [...tools, { name: 'extra', description: 'new', script: 'scripts/spin.js' }]);
    const listed = await call('GET', '/api/workspace-trust', alice);
    expect(listed.body.workspaces).toEqual([
      expect.objectContaining({ directory: workspace, trusted: false }),
    ]);
    const outcome = await execute(alice, aliceChat, 'create-ticket', { title: 'x', body: 'y' });
    expect(outcome.status).toBe(403);
    expect(outcome.body.error?.message).toContain('changed since you trusted it');
  });
});

describe('WS-1 operator policy customTools.workspace', () => {
  let target: TestDatabaseTarget;
  let server: TestServer;
  let workspace: string;

  beforeAll(async () => {
    target = await createTestDatabase('sqlite');
    server = await startTestServer(await target.open(), {
      services: {
        policy: {
          ...DEFAULT_OPERATOR_POLICY,
          customTools: { ...DEFAULT_OPERATOR_POLICY.customTools, workspace: 'admins' },
          // Non-admins may bind chats under the temp dir, so the refusal tested is customTools.workspace's.
          workspaceRoots: [realpathSync(tmpdir())],
        },
      },
    });
    workspace = createWorkspace([{ name: 'hello', description: 'Says hello', script: 'scripts/hello.js' }], {
      'hello.js': 'async function main() { return "hello"; }',
    });
  });
  afterAll(async () => {
    await server?.close();
    await target?.dispose();
    rmSync(workspace, { recursive: true, force: true });
  });

  it('refuses a non-admin with 403 permission_denied naming the key; an admin may trust and run', async () => {
    const user = await createTestUser(server.services, 'plain');
    const { token } = await server.services.tokens.createUser(`boss-${process.pid}`, { isAdmin: true });
    const admin = { authorization: `Bearer ${token}` };
    const body = { directory: workspace, sha256: sha256Of(workspace) };
    const refused = await server.app.inject({
      method: 'POST',
      url: '/api/workspace-trust',
      headers: user.headers,
      payload: body,
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ error: { code: 'permission_denied' } });
    expect(refused.json().error.message).toContain('customTools.workspace');

    const userChat = await server.app.inject({
      method: 'POST',
      url: '/api/chats',
      headers: user.headers,
      payload: { workingDirectory: workspace, mode: 'agent' },
    });
    const run = await server.app.inject({
      method: 'POST',
      url: '/api/tools/hello/execute',
      headers: user.headers,
      payload: { chatId: userChat.json().id },
    });
    expect(run.statusCode).toBe(403);
    expect(run.json().error.message).toContain('customTools.workspace');

    expect(
      (
        await server.app.inject({
          method: 'POST',
          url: '/api/workspace-trust',
          headers: admin,
          payload: body,
        })
      ).statusCode,
    ).toBe(200);
    const adminChat = await server.app.inject({
      method: 'POST',
      url: '/api/chats',
      headers: admin,
      payload: { workingDirectory: workspace, mode: 'agent' },
    });
    const ran = await server.app.inject({
      method: 'POST',
      url: '/api/tools/hello/execute',
      headers: admin,
      payload: { chatId: adminChat.json().id },
    });
    expect(ran.json()).toMatchObject({ result: 'hello' });
  });
});
