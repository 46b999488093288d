import type { Kysely } from 'kysely';
import type { FreshnessLedger } from '../../core/tool-types.ts';
import type { DatabaseSchema } from '../database-schema.ts';
import { currentTimestamp } from './row-values.ts';

/** FS-1's ledger in the database, so every instance behind a load balancer sees the same last-read hashes. */
export class FreshnessLedgerRepository implements FreshnessLedger {
  readonly #db: Kysely<DatabaseSchema>;

  constructor(db: Kysely<DatabaseSchema>) {
    this.#db = db;
  }

  async getRecordedHash(scope: string, realPath: string): Promise<string | undefined> {
    const row = await this.#db
      .selectFrom('freshness_ledger')
      .select('sha256')
      .where('scope', '=', scope)
      .where('real_path', '=', realPath)
      .executeTakeFirst();
    return row?.sha256;
  }

  async recordHash(scope: string, realPath: string, sha256: string): Promise<void> {
    const recordedAt = currentTimestamp();
    await this.#db
      .insertInto('freshness_ledger')
      .values({ scope, real_path: realPath, sha256, recorded_at: recordedAt })
      .onConflict((conflict) =>
        conflict.columns(['scope', 'real_path']).doUpdateSet({ sha256, recorded_at: recordedAt }),
      )
      .execute();
  }

  /** Drops a scope's entries (a deleted chat). */
  async clearScope(scope: string): Promise<void> {
    await this.#db.deleteFrom('freshness_ledger').where('scope', '=', scope).execute();
  }
}
