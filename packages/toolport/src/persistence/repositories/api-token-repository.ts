import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { DatabaseSchema } from '../database-schema.ts';
import { coalesceLookups } from '../coalesced-lookup.ts';
import type { DatabaseEngine } from '../database-engine.ts';
import { prepareOnce } from '../prepared-query.ts';
import { currentTimestamp } from './row-values.ts';
import { toUserRecord, type UserRecord } from './user-repository.ts';

export interface ApiTokenRecord {
  id: string;
  userId: string;
  label: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export interface TokenOwner {
  tokenId: string;
  tokenHash: string;
  user: UserRecord;
  /** `users.state_version` (issue 11): read with the token so per-user caches know whether they are current. */
  stateVersion: number;
}

interface OwnerRow {
  token_id: string;
  token_hash: string;
  id: string;
  name: string;
  is_admin: number;
  created_at: string;
  state_version: number;
}

/** Stores token hashes only (AUTH-1); hashing and comparison live in http/plugins/auth.ts's helpers. */
export class ApiTokenRepository {
  readonly #db: Kysely<DatabaseSchema>;

  /**
   * The query an authenticated request runs: on PostgreSQL every one, on SQLite those whose earlier lookup may be stale
   * (AUTH-1: a revocation is refused at once; services/api-token-service.ts).
   */
  readonly #findOwner: (tokenHash: string) => Promise<OwnerRow | undefined>;

  constructor(db: Kysely<DatabaseSchema>, engine: DatabaseEngine) {
    this.#db = db;
    const owners = db
      .selectFrom('api_tokens')
      .innerJoin('users', 'users.id', 'api_tokens.user_id')
      .select([
        'api_tokens.id as token_id',
        'api_tokens.token_hash',
        'users.id',
        'users.name',
        'users.is_admin',
        'users.created_at',
        'users.state_version',
      ]);
    if (engine === 'postgres') {
      // A round trip per statement is most of a request's cost on PostgreSQL: concurrent requests' lookups share one
      // (coalesced-lookup.ts), by the unique index as before (`= any($1)`).
      const byHashes = prepareOnce(
        'owners_by_hashes',
        owners.where('api_tokens.token_hash', '=', sql<string>`any(${[]})`).compile(),
      );
      this.#findOwner = coalesceLookups(async (hashes) => {
        const { rows } = await db.executeQuery(byHashes([hashes]));
        return new Map(rows.map((row) => [row.token_hash, row]));
      });
    } else {
      // In process and synchronous, SQLite gains nothing from sharing a statement. `cast(? as text)`, not a bare
      // parameter: SQLite (3.54) re-prepares a join whose WHERE compares a column to a bare bound parameter on every
      // run (perf: sqlite3Reprepare under Statement::JS_all), which made this lookup cost 3× what it does with the cast.
      const byHash = prepareOnce(
        'owner_by_hash',
        owners.where('api_tokens.token_hash', '=', sql<string>`cast(${''} as text)`).compile(),
      );
      this.#findOwner = async (hash) => (await db.executeQuery(byHash([hash]))).rows[0];
    }
  }

  async create(userId: string, tokenHash: string, label: string): Promise<ApiTokenRecord> {
    const row = {
      id: randomUUID(),
      user_id: userId,
      token_hash: tokenHash,
      label,
      created_at: currentTimestamp(),
      last_used_at: null,
    };
    await this.#db.insertInto('api_tokens').values(row).execute();
    return { id: row.id, userId, label, createdAt: row.created_at, lastUsedAt: null };
  }

  async findOwnerByHash(tokenHash: string): Promise<TokenOwner | undefined> {
    const row = await this.#findOwner(tokenHash);
    if (row === undefined) return undefined;
    return {
      tokenId: row.token_id,
      tokenHash: row.token_hash,
      user: toUserRecord(row),
      stateVersion: Number(row.state_version),
    };
  }

  async listForUser(userId: string): Promise<ApiTokenRecord[]> {
    const rows = await this.#db
      .selectFrom('api_tokens')
      .select(['id', 'user_id', 'label', 'created_at', 'last_used_at'])
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .execute();
    return rows.map((row) => ({
      id: row.id,
      userId: row.user_id,
      label: row.label,
      createdAt: row.created_at,
      lastUsedAt: row.last_used_at,
    }));
  }

  async touch(tokenId: string, at: string): Promise<void> {
    await this.#db.updateTable('api_tokens').set({ last_used_at: at }).where('id', '=', tokenId).execute();
  }

  async delete(userId: string, tokenId: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('api_tokens')
      .where('user_id', '=', userId)
      .where('id', '=', tokenId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
