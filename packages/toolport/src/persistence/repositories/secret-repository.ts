import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../database-schema.ts';
import { UNCACHED_READS, type UserReads } from '../user-state-cache.ts';
import { currentTimestamp } from './row-values.ts';

export interface SecretMetadata {
  name: string;
  createdAt: string;
  updatedAt: string;
}

/** Stores ciphertext only; encryption is secrets/secret-cipher.ts's job (SEC-1). */
export class SecretRepository {
  readonly #db: Kysely<DatabaseSchema>;

  readonly #reads: UserReads;

  constructor(db: Kysely<DatabaseSchema>, reads: UserReads = UNCACHED_READS) {
    this.#db = db;
    this.#reads = reads;
  }

  async list(userId: string): Promise<SecretMetadata[]> {
    const rows = await this.#db
      .selectFrom('secrets')
      .select(['name', 'created_at', 'updated_at'])
      .where('user_id', '=', userId)
      .orderBy('name')
      .execute();
    return rows.map((row) => ({ name: row.name, createdAt: row.created_at, updatedAt: row.updated_at }));
  }

  async getCiphertext(userId: string, name: string): Promise<string | undefined> {
    const row = await this.#db
      .selectFrom('secrets')
      .select('ciphertext')
      .where('user_id', '=', userId)
      .where('name', '=', name)
      .executeTakeFirst();
    return row?.ciphertext;
  }

  /** Cached per user state (issue 11): what a secret reader decrypts from. The caller gets its own array. */
  async listCiphertexts(userId: string): Promise<{ name: string; ciphertext: string }[]> {
    return [...(await this.#reads.read(userId, 'secrets', () => this.#listCiphertexts(userId)))];
  }

  #listCiphertexts(userId: string): Promise<{ name: string; ciphertext: string }[]> {
    return this.#db
      .selectFrom('secrets')
      .select(['name', 'ciphertext'])
      .where('user_id', '=', userId)
      .execute();
  }

  async put(userId: string, name: string, ciphertext: string): Promise<SecretMetadata> {
    const now = currentTimestamp();
    const row = await this.#db
      .insertInto('secrets')
      .values({ user_id: userId, name, ciphertext, created_at: now, updated_at: now })
      .onConflict((conflict) =>
        conflict.columns(['user_id', 'name']).doUpdateSet({ ciphertext, updated_at: now }),
      )
      .returning(['name', 'created_at', 'updated_at'])
      .executeTakeFirstOrThrow();
    return { name: row.name, createdAt: row.created_at, updatedAt: row.updated_at };
  }

  async delete(userId: string, name: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('secrets')
      .where('user_id', '=', userId)
      .where('name', '=', name)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
