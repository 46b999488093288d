import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../database-schema.ts';
import { UNCACHED_READS, type UserReads } from '../user-state-cache.ts';
import { currentTimestamp } from './row-values.ts';

export interface WorkspaceTrustRecord {
  directory: string;
  /** sha256 (hex) of the tools.json the user reviewed. */
  sha256: string;
  createdAt: string;
  updatedAt: string;
}

/** WS-1: per user (AUTH-1: every query filters by `user_id`). */
export class WorkspaceTrustRepository {
  readonly #db: Kysely<DatabaseSchema>;

  readonly #reads: UserReads;

  constructor(db: Kysely<DatabaseSchema>, reads: UserReads = UNCACHED_READS) {
    this.#db = db;
    this.#reads = reads;
  }

  /** Cached per user state (issue 11); the caller gets its own array. */
  async list(userId: string): Promise<WorkspaceTrustRecord[]> {
    return [...(await this.#reads.read(userId, 'workspace_trust', () => this.#list(userId)))];
  }

  async #list(userId: string): Promise<WorkspaceTrustRecord[]> {
    const rows = await this.#db
      .selectFrom('workspace_trust')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('directory')
      .execute();
    return rows.map(toRecord);
  }

  async get(userId: string, directory: string): Promise<WorkspaceTrustRecord | undefined> {
    const row = await this.#db
      .selectFrom('workspace_trust')
      .selectAll()
      .where('user_id', '=', userId)
      .where('directory', '=', directory)
      .executeTakeFirst();
    return row === undefined ? undefined : toRecord(row);
  }

  async put(userId: string, directory: string, sha256: string): Promise<WorkspaceTrustRecord> {
    const now = currentTimestamp();
    const row = await this.#db
      .insertInto('workspace_trust')
      .values({ user_id: userId, directory, sha256, created_at: now, updated_at: now })
      .onConflict((conflict) =>
        conflict.columns(['user_id', 'directory']).doUpdateSet({ sha256, updated_at: now }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRecord(row);
  }
}

function toRecord(row: DatabaseSchema['workspace_trust']): WorkspaceTrustRecord {
  return {
    directory: row.directory,
    sha256: row.sha256,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
