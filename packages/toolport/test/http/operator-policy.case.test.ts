import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolRegistry } from '../../src/core/tool-registry.ts';
import { createMcpEndpointPlugin, mcpAllowedHosts } from '../../src/http/plugins/mcp-endpoint.ts';
import { closeScanWorkers } from '../../src/fs/scan-pool.ts';
import type { ToolportDatabase } from '../../src/persistence/database.ts';
import { loadOperatorPolicy } from '../../src/policy/load-operator-policy.ts';
import { registerBuiltinTools } from '../../src/tools/index.ts';
import { FakeProviderServer } from '../providers/fake-provider-server.ts';
import { scriptStep } from '../providers/scripted-streams.ts';
import { createTestDatabase, TEST_ENGINES, type TestDatabaseTarget } from '../support/test-databases.ts';
import { createTestUser, startTestServer, type TestServer } from '../support/test-server.ts';

type Json = Record<string, unknown> & { error?: { code: string; message: string; policyKey?: string } };
type User = Awaited<ReturnType<typeof createTestUser>>;

const ADMIN_TOKEN = 'tp_admin_token_that_must_never_leak';
const KEY_CONTENT = 'TOP-SECRET-KEY-MATERIAL';

/** A loopback server that must never see a request: it counts what reaches it. */
async function startCanary(): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server: Server = createServer((_request, response) => {
    hits += 1;
    response.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: () => hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// AUTH-2 attacks from issue 9's problem list, through the real API with an admin and a non-admin on the real defaults
// (loadOperatorPolicy with no policy file, plus a workspace root and one allowlisted upstream from the environment).
describe.each(TEST_ENGINES)('AUTH-2 operator policy against the issue 9 attacks on %s', (engine) => {
  let target: TestDatabaseTarget;
  let database: ToolportDatabase;
  let server: TestServer;
  let admin: User;
  let user: User;
  let dataDirectory: string;
  let workspaceRoot: string;
  let project: string;
  let outside: string;
  let canary: Awaited<ReturnType<typeof startCanary>>;
  let upstream: FakeProviderServer;

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
    const isJson = (response.headers['content-type'] ?? '').toString().includes('application/json');
    return {
      status: response.statusCode,
      body: (isJson ? response.json() : {}) as Json,
      raw: response.body,
    };
  };
  const execute = (who: User, toolName: string, args: Record<string, unknown>, chatId?: string) =>
    call('POST', `/api/tools/${toolName}/execute`, who, {
      args,
      ...(chatId === undefined ? {} : { chatId }),
    });
  const expectRefused = (
    response: { status: number; body: Json },
    policyKey: string,
    message: string | RegExp = `policy "${policyKey}"`,
  ) => {
    expect(response.status).toBe(403);
    expect(response.body.error?.code).toBe('permission_denied');
    expect(response.body.error?.message).toMatch(message);
  };
  const newChat = async (who: User, workingDirectory: string) => {
    const created = await call('POST', '/api/chats', who, { workingDirectory });
    expect(created.status).toBe(201);
    return String(created.body.id);
  };

  beforeAll(async () => {
    dataDirectory = realpathSync(mkdtempSync(join(tmpdir(), 'toolport-policy-data-')));
    writeFileSync(join(dataDirectory, 'admin-token'), `${ADMIN_TOKEN}\n`, { mode: 0o600 });
    workspaceRoot = realpathSync(mkdtempSync(join(tmpdir(), 'toolport-policy-ws-')));
    project = join(workspaceRoot, 'project');
    mkdirSync(join(project, 'secret'), { recursive: true });
    writeFileSync(join(project, 'secret', 'key'), `${KEY_CONTENT}\n`);
    outside = realpathSync(mkdtempSync(join(tmpdir(), 'toolport-policy-outside-')));
    canary = await startCanary();
    upstream = await FakeProviderServer.start('127.0.0.2');
    const { policy } = loadOperatorPolicy({
      dataDirectory,
      env: { TOOLPORT_WORKSPACE_ROOTS: workspaceRoot, TOOLPORT_OUTBOUND_ALLOW: '127.0.0.2' },
      cwd: process.cwd(),
    });
    target = await createTestDatabase(engine);
    database = await target.open();
    server = await startTestServer(database, {
      registry: registerBuiltinTools(new ToolRegistry()),
      services: { policy, providerMaxRetries: 0 },
      plugins: [createMcpEndpointPlugin({ allowedHosts: mcpAllowedHosts('127.0.0.1') })],
    });
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    admin = await createTestUser(server.services, 'admin', { isAdmin: true });
    user = await createTestUser(server.services, 'user');
  });
  afterAll(async () => {
    await server?.close();
    await target?.dispose();
    await canary?.close();
    await upstream?.close();
    await closeScanWorkers();
    for (const directory of [dataDirectory, workspaceRoot, outside])
      rmSync(directory, { recursive: true, force: true });
  });

  it('bash stays listed but not allowed for a non-admin, enabling it is refused, and a stored row never runs it', async () => {
    const listed = await call('GET', '/api/settings/tools', user);
    const bash = (listed.body.tools as Json[]).find((tool) => tool.name === 'bash');
    expect(bash).toMatchObject({ enabled: false, policy: { allowed: false } });
    expect((bash?.policy as { reason: string }).reason).toContain('policy "tools.adminOnly"');
    expectRefused(
      await call('PUT', '/api/settings/tools/bash', user, { enabled: true }),
      'tools.adminOnly',
      'policy "tools.adminOnly" does not allow non-admin users to enable bash',
    );
    // A row saved before the policy changed (or written around the API) still gives the user no shell.
    await server.services.repositories.toolSettings.update(user.id, 'bash', () => ({
      enabled: true,
      parameters: {},
    }));
    const attempt = await execute(user, 'bash', { command: `cat ${join(dataDirectory, 'admin-token')}` });
    expect(attempt.status).toBeGreaterThanOrEqual(400);
    expect(attempt.raw).not.toContain(ADMIN_TOKEN);
    const chatId = String((await call('POST', '/api/chats', user, {})).body.id);
    const inspector = await call('GET', `/api/chats/${chatId}/capabilities`, user);
    expect(inspector.status).toBe(200);
    expect(inspector.raw).toContain('"read_file"');
    expect(inspector.raw).not.toContain('"bash"');
  });

  it('keeps the quick start for the local admin: bash, any working directory, a stdio MCP server', async () => {
    expect((await call('PUT', '/api/settings/tools/bash', admin, { enabled: true })).status).toBe(200);
    const ran = await execute(admin, 'bash', { command: 'echo quick-start' });
    expect(ran.status).toBe(200);
    expect(JSON.stringify(ran.body.result)).toContain('quick-start');
    expect((await call('POST', '/api/chats', admin, { workingDirectory: outside })).status).toBe(201);
    const added = await call('POST', '/api/mcp-servers', admin, {
      name: 'admin-stdio',
      transport: 'stdio',
      config: { command: process.execPath, args: ['--version'] },
      enabled: false,
    });
    expect(added.status).toBe(201);
  });

  it('refuses environmentAllowlist names that carry credentials, for admins too', async () => {
    for (const names of [['TOOLPORT_SECRET_KEY'], ['OPENAI_API_KEY'], ['DATABASE_URL'], ['GITHUB_TOKEN']]) {
      expectRefused(
        await call('PUT', '/api/settings/tools/bash', admin, { parameters: { environmentAllowlist: names } }),
        'childEnvironment.deniedNames',
      );
    }
    const harmless = await call('PUT', '/api/settings/tools/bash', admin, {
      parameters: { environmentAllowlist: ['LANG'] },
    });
    expect(harmless.status).toBe(200);
  });

  it("refuses a non-admin's stdio MCP server; a stored one never spawns when the tool list is read", async () => {
    const marker = join(outside, 'spawned-by-mcp');
    const evil = { command: 'sh', args: ['-c', `touch ${marker}`] };
    expectRefused(
      await call('POST', '/api/mcp-servers', user, { name: 'evil', transport: 'stdio', config: evil }),
      'mcp.stdio',
    );
    // Disabled at first, then enabling is refused too.
    expectRefused(
      await call('POST', '/api/mcp-servers', user, {
        name: 'evil',
        transport: 'stdio',
        config: evil,
        enabled: false,
      }),
      'mcp.stdio',
    );
    const stored = await server.services.repositories.mcpServers.create(user.id, {
      name: 'evil',
      transport: 'stdio',
      config: evil,
      enabled: true,
    });
    expectRefused(await call('PATCH', `/api/mcp-servers/${stored.id}`, user, { enabled: true }), 'mcp.stdio');
    expect((await call('GET', '/api/settings/tools', user)).status).toBe(200);
    const listed = await call('GET', '/api/mcp-servers', user);
    expect(JSON.stringify(listed.body)).toContain('policy \\"mcp.stdio\\"');
    const chatId = String((await call('POST', '/api/chats', user, {})).body.id);
    expect((await call('GET', `/api/chats/${chatId}/capabilities`, user)).status).toBe(200);
    expect(existsSync(marker)).toBe(false);
    // Switching it off is always allowed.
    expect((await call('PATCH', `/api/mcp-servers/${stored.id}`, user, { enabled: false })).status).toBe(200);
  });

  it('denies /proc/self/environ and the data directory to every filesystem tool, admins included', async () => {
    for (const who of [admin, user]) {
      const environ = await execute(who, 'read_file', { path: '/proc/self/environ', view: 'base64' });
      expect(environ.status).toBe(403);
      expect(environ.raw).not.toContain('TOOLPORT');
    }
    const token = await execute(admin, 'read_file', { path: join(dataDirectory, 'admin-token') });
    expect(token.status).toBe(403);
    expect(token.raw).not.toContain(ADMIN_TOKEN);
    expect((await execute(admin, 'list_directory', { path: dataDirectory })).status).toBe(403);
    const chatId = await newChat(user, project);
    expect(
      (await execute(user, 'read_file', { path: '/proc/self/environ', view: 'base64' }, chatId)).status,
    ).toBe(403);
    // Nobody binds a working directory inside a denied path.
    expectRefused(
      await call('POST', '/api/chats', admin, { workingDirectory: dataDirectory }),
      'deniedPaths',
    );
  });

  it("confines a non-admin's file tools to the chat's working directory, and refuses them without one", async () => {
    const passwd = await execute(user, 'read_file', { path: '/etc/passwd' });
    expectRefused(passwd, 'files.confineUsers', /PATCH \/api\/chats\/<chatId> \{"workingDirectory"/);
    const stray = join(outside, 'written-by-user.txt');
    expectRefused(await execute(user, 'write_file', { path: stray, content: 'x' }), 'files.confineUsers');
    expect(existsSync(stray)).toBe(false);

    expectRefused(await call('POST', '/api/chats', user, { workingDirectory: outside }), 'workspaceRoots');
    const chatId = await newChat(user, project);
    const written = await execute(user, 'write_file', { path: 'notes.txt', content: 'inside\n' }, chatId);
    expect(written.status).toBe(200);
    expect(existsSync(join(project, 'notes.txt'))).toBe(true);
    expect((await execute(user, 'read_file', { path: '/etc/passwd' }, chatId)).status).toBe(403);
    // A symlink inside the working directory that leads out is decided on its real path: outside.
    writeFileSync(join(outside, 'beyond.txt'), 'beyond\n');
    symlinkSync(outside, join(project, 'link-out'));
    const viaLink = await execute(user, 'read_file', { path: 'link-out/beyond.txt' }, chatId);
    expect(viaLink.status).toBe(403);
    expect(viaLink.raw).not.toContain('beyond\\n');
    expect((await execute(user, 'write_file', { path: stray, content: 'x' }, chatId)).status).toBe(403);
    expect(existsSync(stray)).toBe(false);

    // PATCH binds under the same rules.
    expectRefused(
      await call('PATCH', `/api/chats/${chatId}`, user, { workingDirectory: outside }),
      'workspaceRoots',
    );
    const unbound = await call('PATCH', `/api/chats/${chatId}`, user, { workingDirectory: null });
    expect(unbound.body).toMatchObject({ workingDirectory: null });
    expectRefused(await execute(user, 'read_file', { path: 'notes.txt' }, chatId), 'files.confineUsers');
    const rebound = await call('PATCH', `/api/chats/${chatId}`, user, {
      workingDirectory: project,
      mode: 'agent',
    });
    expect(rebound.body).toMatchObject({ workingDirectory: project, mode: 'agent' });
    expect((await execute(user, 'read_file', { path: 'notes.txt' }, chatId)).status).toBe(200);
  });

  it('refuses a hard link to a denied file in read_file and grep (ln ws/secret/key ws/hard)', async () => {
    linkSync(join(project, 'secret', 'key'), join(project, 'hard'));
    linkSync(join(dataDirectory, 'admin-token'), join(project, 'hard-token'));
    for (const tool of ['read_file', 'grep']) {
      const denied = await call('PUT', `/api/settings/tools/${tool}`, user, {
        parameters: { deniedPaths: [join(project, 'secret')] },
      });
      expect(denied.status).toBe(200);
    }
    const chatId = await newChat(user, project);
    for (const path of ['hard', 'hard-token']) {
      expectRefused(await execute(user, 'read_file', { path }, chatId), 'files.allowHardLinks');
      const grepped = await execute(user, 'grep', { pattern: 'SECRET|tp_admin', path }, chatId);
      expectRefused(grepped, 'files.allowHardLinks');
    }
    const walk = await execute(user, 'grep', { pattern: 'SECRET|tp_admin' }, chatId);
    expect(walk.status).toBe(200);
    expect(walk.body.result).toMatchObject({ matches: [] });
    expect(walk.raw).not.toContain(KEY_CONTENT);
    expect(walk.raw).not.toContain(ADMIN_TOKEN);
    const asAdmin = await execute(admin, 'read_file', { path: join(project, 'hard-token') });
    expectRefused(asAdmin, 'files.allowHardLinks');
    expect(asAdmin.raw).not.toContain(ADMIN_TOKEN);
  });

  it("holds a non-admin's provider baseUrl to NET-1: loopback and metadata refused unsent, the allowlist works", async () => {
    const refusedUrls = [
      `${canary.url}/v1`,
      'http://169.254.169.254/v1',
      `http://localhost:${new URL(canary.url).port}/v1`,
    ];
    for (const baseUrl of refusedUrls) {
      expectRefused(
        await call('POST', '/api/providers', user, {
          name: 'local',
          provider: 'openai-chat',
          baseUrl,
          defaultModel: 'm',
        }),
        'providers.checkUserBaseUrls',
      );
    }
    const allowed = await call('POST', '/api/providers', user, {
      name: 'allowlisted',
      provider: 'openai-chat',
      baseUrl: upstream.baseURLFor('openai-chat'),
      defaultModel: 'm',
    });
    expect(allowed.status).toBe(201);
    expectRefused(
      await call('PATCH', `/api/providers/${String(allowed.body.id)}`, user, { baseUrl: `${canary.url}/v1` }),
      'providers.checkUserBaseUrls',
    );
    const chatId = String((await call('POST', '/api/chats', user, {})).body.id);
    upstream.enqueue(
      'openai-chat',
      scriptStep('openai-chat', { text: 'hello from the allowlisted upstream' }),
    );
    const turn = await call('POST', `/api/chats/${chatId}/turns`, user, {
      message: 'hi',
      provider: 'allowlisted',
    });
    expect(turn.status).toBe(200);
    expect(turn.raw).toContain('"delta":"hello from t"');
    expect(turn.raw).toContain('event: turn_completed');
    expect(upstream.requests.length).toBeGreaterThan(0);

    // A row that points at loopback (stored before the policy, or a name that rebinds after the check) is stopped at
    // connect time by the safe fetch the SDK was given.
    await server.services.repositories.providerConfigs.create(user.id, {
      name: 'rebound',
      provider: 'openai-chat',
      baseUrl: `${canary.url}/v1`,
      defaultModel: 'm',
      apiKeySecret: null,
    });
    const blocked = await call('POST', `/api/chats/${chatId}/turns`, user, {
      message: 'hi',
      provider: 'rebound',
    });
    expect(blocked.raw).toContain('event: error');
    expect(blocked.raw).toContain('Refused to connect to 127.0.0.1');
    expect(blocked.raw).not.toContain('event: text_delta');
    expect(canary.hits()).toBe(0);

    // Admins' provider configs are the operator's: unrestricted.
    const adminConfig = await call('POST', '/api/providers', admin, {
      name: 'local',
      provider: 'openai-chat',
      baseUrl: `${canary.url}/v1`,
      defaultModel: 'm',
    });
    expect(adminConfig.status).toBe(201);
    expect(canary.hits()).toBe(0);
  });

  it('holds /mcp and chat turns to the same policy: no shell, file tools confined', async () => {
    const other = await createTestUser(server.services, 'mcp-user');
    await server.services.repositories.toolSettings.update(other.id, 'bash', () => ({
      enabled: true,
      parameters: {},
    }));
    const port = (server.app.server.address() as AddressInfo).port;
    const client = new Client({ name: 'policy-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${other.token}` } },
      }),
    );
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('read_file');
      expect(names).not.toContain('bash');
      const read = await client.callTool({ name: 'read_file', arguments: { path: '/etc/passwd' } });
      expect(read.isError).toBe(true);
      expect(JSON.stringify(read.content)).toContain('files.confineUsers');
      expect(JSON.stringify(read.content)).not.toContain('root:');
    } finally {
      await client.close();
    }

    const provider = await call('POST', '/api/providers', other, {
      name: 'upstream',
      provider: 'openai-chat',
      baseUrl: upstream.baseURLFor('openai-chat'),
      defaultModel: 'm',
    });
    expect(provider.status).toBe(201);
    const chatId = await newChat(other, project);
    const since = upstream.requests.length;
    upstream.enqueue(
      'openai-chat',
      scriptStep('openai-chat', {
        toolCalls: [
          {
            id: 'c1',
            name: 'read_file',
            arguments: JSON.stringify({ path: '/proc/self/environ', view: 'base64' }),
          },
          { id: 'c2', name: 'bash', arguments: JSON.stringify({ command: 'env' }) },
        ],
      }),
    );
    upstream.enqueue('openai-chat', scriptStep('openai-chat', { text: 'done' }));
    const turn = await call('POST', `/api/chats/${chatId}/turns`, other, { message: 'leak it' });
    expect(turn.status).toBe(200);
    const results = turn.raw
      .split('\n')
      .filter((line) => line.startsWith('data: {"type":"tool_result"'))
      .map((line) => JSON.parse(line.slice('data: '.length)) as { name: string; error?: { code: string } });
    expect(results.map((result) => [result.name, result.error?.code]).sort()).toEqual([
      ['bash', 'not_found'],
      ['read_file', 'permission_denied'],
    ]);
    // The model was offered no shell.
    const offered = JSON.stringify(upstream.requests[since]?.body.tools ?? []);
    expect(offered).toContain('read_file');
    expect(offered).not.toContain('"bash"');
  });

  it('shows the effective policy to admins only', async () => {
    const shown = await call('GET', '/api/policy', admin);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ workspaceRoots: [workspaceRoot], outboundAllow: '127.0.0.2' });
    expect(shown.body.deniedPaths).toEqual(expect.arrayContaining(['/proc', '/sys', '/dev', dataDirectory]));
    expectRefused(await call('GET', '/api/policy', user), 'policy', /Only admins/);
  });
});

