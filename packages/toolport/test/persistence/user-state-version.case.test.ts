import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolportDatabase } from '../../src/persistence/database.ts';
import { createRepositories, type Repositories } from '../../src/persistence/repositories.ts';
import { UserStateCache } from '../../src/persistence/user-state-cache.ts';
import { createTestDatabase, TEST_ENGINES, type TestDatabaseTarget } from '../support/test-databases.ts';

/*
 * Issue 11: `users.state_version` is what tells every instance that a user's cached rows changed. Migration 0011's
 * triggers bump it on every write to a row the caches are built from, in the writing statement, whoever writes.
 */
describe.each(TEST_ENGINES)('issue 11 users.state_version on %s', (engine) => {
  let target: TestDatabaseTarget;
  let database: ToolportDatabase;
  let repositories: Repositories;

  beforeAll(async () => {
    target = await createTestDatabase(engine);
    database = await target.open();
    // No cache here: these writes must bump the version by the triggers alone.
    repositories = createRepositories(database);
  });
  afterAll(async () => {
    await database?.close();
    await target?.dispose();
  });

  const versionOf = async (userId: string): Promise<number> => {
    const row = await database.db
      .selectFrom('users')
      .select('state_version')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    return Number(row.state_version);
  };

  it('grows with every write to a tracked row of the user, and only the owner’s', async () => {
    const alice = await repositories.users.create({ name: `alice-${engine}` });
    const bob = await repositories.users.create({ name: `bob-${engine}` });
    const writes: Array<[string, () => Promise<unknown>]> = [
      [
        'settings put',
        () => repositories.toolSettings.put(alice.id, 'grep', { parameters: { maxResults: 3 } }),
      ],
      ['settings delete', () => repositories.toolSettings.delete(alice.id, 'grep')],
      ['secret put', () => repositories.secrets.put(alice.id, 'KEY', 'ciphertext')],
      ['secret delete', () => repositories.secrets.delete(alice.id, 'KEY')],
      [
        'tool row create',
        () => repositories.customTools.create(alice.id, { name: 'mine', type: 'http', config: {} }),
      ],
      [
        'MCP row create',
        () => repositories.mcpServers.create(alice.id, { name: 'srv', transport: 'stdio', config: {} }),
      ],
      ['workspace trust', () => repositories.workspaceTrust.put(alice.id, '/work/x', 'a'.repeat(64))],
      ['chat create', () => repositories.chats.create(alice.id, { mode: 'agent', workingDirectory: '/tmp' })],
    ];
    for (const [label, write] of writes) {
      const before = await versionOf(alice.id);
      const bobBefore = await versionOf(bob.id);
      await write();
      expect({ label, grew: (await versionOf(alice.id)) > before }).toEqual({ label, grew: true });
      expect(await versionOf(bob.id)).toBe(bobBefore);
    }
    const tools = await repositories.customTools.list(alice.id);
    const before = await versionOf(alice.id);
    await repositories.customTools.delete(alice.id, tools[0]!.id);
    expect(await versionOf(alice.id)).toBeGreaterThan(before);
  });

  it('ignores chat writes that change nothing a listing shows (a title), but not the working directory', async () => {
    const carol = await repositories.users.create({ name: `carol-${engine}` });
    const chat = await repositories.chats.create(carol.id, { mode: 'agent' });
    const before = await versionOf(carol.id);
    await repositories.chats.update(carol.id, chat.id, { title: 'renamed' });
    expect(await versionOf(carol.id)).toBe(before);
    await repositories.chats.update(carol.id, chat.id, { workingDirectory: '/srv/project' });
    expect(await versionOf(carol.id)).toBeGreaterThan(before);
  });

  it('caches a user’s rows only while their version is current, and drops them on a write through this process', async () => {
    const cache = new UserStateCache();
    const cached = createRepositories(database, undefined, { userState: cache });
    const dave = await cached.users.create({ name: `dave-${engine}` });
    await cached.toolSettings.put(dave.id, 'grep', { parameters: { maxResults: 1 } });
    // Never observed (no authenticated request): every read goes to the database.
    await repositories.toolSettings.put(dave.id, 'grep', { parameters: { maxResults: 2 } });
    expect((await cached.toolSettings.listForUser(dave.id)).get('grep')?.parameters).toEqual({
      maxResults: 2,
    });

    cache.observe(dave.id, await versionOf(dave.id));
    expect((await cached.toolSettings.listForUser(dave.id)).get('grep')?.parameters).toEqual({
      maxResults: 2,
    });
    // Another writer (no cache, like another instance): this process keeps its rows until it sees the new version.
    await repositories.toolSettings.put(dave.id, 'grep', { parameters: { maxResults: 3 } });
    expect((await cached.toolSettings.listForUser(dave.id)).get('grep')?.parameters).toEqual({
      maxResults: 2,
    });
    cache.observe(dave.id, await versionOf(dave.id));
    expect((await cached.toolSettings.listForUser(dave.id)).get('grep')?.parameters).toEqual({
      maxResults: 3,
    });

    // A write through this process's repositories is seen by its next read, before any new observation.
    await cached.toolSettings.put(dave.id, 'grep', { parameters: { maxResults: 4 } });
    expect(cache.isCurrent(dave.id)).toBe(false);
    expect((await cached.toolSettings.listForUser(dave.id)).get('grep')?.parameters).toEqual({
      maxResults: 4,
    });
  });
});
