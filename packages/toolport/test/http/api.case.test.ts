import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/core/tool-registry.ts';
import { defineTool } from '../../src/core/tool-types.ts';
import type { ToolportDatabase } from '../../src/persistence/database.ts';
import { createTestDatabase, TEST_ENGINES, type TestDatabaseTarget } from '../support/test-databases.ts';
import { createTestUser, startTestServer, type TestServer } from '../support/test-server.ts';

type Json = Record<string, unknown> & { error?: { code: string; message: string; parameter?: string } };

describe.each(TEST_ENGINES)('API-1 / AUTH-1 / SEC-1 HTTP API on %s', (engine) => {
  let target: TestDatabaseTarget;
  let database: ToolportDatabase;
  let server: TestServer;
  let alice: Awaited<ReturnType<typeof createTestUser>>;
  let bob: Awaited<ReturnType<typeof createTestUser>>;
  let workdir: string;

  const call = async (
    method: 'GET' | 'PUT' | 'POST' | 'DELETE',
    url: string,
    who: { headers: { authorization: string } } | undefined,
    payload?: unknown,
  ) => {
    const response = await server.app.inject({
      method,
      url,
      headers: who?.headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return {
      status: response.statusCode,
      body: (response.body === '' ? {} : response.json()) as Json,
      raw: response.body,
    };
  };

  beforeAll(async () => {
    target = await createTestDatabase(engine);
    database = await target.open();
    server = await startTestServer(database);
    alice = await createTestUser(server.services, 'alice');
    bob = await createTestUser(server.services, 'bob');
    workdir = realpathSync(mkdtempSync(join(tmpdir(), 'toolport-chat-')));
  });
  afterAll(async () => {
    await server?.close();
    await target?.dispose();
    rmSync(workdir, { recursive: true, force: true });
  });

  describe('health, OpenAPI and authentication', () => {
    it('answers GET /api/health without a token', async () => {
      const { status, body } = await call('GET', '/api/health', undefined);
      expect(status).toBe(200);
      expect(body).toEqual({ status: 'ok', version: expect.any(String) });
    });

    it('serves a public landing page at / until a web UI plugin claims it', async () => {
      const page = await server.app.inject({ method: 'GET', url: '/?token=tp_x' });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('/api/openapi.json');
      const claimed = await startTestServer(database, {
        plugins: [(app) => void app.get('/', { config: { public: true } }, async () => 'ui')],
      });
      try {
        expect((await claimed.app.inject({ method: 'GET', url: '/' })).body).toBe('ui');
      } finally {
        await claimed.close();
      }
    });

    it('publishes the OpenAPI document with every route and the bearer scheme', async () => {
      const { status, body } = await call('GET', '/api/openapi.json', undefined);
      expect(status).toBe(200);
      const paths = Object.keys(body.paths as object);
      for (const path of [
        '/api/health',
        '/api/settings/tools',
        '/api/settings/tools/{toolName}',
        '/api/tools/{toolName}/execute',
        '/api/secrets',
        '/api/secrets/{name}',
        '/api/chats',
        '/api/chats/{chatId}',
        '/api/me',
        '/api/executions',
        '/api/agents/{agentId}/tools/{toolId}',
        '/api/tools/http-tool',
        '/api/tools/web-page-summary',
        '/api/tools/youtube-summary',
        '/api/mcp-servers/{serverId}',
      ]) {
        expect(paths).toContain(path);
      }
      expect(JSON.stringify(body.components)).toContain('bearer');
    });

    it.each([
      ['GET', '/api/settings/tools'],
      ['PUT', '/api/settings/tools/configurable'],
      ['POST', '/api/tools/configurable/execute'],
      ['GET', '/api/secrets'],
      ['PUT', '/api/secrets/X'],
      ['GET', '/api/chats'],
      ['DELETE', '/api/chats/whatever'],
      ['GET', '/api/no-such-route'],
    ] as const)('%s %s without a token is 401 with the common error body', async (method, url) => {
      const { status, body } = await call(
        method,
        url,
        undefined,
        method === 'GET' || method === 'DELETE' ? undefined : {},
      );
      expect(status).toBe(401);
      expect(body.error?.code).toBe('unauthorized');
    });

    it('refuses a wrong token and a malformed header', async () => {
      expect(
        (await call('GET', '/api/chats', { headers: { authorization: 'Bearer tp_wrong' } })).status,
      ).toBe(401);
      expect((await call('GET', '/api/chats', { headers: { authorization: alice.token } })).status).toBe(401);
      const bad = `${alice.token.slice(0, -2)}xx`;
      expect((await call('GET', '/api/chats', { headers: { authorization: `Bearer ${bad}` } })).status).toBe(
        401,
      );
    });

    it('a user issues, lists and revokes their own tokens; a revoked token is 401 at once', async () => {
      const user = await createTestUser(server.services);
      const issued = await call('POST', '/api/tokens', user, { label: 'laptop' });
      expect(issued.status).toBe(201);
      const second = { headers: { authorization: `Bearer ${issued.body.token as string}` } };
      expect((await call('GET', '/api/me', second)).body.id).toBe(user.id);
      const listed = await call('GET', '/api/tokens', user);
      const tokens = listed.body.tokens as Json[];
      expect(tokens.map((token) => token.label).sort()).toEqual(['initial', 'laptop']);
      expect(listed.raw).not.toContain(issued.body.token as string);
      const laptop = tokens.find((token) => token.label === 'laptop')!;
      expect((await call('DELETE', `/api/tokens/${laptop.id as string}`, bob)).status).toBe(404);
      expect((await call('DELETE', `/api/tokens/${laptop.id as string}`, user)).status).toBe(204);
      expect((await call('GET', '/api/me', second)).status).toBe(401);
    });

    it('only an admin lists and creates users', async () => {
      expect((await call('GET', '/api/users', alice)).status).toBe(403);
      expect((await call('POST', '/api/users', alice, { name: 'mallory' })).status).toBe(403);
      const { token } = await server.services.tokens.createUser(`root-${engine}-${Date.now()}`, {
        isAdmin: true,
      });
      const admin = { headers: { authorization: `Bearer ${token}` } };
      const created = await call('POST', '/api/users', admin, { name: `dave-${engine}` });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        user: { name: `dave-${engine}`, isAdmin: false },
        token: expect.any(String),
      });
      const dave = { headers: { authorization: `Bearer ${created.body.token as string}` } };
      expect((await call('GET', '/api/me', dave)).body.name).toBe(`dave-${engine}`);
      expect((await call('POST', '/api/users', admin, { name: `dave-${engine}` })).status).toBe(409);
      const users = (await call('GET', '/api/users', admin)).body.users as Json[];
      expect(users.map((user) => user.name)).toContain(`dave-${engine}`);
    });

    it('an unknown route with a token is 404 not_found', async () => {
      const { status, body } = await call('GET', '/api/nope', alice);
      expect(status).toBe(404);
      expect(body.error?.code).toBe('not_found');
    });
  });

  describe('tool settings', () => {
    it('lists every tool with defaults, descriptors and effective parameters', async () => {
      const { status, body } = await call('GET', '/api/settings/tools', alice);
      expect(status).toBe(200);
      const tools = body.tools as Json[];
      const configurable = tools.find((tool) => tool.name === 'configurable')!;
      expect(configurable).toMatchObject({
        title: 'Configurable',
        category: 'system',
        enabled: true,
        canDisable: true,
        parameters: { maxResults: 10, speed: 'fast', verbose: false, allowedPaths: [], timeoutSeconds: 30 },
        updatedAt: null,
      });
      expect((configurable.parameterDescriptors as Json[]).map((descriptor) => descriptor.name)).toEqual([
        'maxResults',
        'speed',
        'verbose',
        'allowedPaths',
        'timeoutSeconds',
      ]);
      expect(tools.find((tool) => tool.name === 'off_by_default')?.enabled).toBe(false);
      expect(tools.some((tool) => tool.name === 'get_current_datetime')).toBe(true);
    });

    it('saves enabled and parameters, merges later updates, and resets a parameter with null', async () => {
      const user = await createTestUser(server.services);
      let response = await call('PUT', '/api/settings/tools/configurable', user, {
        enabled: false,
        parameters: { maxResults: 50, speed: 'slow' },
      });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ enabled: false, parameters: { maxResults: 50, speed: 'slow' } });
      response = await call('PUT', '/api/settings/tools/configurable', user, {
        parameters: { verbose: true },
      });
      expect(response.body).toMatchObject({
        enabled: false,
        parameters: { maxResults: 50, speed: 'slow', verbose: true },
      });
      response = await call('PUT', '/api/settings/tools/configurable', user, {
        parameters: { maxResults: null },
      });
      expect(response.body).toMatchObject({ parameters: { maxResults: 10, speed: 'slow' } });
      const listed = await call('GET', '/api/settings/tools', user);
      const configurable = (listed.body.tools as Json[]).find((tool) => tool.name === 'configurable');
      expect(configurable).toMatchObject({
        enabled: false,
        parameters: { maxResults: 10, speed: 'slow', verbose: true },
      });
      // Another user still sees the defaults.
      const other = await call('GET', '/api/settings/tools/configurable', alice);
      expect(other.body).toMatchObject({ enabled: true, parameters: { maxResults: 10, speed: 'fast' } });
    });

    it.each([
      ['an unknown parameter', { parameters: { nope: 1 } }, 'nope'],
      ['a wrong type', { parameters: { maxResults: '5' } }, 'maxResults'],
      ['a value out of bounds', { parameters: { maxResults: 101 } }, 'maxResults'],
      ['a non-integer', { parameters: { maxResults: 1.5 } }, 'maxResults'],
      ['a value not allowed', { parameters: { speed: 'warp' } }, 'speed'],
      ['an empty path', { parameters: { allowedPaths: [''] } }, 'allowedPaths'],
      ['a timeout below 5 s', { parameters: { timeoutSeconds: 1 } }, 'timeoutSeconds'],
    ])(
      '422 ToolSettingsError for %s, naming the parameter, saving nothing',
      async (_label, payload, parameter) => {
        const user = await createTestUser(server.services);
        const { status, body } = await call('PUT', '/api/settings/tools/configurable', user, payload);
        expect(status).toBe(422);
        expect(body.error).toMatchObject({ code: 'invalid_settings', parameter });
        expect(body.error?.message).toContain(parameter);
        expect((await call('GET', '/api/settings/tools/configurable', user)).body.updatedAt).toBeNull();
      },
    );

    it('422 when disabling a tool that cannot be disabled', async () => {
      const { status, body } = await call('PUT', '/api/settings/tools/always_on', alice, { enabled: false });
      expect(status).toBe(422);
      expect(body.error).toMatchObject({ code: 'invalid_settings', parameter: 'enabled' });
      expect(body.error?.message).toMatch(/cannot be disabled/);
    });

    it('404 for an unknown tool, 400 for a body of the wrong shape', async () => {
      const missing = await call('PUT', '/api/settings/tools/no_such_tool', alice, { enabled: true });
      expect(missing.status).toBe(404);
      expect(missing.body.error?.code).toBe('not_found');
      const shape = await call('PUT', '/api/settings/tools/configurable', alice, { enabled: 'yes' });
      expect(shape.status).toBe(400);
      expect(shape.body.error?.code).toBe('bad_request');
      const extra = await call('PUT', '/api/settings/tools/configurable', alice, { colour: 'red' });
      expect(extra.status).toBe(400);
    });
  });

  describe('POST /api/tools/:toolName/execute', () => {
    it('runs with the caller’s saved settings', async () => {
      const user = await createTestUser(server.services);
      await call('PUT', '/api/settings/tools/configurable', user, { parameters: { maxResults: 77 } });
      const { status, body } = await call('POST', '/api/tools/configurable/execute', user, { args: {} });
      expect(status).toBe(200);
      expect(body).toMatchObject({
        toolName: 'configurable',
        truncated: false,
        result: { settings: { maxResults: 77 } },
      });
      expect(typeof body.output).toBe('string');
      expect(typeof body.callId).toBe('string');
    });

    it('maps tool errors to the code table: disabled 403, validation_failed 422, not_found 404', async () => {
      const disabled = await call('POST', '/api/tools/off_by_default/execute', alice, { args: {} });
      expect(disabled.status).toBe(403);
      expect(disabled.body.error?.code).toBe('disabled');
      const invalid = await call('POST', '/api/tools/secret_echo/execute', alice, { args: { name: 5 } });
      expect(invalid.status).toBe(422);
      expect(invalid.body.error).toMatchObject({ code: 'validation_failed', argument: 'name' });
      const missing = await call('POST', '/api/tools/no_such_tool/execute', alice, { args: {} });
      expect(missing.status).toBe(404);
      expect(missing.body.error?.code).toBe('not_found');
    });

    it("runs in the chat's working directory and mode; another user's chat is 404", async () => {
      const chat = await call('POST', '/api/chats', alice, { workingDirectory: workdir });
      const chatId = chat.body.id as string;
      const { status, body } = await call('POST', '/api/tools/configurable/execute', alice, {
        args: {},
        chatId,
      });
      expect(status).toBe(200);
      expect(body.result).toMatchObject({ mode: 'agent', workingDirectory: workdir });
      const stolen = await call('POST', '/api/tools/configurable/execute', bob, { args: {}, chatId });
      expect(stolen.status).toBe(404);
    });

    it('GET /api/me names the caller; GET /api/executions shows only their own calls unless admin', async () => {
      expect((await call('GET', '/api/me', alice)).body).toMatchObject({ id: alice.id, isAdmin: false });
      const user = await createTestUser(server.services);
      await call('POST', '/api/tools/always_on/execute', user, { args: {} });
      await call('POST', '/api/tools/no_such_tool/execute', user, { args: {} });
      await server.services.flush();
      const own = await call('GET', '/api/executions?limit=10', user);
      expect((own.body.executions as Json[]).map((entry) => entry.outcome).sort()).toEqual([
        'not_found',
        'ok',
      ]);
      const filtered = await call('GET', '/api/executions?outcome=not_found', user);
      expect(filtered.body.executions).toEqual([
        expect.objectContaining({ toolName: 'no_such_tool', userId: user.id }),
      ]);
      expect((await call('GET', `/api/executions?userId=${user.id}`, bob)).status).toBe(403);
      expect((await call('GET', '/api/executions?outcome=bogus', user)).status).toBe(400);
      const { token } = await server.services.tokens.createUser(`admin-${engine}-${Date.now()}`, {
        isAdmin: true,
      });
      const admin = { headers: { authorization: `Bearer ${token}` } };
      const seen = await call('GET', `/api/executions?userId=${user.id}`, admin);
      expect(seen.body.executions).toHaveLength(2);
    });

    it('records the execution in the audit trail', async () => {
      const user = await createTestUser(server.services);
      await call('POST', '/api/tools/always_on/execute', user, { args: {} });
      await server.services.flush();
      const records = await server.services.repositories.toolExecutions.query({ userId: user.id });
      expect(records).toEqual([expect.objectContaining({ toolName: 'always_on', outcome: 'ok' })]);
    });
  });

  describe('secrets', () => {
    const value = 'sk-test-VERY-SECRET-0123456789';

    it('stores a secret write-only: responses carry names and timestamps, never the value', async () => {
      const put = await call('PUT', '/api/secrets/OPENAI_API_KEY', alice, { value });
      expect(put.status).toBe(200);
      expect(put.body).toEqual({
        name: 'OPENAI_API_KEY',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const list = await call('GET', '/api/secrets', alice);
      expect(list.body).toEqual({ secrets: [put.body] });
      for (const response of [put, list]) expect(response.raw).not.toContain(value);
      const stored = await database.db
        .selectFrom('secrets')
        .select('ciphertext')
        .where('user_id', '=', alice.id)
        .execute();
      expect(stored).toHaveLength(1);
      expect(stored[0]!.ciphertext).not.toContain(value);
    });

    it('tools can read the secret but execute results come back redacted', async () => {
      const { status, body, raw } = await call('POST', '/api/tools/secret_echo/execute', alice, {
        args: { name: 'OPENAI_API_KEY' },
      });
      expect(status).toBe(200);
      expect(body.result).toEqual({ value: '***' });
      expect(raw).not.toContain(value);
      const reader = server.services.secrets.createReader(alice.id);
      expect(await reader.getSecret('OPENAI_API_KEY')).toBe(value);
    });

    it("another user neither lists nor reads nor deletes alice's secret", async () => {
      expect((await call('GET', '/api/secrets', bob)).body).toEqual({ secrets: [] });
      const echoed = await call('POST', '/api/tools/secret_echo/execute', bob, {
        args: { name: 'OPENAI_API_KEY' },
      });
      expect(echoed.body.result).toEqual({});
      expect((await call('DELETE', '/api/secrets/OPENAI_API_KEY', bob)).status).toBe(404);
    });

    it('refuses bad names and too-short values with 422; deletes with 204 then 404', async () => {
      expect((await call('PUT', '/api/secrets/bad%20name', alice, { value })).status).toBe(422);
      expect((await call('PUT', '/api/secrets/SHORT', alice, { value: 'abc' })).status).toBe(422);
      expect((await call('PUT', '/api/secrets/TEMP', alice, { value })).status).toBe(200);
      expect((await call('DELETE', '/api/secrets/TEMP', alice)).status).toBe(204);
      expect((await call('DELETE', '/api/secrets/TEMP', alice)).status).toBe(404);
    });
  });

  describe('chats', () => {
    it('creates, lists, gets and deletes; mode defaults to agent with a directory, chat without', async () => {
      const user = await createTestUser(server.services);
      const withDirectory = await call('POST', '/api/chats', user, {
        title: 'work',
        workingDirectory: workdir,
      });
      expect(withDirectory.status).toBe(201);
      expect(withDirectory.body).toMatchObject({ title: 'work', workingDirectory: workdir, mode: 'agent' });
      const plain = await call('POST', '/api/chats', user, {});
      expect(plain.body).toMatchObject({ workingDirectory: null, mode: 'chat' });
      const explicit = await call('POST', '/api/chats', user, { workingDirectory: workdir, mode: 'chat' });
      expect(explicit.body.mode).toBe('chat');
      const list = await call('GET', '/api/chats', user);
      expect((list.body.chats as Json[]).map((chat) => chat.id).sort()).toEqual(
        [withDirectory.body.id, plain.body.id, explicit.body.id].sort(),
      );
      const id = withDirectory.body.id as string;
      expect((await call('GET', `/api/chats/${id}`, user)).body).toEqual(withDirectory.body);
      expect((await call('DELETE', `/api/chats/${id}`, user)).status).toBe(204);
      expect((await call('GET', `/api/chats/${id}`, user)).status).toBe(404);
    });

    it("user B gets 404 (never 200 or 403) for user A's chat", async () => {
      const chat = await call('POST', '/api/chats', alice, { title: 'private' });
      const id = chat.body.id as string;
      for (const method of ['GET', 'DELETE'] as const) {
        const response = await call(method, `/api/chats/${id}`, bob);
        expect(response.status).toBe(404);
        expect(response.body.error?.code).toBe('not_found');
        expect(response.raw).not.toContain('private');
      }
      expect((await call('GET', '/api/chats', bob)).body.chats).toEqual([]);
      expect((await call('GET', `/api/chats/${id}`, alice)).status).toBe(200);
    });

    it('422 for a working directory that is relative or missing', async () => {
      for (const workingDirectory of ['relative/dir', join(workdir, 'missing')]) {
        const { status, body } = await call('POST', '/api/chats', alice, { workingDirectory });
        expect(status).toBe(422);
        expect(body.error).toMatchObject({ code: 'validation_failed', argument: 'workingDirectory' });
      }
    });
  });

  describe('scale-out and concurrency', () => {
    it('two servers on one database behave as one service', async () => {
      const second = await startTestServer(await target.open());
      try {
        const user = await createTestUser(server.services);
        const written = await server.app.inject({
          method: 'PUT',
          url: '/api/settings/tools/configurable',
          headers: user.headers,
          payload: { parameters: { maxResults: 42 } },
        });
        expect(written.statusCode).toBe(200);
        const read = await second.app.inject({
          method: 'GET',
          url: '/api/settings/tools/configurable',
          headers: user.headers,
        });
        expect(read.statusCode).toBe(200);
        expect(read.json()).toMatchObject({ parameters: { maxResults: 42 } });
        const secret = await second.app.inject({
          method: 'PUT',
          url: '/api/secrets/SHARED',
          headers: user.headers,
          payload: { value: 'shared-value-123' },
        });
        expect(secret.statusCode).toBe(200);
        expect(await server.services.secrets.createReader(user.id).getSecret('SHARED')).toBe(
          'shared-value-123',
        );
      } finally {
        await second.close();
      }
    });

    it('200 concurrent PUTs to different tools of one user lose no update', async () => {
      const registry = new ToolRegistry();
      const names = Array.from({ length: 200 }, (_, index) => `bulk_${index}`);
      for (const name of names) {
        registry.register(
          defineTool<object>({
            definition: { name, description: name, parameters: { type: 'object', properties: {} } },
            settings: {
              title: name,
              description: name,
              category: 'custom',
              enabledByDefault: true,
              canDisable: true,
              defaultParameters: {},
              parameterDescriptors: [
                {
                  name: 'limit',
                  title: 'Limit',
                  type: 'integer',
                  description: 'n',
                  default: 0,
                  minimum: 0,
                  maximum: 1000,
                },
              ],
            },
            execute: async () => null,
          }),
        );
      }
      const bulk = await startTestServer(database, { registry });
      try {
        const user = await createTestUser(bulk.services);
        const responses = await Promise.all(
          names.map((name, index) =>
            bulk.app.inject({
              method: 'PUT',
              url: `/api/settings/tools/${name}`,
              headers: user.headers,
              payload: { enabled: index % 2 === 0, parameters: { limit: index } },
            }),
          ),
        );
        expect(responses.filter((response) => response.statusCode !== 200)).toEqual([]);
        const listed = await bulk.app.inject({
          method: 'GET',
          url: '/api/settings/tools',
          headers: user.headers,
        });
        const tools = (listed.json() as { tools: Json[] }).tools;
        expect(tools).toHaveLength(200);
        for (const tool of tools) {
          const index = Number(String(tool.name).slice('bulk_'.length));
          expect(tool).toMatchObject({ enabled: index % 2 === 0, parameters: { limit: index } });
        }
      } finally {
        await bulk.close();
      }
    });
  });
});
