import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ToolportError } from '../../core/errors.ts';
import type { DatabaseSchema, ToolsTable } from '../database-schema.ts';
import { UNCACHED_READS, type UserReads } from '../user-state-cache.ts';
import { currentTimestamp, fromFlag, parseJsonObject, toFlag } from './row-values.ts';

/** A per-user custom tool stored as configuration (SPEC §4: HTTP and agent tools): `type` + JSON `config`. */
export interface CustomToolRecord {
  id: string;
  userId: string;
  name: string;
  type: string;
  config: Record<string, unknown>;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

function toRecord(row: ToolsTable): CustomToolRecord {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    type: row.type,
    config: parseJsonObject(row.config),
    enabled: fromFlag(row.enabled),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export class CustomToolRepository {
  readonly #db: Kysely<DatabaseSchema>;

  readonly #reads: UserReads;

  constructor(db: Kysely<DatabaseSchema>, reads: UserReads = UNCACHED_READS) {
    this.#db = db;
    this.#reads = reads;
  }

  async create(
    userId: string,
    tool: { name: string; type: string; config: Record<string, unknown>; enabled?: boolean },
  ): Promise<CustomToolRecord> {
    const now = currentTimestamp();
    const row = await this.#db
      .insertInto('tools')
      .values({
        id: randomUUID(),
        user_id: userId,
        name: tool.name,
        type: tool.type,
        config: JSON.stringify(tool.config),
        enabled: toFlag(tool.enabled ?? true),
        created_at: now,
        updated_at: now,
      })
      .onConflict((conflict) => conflict.columns(['user_id', 'name']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (row === undefined) {
      throw new ToolportError('conflict', `You already have a tool named ${JSON.stringify(tool.name)}.`, {
        details: { name: tool.name },
      });
    }
    return toRecord(row);
  }

  /** Cached per user state (issue 11); the caller gets its own array. */
  async list(userId: string, type?: string): Promise<CustomToolRecord[]> {
    return [...(await this.#reads.read(userId, `tools:${type ?? '*'}`, () => this.#list(userId, type)))];
  }

  async #list(userId: string, type: string | undefined): Promise<CustomToolRecord[]> {
    let query = this.#db.selectFrom('tools').selectAll().where('user_id', '=', userId);
    if (type !== undefined) query = query.where('type', '=', type);
    return (await query.orderBy('name').execute()).map(toRecord);
  }

  async get(userId: string, id: string): Promise<CustomToolRecord | undefined> {
    const row = await this.#db
      .selectFrom('tools')
      .selectAll()
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? undefined : toRecord(row);
  }

  async update(
    userId: string,
    id: string,
    changes: { name?: string; config?: Record<string, unknown>; enabled?: boolean },
  ): Promise<CustomToolRecord | undefined> {
    const set: Partial<ToolsTable> = { updated_at: currentTimestamp() };
    if (changes.name !== undefined) set.name = changes.name;
    if (changes.config !== undefined) set.config = JSON.stringify(changes.config);
    if (changes.enabled !== undefined) set.enabled = toFlag(changes.enabled);
    await this.#db.updateTable('tools').set(set).where('user_id', '=', userId).where('id', '=', id).execute();
    return this.get(userId, id);
  }

  async delete(userId: string, id: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('tools')
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
