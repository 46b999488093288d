import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ToolportError } from '../../core/errors.ts';
import type { DatabaseSchema, McpServersTable } from '../database-schema.ts';
import { currentTimestamp, fromFlag, parseJsonObject, toFlag } from './row-values.ts';

/** A user's MCP server (SPEC §6). `config` holds the transport's fields (command/args/env names, or url/headers). */
export interface McpServerRecord {
  id: string;
  userId: string;
  name: string;
  transport: string;
  config: Record<string, unknown>;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

function toRecord(row: McpServersTable): McpServerRecord {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    transport: row.transport,
    config: parseJsonObject(row.config),
    enabled: fromFlag(row.enabled),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export class McpServerRepository {
  readonly #db: Kysely<DatabaseSchema>;

  constructor(db: Kysely<DatabaseSchema>) {
    this.#db = db;
  }

  async create(
    userId: string,
    server: { name: string; transport: string; config: Record<string, unknown>; enabled?: boolean },
  ): Promise<McpServerRecord> {
    const now = currentTimestamp();
    const row = await this.#db
      .insertInto('mcp_servers')
      .values({
        id: randomUUID(),
        user_id: userId,
        name: server.name,
        transport: server.transport,
        config: JSON.stringify(server.config),
        enabled: toFlag(server.enabled ?? true),
        created_at: now,
        updated_at: now,
      })
      .onConflict((conflict) => conflict.columns(['user_id', 'name']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (row === undefined) {
      throw new ToolportError(
        'conflict',
        `You already have an MCP server named ${JSON.stringify(server.name)}.`,
        {
          details: { name: server.name },
        },
      );
    }
    return toRecord(row);
  }

  async list(userId: string, options: { enabledOnly?: boolean } = {}): Promise<McpServerRecord[]> {
    let query = this.#db.selectFrom('mcp_servers').selectAll().where('user_id', '=', userId);
    if (options.enabledOnly === true) query = query.where('enabled', '=', 1);
    return (await query.orderBy('name').execute()).map(toRecord);
  }

  async get(userId: string, id: string): Promise<McpServerRecord | undefined> {
    const row = await this.#db
      .selectFrom('mcp_servers')
      .selectAll()
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? undefined : toRecord(row);
  }

  async update(
    userId: string,
    id: string,
    changes: { name?: string; transport?: string; config?: Record<string, unknown>; enabled?: boolean },
  ): Promise<McpServerRecord | undefined> {
    const set: Partial<McpServersTable> = { updated_at: currentTimestamp() };
    if (changes.name !== undefined) set.name = changes.name;
    if (changes.transport !== undefined) set.transport = changes.transport;
    if (changes.config !== undefined) set.config = JSON.stringify(changes.config);
    if (changes.enabled !== undefined) set.enabled = toFlag(changes.enabled);
    await this.#db
      .updateTable('mcp_servers')
      .set(set)
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .execute();
    return this.get(userId, id);
  }

  async delete(userId: string, id: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('mcp_servers')
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