describe('AUTH-2 policy file: tools that do not exist, remote MCP for admins only', () => {
  let target: TestDatabaseTarget;
  let server: TestServer;
  let admin: User;
  let user: User;
  let directory: string;

  beforeAll(async () => {
    directory = realpathSync(mkdtempSync(join(tmpdir(), 'toolport-policy-file-')));
    writeFileSync(
      join(directory, 'policy.json'),
      JSON.stringify({ tools: { disabled: ['glob'] }, mcp: { remote: 'admins' } }),
    );
    const { policy, source } = loadOperatorPolicy({ dataDirectory: directory, env: {}, cwd: directory });
    expect(source).toBe(join(directory, 'policy.json'));
    target = await createTestDatabase('sqlite');
    server = await startTestServer(await target.open(), {
      registry: registerBuiltinTools(new ToolRegistry()),
      services: { policy },
    });
    admin = await createTestUser(server.services, 'admin', { isAdmin: true });
    user = await createTestUser(server.services, 'user');
  });
  afterAll(async () => {
    await server?.close();
    await target?.dispose();
    rmSync(directory, { recursive: true, force: true });
  });

  it('removes tools.disabled tools for everyone: not listed, not settable, not executable', async () => {
    const inject = (method: 'GET' | 'PUT' | 'POST', url: string, who: User, payload?: object) =>
      server.app.inject({ method, url, headers: who.headers, ...(payload === undefined ? {} : { payload }) });
    const listed = (await inject('GET', '/api/settings/tools', admin)).json() as {
      tools: { name: string }[];
    };
    expect(listed.tools.map((tool) => tool.name)).not.toContain('glob');
    expect(listed.tools.map((tool) => tool.name)).toContain('grep');
    expect((await inject('PUT', '/api/settings/tools/glob', admin, { enabled: true })).statusCode).toBe(404);
    expect(
      (await inject('POST', '/api/tools/glob/execute', admin, { args: { pattern: '*' } })).statusCode,
    ).toBe(404);
    const remote = await inject('POST', '/api/mcp-servers', user, {
      name: 'remote',
      transport: 'http',
      config: { url: 'https://mcp.example.com/mcp' },
    });
    expect(remote.statusCode).toBe(403);
    expect(remote.json()).toMatchObject({ error: { code: 'permission_denied' } });
    expect((remote.json() as Json).error?.message).toContain('policy "mcp.remote"');
    const asAdmin = await inject('POST', '/api/mcp-servers', admin, {
      name: 'remote',
      transport: 'http',
      config: { url: 'https://mcp.example.com/mcp' },
      enabled: false,
    });
    expect(asAdmin.statusCode).toBe(201);
  });
});
