import { PGlite } from '@electric-sql/pglite';
import { describe, expect, it } from 'vitest';
import { migrateDatabase, wrapDialect } from '../../src/persistence/database.ts';
import { createRepositories } from '../../src/persistence/repositories.ts';
import { PgliteDialect } from './pglite-dialect.ts';

// The contract suites fall back to PGlite where no PostgreSQL server answers; CI always has one, so this keeps the
// fallback itself from rotting.
describe('DB-1 PGlite fallback dialect', () => {
  it('migrates and runs transactional repository code', async () => {
    const pglite = await PGlite.create();
    const database = wrapDialect(new PgliteDialect(pglite), 'postgres', 'pglite');
    try {
      expect(await migrateDatabase(database)).toEqual([
        '0001-initial-schema',
        '0002-provider-configs-and-transcripts',
        '0006-images',
        '0007-agent-delegation',
        '0008-workspace-trust',
        '0010-approvals',
        '0011-user-state-version',
      ]);
      expect(await migrateDatabase(database)).toEqual([]);
      const repositories = createRepositories(database);
      const user = await repositories.users.create({ name: 'pglite-user' });
      await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          repositories.toolSettings.update(user.id, 'tool', (current) => ({
            parameters: { ...current?.parameters, [`p${index}`]: index },
          })),
        ),
      );
      expect(
        Object.keys((await repositories.toolSettings.get(user.id, 'tool'))?.parameters ?? {}),
      ).toHaveLength(10);
      await expect(repositories.users.create({ name: 'pglite-user' })).rejects.toMatchObject({
        code: 'conflict',
      });
    } finally {
      await database.close();
      await pglite.close();
    }
  });
});
