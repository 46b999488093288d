import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ToolportError } from '../../core/errors.ts';
import type { DatabaseSchema, UsersTable } from '../database-schema.ts';
import { currentTimestamp, fromFlag, toFlag } from './row-values.ts';

export interface UserRecord {
  id: string;
  name: string;
  isAdmin: boolean;
  createdAt: string;
}

export function toUserRecord(row: Pick<UsersTable, 'id' | 'name' | 'is_admin' | 'created_at'>): UserRecord {
  return { id: row.id, name: row.name, isAdmin: fromFlag(row.is_admin), createdAt: row.created_at };
}

export class UserRepository {
  readonly #db: Kysely<DatabaseSchema>;

  constructor(db: Kysely<DatabaseSchema>) {
    this.#db = db;
  }

  /** Throws `conflict` when the name is taken. */
  async create(input: { name: string; isAdmin?: boolean }): Promise<UserRecord> {
    const created = await this.createIfAbsent(input);
    if (created === undefined) {
      throw new ToolportError('conflict', `A user named ${JSON.stringify(input.name)} already exists.`, {
        details: { name: input.name },
      });
    }
    return created;
  }

  /** Undefined when the name is taken (two instances bootstrapping the admin at once). */
  async createIfAbsent(input: { name: string; isAdmin?: boolean }): Promise<UserRecord | undefined> {
    const row = await this.#db
      .insertInto('users')
      .values({
        id: randomUUID(),
        name: input.name,
        is_admin: toFlag(input.isAdmin ?? false),
        created_at: currentTimestamp(),
      })
      .onConflict((conflict) => conflict.column('name').doNothing())
      .returningAll()
      .executeTakeFirst();
    return row === undefined ? undefined : toUserRecord(row);
  }

  async findById(id: string): Promise<UserRecord | undefined> {
    const row = await this.#db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : toUserRecord(row);
  }

  async findByName(name: string): Promise<UserRecord | undefined> {
    const row = await this.#db.selectFrom('users').selectAll().where('name', '=', name).executeTakeFirst();
    return row === undefined ? undefined : toUserRecord(row);
  }

  async list(): Promise<UserRecord[]> {
    const rows = await this.#db
      .selectFrom('users')
      .selectAll()
      .orderBy('created_at')
      .orderBy('name')
      .execute();
    return rows.map(toUserRecord);
  }

  async count(): Promise<number> {
    const row = await this.#db
      .selectFrom('users')
      .select((builder) => builder.fn.countAll<number | string>().as('count'))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.#db.deleteFrom('users').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
