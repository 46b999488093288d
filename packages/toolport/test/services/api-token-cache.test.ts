import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ToolportDatabase } from '../../src/persistence/database.ts';
import { createToolportServices, type ToolportServices } from '../../src/services/toolport-services.ts';
import { createTestDatabase, type TestDatabaseTarget } from '../support/test-databases.ts';
import { TEST_SECRET_KEY } from '../support/test-server.ts';
import { createTestRegistry } from '../support/server-test-tools.ts';

/*
 * Issue 11 item 2: on SQLite an instance reuses a token lookup until `PRAGMA data_version` (another connection
 * committed) or its own write observer says a token or user row may have changed. Two "instances" here are two
 * services on two connections to one file, as two `toolport serve` processes (or the CLI beside one) would be.
 */
describe('issue 11 token lookups reused on SQLite', () => {
  let target: TestDatabaseTarget;
  let first: ToolportServices;
  let second: ToolportServices;

  const open = async (database: ToolportDatabase): Promise<ToolportServices> =>
    createToolportServices({ database, registry: createTestRegistry(), secretKey: TEST_SECRET_KEY });

  beforeEach(async () => {
    target = await createTestDatabase('sqlite');
    first = await open(await target.open());
    second = await open(await target.open());
  });
  afterEach(async () => {
    await first.flush();
    await second.flush();
    await target.dispose();
  });

  const lookUpsOn = (services: ToolportServices) =>
    vi.spyOn(services.repositories.apiTokens, 'findOwnerByHash');

  it('looks a token up once while nothing changes, and again after any write on its own connection', async () => {
    const { token } = await first.tokens.createUser('alice');
    const lookUps = lookUpsOn(first);
    for (let index = 0; index < 5; index += 1)
      expect((await first.tokens.authenticate(token))?.name).toBe('alice');
    expect(lookUps).toHaveBeenCalledTimes(1);
    // Any write through the same connection counts, raw SQL too: here one that changes the admin flag.
    const user = (await first.tokens.authenticate(token))!;
    await sql`update users set is_admin = 1 where id = ${user.id}`.execute(first.database.db);
    expect((await first.tokens.authenticate(token))?.isAdmin).toBe(true);
    expect(lookUps).toHaveBeenCalledTimes(2);
  });

  it('refuses a token revoked through this instance on the next call', async () => {
    const { user, token } = await first.tokens.createUser('alice');
    expect(await first.tokens.authenticate(token)).toBeDefined();
    const [record] = await first.repositories.apiTokens.listForUser(user.id);
    expect(await first.repositories.apiTokens.delete(user.id, record!.id)).toBe(true);
    expect(await first.tokens.authenticate(token)).toBeUndefined();
  });

  it('refuses a token revoked through another connection on the next call', async () => {
    const { user, token } = await first.tokens.createUser('alice');
    const other = await second.tokens.issueToken(user.id, 'other');
    expect(await second.tokens.authenticate(token)).toBeDefined();
    expect(await second.tokens.authenticate(other)).toBeDefined();
    const [record] = (await first.repositories.apiTokens.listForUser(user.id)).filter(
      (row) => row.label === 'initial',
    );
    expect(await first.repositories.apiTokens.delete(user.id, record!.id)).toBe(true);
    expect(await second.tokens.authenticate(token)).toBeUndefined();
    // Only the revoked token is refused: the user's other token still works after its fresh lookup.
    expect((await second.tokens.authenticate(other))?.id).toBe(user.id);
  });

  it('sees a deleted user and a changed admin flag written through another connection', async () => {
    const { user, token } = await first.tokens.createUser('mallory');
    expect((await second.tokens.authenticate(token))?.isAdmin).toBe(false);
    await first.database.db.updateTable('users').set({ is_admin: 1 }).where('id', '=', user.id).execute();
    expect((await second.tokens.authenticate(token))?.isAdmin).toBe(true);
    await first.repositories.users.delete(user.id);
    expect(await second.tokens.authenticate(token)).toBeUndefined();
  });

  it('carries a state_version changed through another connection to the user-state cache', async () => {
    const { user, token } = await first.tokens.createUser('alice');
    await second.tokens.authenticate(token);
    const before = await second.toolSettings.list(user);
    await first.toolSettings.update(user, 'configurable', { parameters: { maxResults: 7 } });
    await second.tokens.authenticate(token);
    const after = await second.toolSettings.list(user);
    expect(before.find((tool) => tool.name === 'configurable')?.parameters.maxResults).toBe(10);
    expect(after.find((tool) => tool.name === 'configurable')?.parameters.maxResults).toBe(7);
  });
});
