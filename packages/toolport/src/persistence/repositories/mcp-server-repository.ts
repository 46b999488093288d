import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ToolportError } from '../../core/errors.ts';
import type { DatabaseSchema, McpServersTable } from '../database-schema.ts';
import { UNCACHED_READS, type UserReads } from '../user-state-cache.ts';
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

/**
 * Seals literal credentials (header and env values) on the way in and opens them on the way out, so they are
 * encrypted at rest while every reader keeps seeing the plain config (`credentials/config-credentials.ts`).
 */
export interface StoredConfigCodec {
  seal(userId: string, transport: string, config: Record<string, unknown>): Record<string, unknown>;
  open(userId: string, transport: string, config: Record<string, unknown>): Record<string, unknown>;
}

const IDENTITY_CODEC: StoredConfigCodec = {
  seal: (_u, _t, config) => config,
  open: (_u, _t, config) => config,
};

function toRecord(row: McpServersTable, codec: StoredConfigCodec): McpServerRecord {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    transport: row.transport,
    config: codec.open(row.user_id, row.transport, parseJsonObject(row.config)),
    enabled: fromFlag(row.enabled),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export class McpServerRepository {
  readonly #db: Kysely<DatabaseSchema>;
  readonly #codec: StoredConfigCodec;

  readonly #reads: UserReads;

  constructor(
    db: Kysely<DatabaseSchema>,
    codec: StoredConfigCodec = IDENTITY_CODEC,
    reads: UserReads = UNCACHED_READS,
  ) {
    this.#db = db;
    this.#codec = codec;
    this.#reads = reads;
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
        config: JSON.stringify(this.#codec.seal(userId, server.transport, server.config)),
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
    return toRecord(row, this.#codec);
  }

  /** Cached per user state (issue 11), configs opened; the caller gets its own array. */
  async list(userId: string, options: { enabledOnly?: boolean } = {}): Promise<McpServerRecord[]> {
    const enabledOnly = options.enabledOnly === true;
    return [
      ...(await this.#reads.read(userId, `mcp_servers:${enabledOnly}`, () =>
        this.#list(userId, enabledOnly),
      )),
    ];
  }

  async #list(userId: string, enabledOnly: boolean): Promise<McpServerRecord[]> {
    let query = this.#db.selectFrom('mcp_servers').selectAll().where('user_id', '=', userId);
    if (enabledOnly) query = query.where('enabled', '=', 1);
    return (await query.orderBy('name').execute()).map((row) => toRecord(row, this.#codec));
  }

  async get(userId: string, id: string): Promise<McpServerRecord | undefined> {
    const row = await this.#db
      .selectFrom('mcp_servers')
      .selectAll()
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? undefined : toRecord(row, this.#codec);
  }

  async update(
    userId: string,
    id: string,
    changes: { name?: string; transport?: string; config?: Record<string, unknown>; enabled?: boolean },
  ): Promise<McpServerRecord | undefined> {
    const set: Partial<McpServersTable> = { updated_at: currentTimestamp() };
    if (changes.name !== undefined) set.name = changes.name;
    if (changes.transport !== undefined) set.transport = changes.transport;
    if (changes.config !== undefined) {
      const transport = changes.transport ?? (await this.get(userId, id))?.transport ?? '';
      set.config = JSON.stringify(this.#codec.seal(userId, transport, changes.config));
    }
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
