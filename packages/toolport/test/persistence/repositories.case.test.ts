import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeTool } from '../../src/core/execute-tool.ts';
import { ToolRegistry } from '../../src/core/tool-registry.ts';
import { defineTool } from '../../src/core/tool-types.ts';
import { migrateDatabase, type ToolportDatabase } from '../../src/persistence/database.ts';
import { createRepositories, type Repositories } from '../../src/persistence/repositories.ts';
import { createTestDatabase, TEST_ENGINES, type TestDatabaseTarget } from '../support/test-databases.ts';

describe.each(TEST_ENGINES)('DB-1 repositories on %s', (engine) => {
  let target: TestDatabaseTarget;
  let database: ToolportDatabase;
  let repositories: Repositories;
  let userCounter = 0;
  const newUser = (isAdmin = false) => repositories.users.create({ name: `user-${++userCounter}`, isAdmin });

  beforeAll(async () => {
    target = await createTestDatabase(engine);
    database = await target.open();
    repositories = createRepositories(database);
  });
  afterAll(async () => {
    await target?.dispose();
  });

  describe('migrations', () => {
    it('are idempotent: a second run applies nothing and keeps the data', async () => {
      const user = await newUser();
      expect(await migrateDatabase(database)).toEqual([]);
      expect(await repositories.users.findById(user.id)).toEqual(user);
    });

    it('let two instances start at once on one database', async () => {
      const [first, second] = await Promise.all([target.open(), target.open()]);
      expect(await createRepositories(first).users.count()).toBe(
        await createRepositories(second).users.count(),
      );
    });
  });

  describe('users and tokens', () => {
    it('creates a user, refuses a duplicate name with conflict, finds by id and name', async () => {
      const user = await repositories.users.create({ name: 'alice', isAdmin: true });
      expect(user).toMatchObject({ name: 'alice', isAdmin: true });
      await expect(repositories.users.create({ name: 'alice' })).rejects.toMatchObject({ code: 'conflict' });
      expect(await repositories.users.createIfAbsent({ name: 'alice' })).toBeUndefined();
      expect(await repositories.users.findByName('alice')).toEqual(user);
      expect(await repositories.users.findById(user.id)).toEqual(user);
      expect(await repositories.users.findById('missing')).toBeUndefined();
    });

    it('stores token hashes and finds the owner by hash only', async () => {
      const user = await newUser();
      const token = await repositories.apiTokens.create(user.id, 'a'.repeat(64), 'cli');
      const owner = await repositories.apiTokens.findOwnerByHash('a'.repeat(64));
      expect(owner?.user).toEqual(user);
      expect(owner?.tokenId).toBe(token.id);
      expect(await repositories.apiTokens.findOwnerByHash('b'.repeat(64))).toBeUndefined();
      expect((await repositories.apiTokens.listForUser(user.id)).map((entry) => entry.label)).toEqual([
        'cli',
      ]);
      expect(await repositories.apiTokens.delete(user.id, token.id)).toBe(true);
      expect(await repositories.apiTokens.findOwnerByHash('a'.repeat(64))).toBeUndefined();
    });

    it('finds each owner when many lookups run at once (PostgreSQL shares one query), and none after a delete', async () => {
      const users = await Promise.all([newUser(), newUser(), newUser()]);
      const hashes = users.map((_user, index) => String(index + 1).repeat(64));
      const tokens = await Promise.all(
        users.map((user, index) => repositories.apiTokens.create(user.id, hashes[index]!, 'many')),
      );
      const wanted = [...hashes, 'e'.repeat(64), ...hashes, hashes[0]!];
      const found = await Promise.all(wanted.map((hash) => repositories.apiTokens.findOwnerByHash(hash)));
      expect(found.map((owner) => owner?.tokenId)).toEqual(
        wanted.map((hash) => tokens[hashes.indexOf(hash)]?.id),
      );
      expect(found.map((owner) => owner?.user.id)).toEqual(
        wanted.map((hash) => users[hashes.indexOf(hash)]?.id),
      );
      // A lookup asked for after the delete returned sees it, even while others are still running.
      const running = hashes.map((hash) => repositories.apiTokens.findOwnerByHash(hash));
      expect(await repositories.apiTokens.delete(users[1]!.id, tokens[1]!.id)).toBe(true);
      const after = await Promise.all(hashes.map((hash) => repositories.apiTokens.findOwnerByHash(hash)));
      await Promise.all(running);
      expect(after.map((owner) => owner?.tokenId)).toEqual([tokens[0]!.id, undefined, tokens[2]!.id]);
    });

    it('deleting a user deletes their tokens, settings, secrets and chats', async () => {
      const user = await newUser();
      await repositories.apiTokens.create(user.id, 'c'.repeat(64), 'x');
      await repositories.toolSettings.put(user.id, 'grep', { parameters: { maxResults: 5 } });
      await repositories.secrets.put(user.id, 'KEY', 'v1.cipher');
      await repositories.chats.create(user.id, { mode: 'chat' });
      expect(await repositories.users.delete(user.id)).toBe(true);
      expect(await repositories.apiTokens.findOwnerByHash('c'.repeat(64))).toBeUndefined();
      expect((await repositories.toolSettings.listForUser(user.id)).size).toBe(0);
      expect(await repositories.secrets.list(user.id)).toEqual([]);
      expect(await repositories.chats.list(user.id)).toEqual([]);
    });
  });

  describe('user_tool_settings', () => {
    it('saves, replaces and lists one row per tool, scoped to the user', async () => {
      const [user, other] = [await newUser(), await newUser()];
      await repositories.toolSettings.put(user.id, 'grep', { enabled: false, parameters: { maxResults: 5 } });
      await repositories.toolSettings.put(user.id, 'glob', {
        parameters: { absolute: true, paths: ['/a', '/b'] },
      });
      await repositories.toolSettings.put(user.id, 'grep', { enabled: true, parameters: { maxResults: 7 } });
      const saved = await repositories.toolSettings.listForUser(user.id);
      expect(saved.get('grep')).toMatchObject({ enabled: true, parameters: { maxResults: 7 } });
      expect(saved.get('glob')).toMatchObject({ parameters: { absolute: true, paths: ['/a', '/b'] } });
      expect(saved.get('glob')?.enabled).toBeUndefined();
      expect((await repositories.toolSettings.listForUser(other.id)).size).toBe(0);
      expect(await repositories.toolSettings.get(other.id, 'grep')).toBeUndefined();
    });

    it('reads a corrupt parameters column as an empty object instead of failing', async () => {
      const user = await newUser();
      await database.db
        .insertInto('user_tool_settings')
        .values({ user_id: user.id, tool_name: 'x', enabled: 1, parameters: 'not json', updated_at: 'now' })
        .execute();
      expect(await repositories.toolSettings.get(user.id, 'x')).toMatchObject({
        enabled: true,
        parameters: {},
      });
    });

    it('loses no update when 50 read-modify-writes of one row run at once', async () => {
      const user = await newUser();
      await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          repositories.toolSettings.update(user.id, 'shared', (current) => ({
            parameters: { ...current?.parameters, [`p${index}`]: index },
          })),
        ),
      );
      const saved = await repositories.toolSettings.get(user.id, 'shared');
      expect(Object.keys(saved?.parameters ?? {})).toHaveLength(50);
    });
  });

  describe('secrets', () => {
    it('stores ciphertext per user and lists names with timestamps only', async () => {
      const [user, other] = [await newUser(), await newUser()];
      const first = await repositories.secrets.put(user.id, 'OPENAI_KEY', 'v1.one');
      const second = await repositories.secrets.put(user.id, 'OPENAI_KEY', 'v1.two');
      expect(second.createdAt).toBe(first.createdAt);
      expect(await repositories.secrets.getCiphertext(user.id, 'OPENAI_KEY')).toBe('v1.two');
      expect(await repositories.secrets.getCiphertext(other.id, 'OPENAI_KEY')).toBeUndefined();
      const listed = await repositories.secrets.list(user.id);
      expect(listed).toEqual([
        { name: 'OPENAI_KEY', createdAt: first.createdAt, updatedAt: second.updatedAt },
      ]);
      expect(await repositories.secrets.delete(other.id, 'OPENAI_KEY')).toBe(false);
      expect(await repositories.secrets.delete(user.id, 'OPENAI_KEY')).toBe(true);
      expect(await repositories.secrets.list(user.id)).toEqual([]);
    });
  });

  describe('chats', () => {
    it('creates, lists newest first, updates and deletes, never across users', async () => {
      const [user, other] = [await newUser(), await newUser()];
      const chat = await repositories.chats.create(user.id, {
        title: 'one',
        workingDirectory: '/srv/project',
        mode: 'agent',
      });
      expect(chat).toMatchObject({
        title: 'one',
        workingDirectory: '/srv/project',
        mode: 'agent',
        agentId: null,
      });
      const second = await repositories.chats.create(user.id, { mode: 'chat' });
      expect((await repositories.chats.list(user.id)).map((entry) => entry.id)).toContain(second.id);
      expect(await repositories.chats.list(other.id)).toEqual([]);
      expect(await repositories.chats.get(other.id, chat.id)).toBeUndefined();
      expect(await repositories.chats.update(other.id, chat.id, { title: 'stolen' })).toBeUndefined();
      expect((await repositories.chats.update(user.id, chat.id, { title: 'renamed' }))?.title).toBe(
        'renamed',
      );
      expect(await repositories.chats.delete(other.id, chat.id)).toBe(false);
      expect(await repositories.chats.delete(user.id, chat.id)).toBe(true);
      expect(await repositories.chats.get(user.id, chat.id)).toBeUndefined();
    });
  });

  describe('agents, custom tools, MCP servers', () => {
    it('keeps an agent tool selection and merges partial config', async () => {
      const [user, other] = [await newUser(), await newUser()];
      const agent = await repositories.agents.create(user.id, { name: 'researcher' });
      await expect(repositories.agents.create(user.id, { name: 'researcher' })).rejects.toMatchObject({
        code: 'conflict',
      });
      await repositories.agents.putTool(user.id, agent.id, 'grep', { config: { a: 1 } });
      await repositories.agents.putTool(user.id, agent.id, 'grep', { enabled: false, config: { b: 2 } });
      expect(await repositories.agents.listTools(user.id, agent.id)).toEqual([
        { toolName: 'grep', enabled: false, config: { a: 1, b: 2 } },
      ]);
      expect(
        await repositories.agents.putTool(other.id, agent.id, 'grep', { enabled: true }),
      ).toBeUndefined();
      expect(await repositories.agents.listTools(other.id, agent.id)).toEqual([]);
      expect(await repositories.agents.delete(user.id, agent.id)).toBe(true);
    });

    it('stores custom tools as type + JSON config, unique per user', async () => {
      const [user, other] = [await newUser(), await newUser()];
      const tool = await repositories.customTools.create(user.id, {
        name: 'weather',
        type: 'http',
        config: { url: 'https://example.test', method: 'GET' },
      });
      await expect(
        repositories.customTools.create(user.id, { name: 'weather', type: 'http', config: {} }),
      ).rejects.toMatchObject({ code: 'conflict' });
      await repositories.customTools.create(other.id, { name: 'weather', type: 'http', config: {} });
      expect(await repositories.customTools.list(user.id, 'http')).toEqual([tool]);
      const updated = await repositories.customTools.update(user.id, tool.id, { enabled: false });
      expect(updated).toMatchObject({
        enabled: false,
        config: { url: 'https://example.test', method: 'GET' },
      });
      expect(await repositories.customTools.get(other.id, tool.id)).toBeUndefined();
    });

    it('stores MCP servers and filters enabled ones', async () => {
      const user = await newUser();
      await repositories.mcpServers.create(user.id, {
        name: 'a',
        transport: 'stdio',
        config: { command: 'x' },
      });
      const off = await repositories.mcpServers.create(user.id, {
        name: 'b',
        transport: 'http',
        config: { url: 'http://127.0.0.1:1/mcp' },
        enabled: false,
      });
      expect((await repositories.mcpServers.list(user.id, { enabledOnly: true })).map((s) => s.name)).toEqual(
        ['a'],
      );
      expect((await repositories.mcpServers.get(user.id, off.id))?.config).toEqual({
        url: 'http://127.0.0.1:1/mcp',
      });
    });
  });

  describe('freshness ledger', () => {
    it('records and replaces the hash per scope and real path', async () => {
      const ledger = repositories.freshnessLedger;
      expect(await ledger.getRecordedHash('chat-1', '/a')).toBeUndefined();
      await ledger.recordHash('chat-1', '/a', 'h1');
      await ledger.recordHash('chat-1', '/a', 'h2');
      await ledger.recordHash('chat-2', '/a', 'h3');
      expect(await ledger.getRecordedHash('chat-1', '/a')).toBe('h2');
      expect(await ledger.getRecordedHash('chat-2', '/a')).toBe('h3');
      await ledger.clearScope('chat-1');
      expect(await ledger.getRecordedHash('chat-1', '/a')).toBeUndefined();
    });
  });

  describe('tool executions (CORE-6 audit trail)', () => {
    it('records every executeTool call and answers queries newest first', async () => {
      const registry = new ToolRegistry();
      registry.register(
        defineTool<{ text: string }>({
          definition: {
            name: 'echo',
            description: 'Echoes text.',
            parameters: {
              type: 'object',
              properties: { text: { type: 'string' } },
              required: ['text'],
              additionalProperties: false,
            },
          },
          settings: {
            title: 'Echo',
            description: 'Echoes',
            category: 'interaction',
            enabledByDefault: true,
            canDisable: true,
            defaultParameters: {},
            parameterDescriptors: [],
          },
          execute: async ({ text }) => ({ text }),
        }),
      );
      const recorder = repositories.toolExecutions;
      const userId = `audit-${engine}`;
      await executeTool(
        { toolName: 'echo', arguments: { text: 'hi' }, userId, chatId: 'c1' },
        { registry, recorder },
      );
      await executeTool(
        { toolName: 'echo', arguments: { text: 5 }, userId, chatId: 'c1' },
        { registry, recorder },
      );
      await executeTool({ toolName: 'nope', arguments: {}, userId }, { registry, recorder });
      await recorder.flush();
      const records = await recorder.query({ userId });
      expect(records.map((record) => record.outcome).sort()).toEqual([
        'not_found',
        'ok',
        'validation_failed',
      ]);
      const ok = records.find((record) => record.outcome === 'ok');
      expect(ok).toMatchObject({ toolName: 'echo', chatId: 'c1', resultSize: '{"text":"hi"}'.length });
      expect(ok?.startedAt).toBeInstanceOf(Date);
      expect(await recorder.query({ userId, outcome: 'validation_failed' })).toHaveLength(1);
      expect(await recorder.query({ userId, limit: 1 })).toHaveLength(1);
    });
  });
});
