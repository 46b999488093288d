import type { Kysely } from 'kysely';
import type { ToolSettingsInput } from '../../core/tool-types.ts';
import type { DatabaseEngine } from '../database-engine.ts';
import type { DatabaseSchema, UserToolSettingsTable } from '../database-schema.ts';
import { UNCACHED_READS, type UserReads } from '../user-state-cache.ts';
import { currentTimestamp, fromFlag, parseJsonColumn, parseJsonObject, toFlag } from './row-values.ts';

/** A saved row as the settings policy reads it: unchecked values (CORE-3 coerces them at merge time). */
export interface StoredToolSettings {
  enabled?: boolean;
  parameters: Record<string, unknown>;
  updatedAt: string;
  /** Issue 16: the stored permission rule, unchecked (coerced where it is used). */
  permission?: unknown;
  approvalTimeoutSeconds?: number;
}

/** What a write stores (`put`, `update`'s change). */
export interface ToolSettingsWrite {
  enabled?: boolean;
  parameters: Record<string, unknown>;
  permission?: unknown;
  approvalTimeoutSeconds?: number;
}

function toStored(row: UserToolSettingsTable): StoredToolSettings {
  const stored: StoredToolSettings = {
    parameters: parseJsonObject(row.parameters),
    updatedAt: row.updated_at,
  };
  if (row.enabled !== null) stored.enabled = fromFlag(row.enabled);
  const permission = parseJsonColumn(row.permission);
  if (permission !== undefined) stored.permission = permission;
  if (row.approval_timeout_seconds !== null && row.approval_timeout_seconds !== undefined)
    stored.approvalTimeoutSeconds = Number(row.approval_timeout_seconds);
  return stored;
}

export function toSettingsInput(stored: StoredToolSettings): ToolSettingsInput {
  return stored.enabled === undefined
    ? { parameters: stored.parameters }
    : { enabled: stored.enabled, parameters: stored.parameters };
}

/** DB table user_tool_settings (seed "Arquitetura": tool-settings-repository.ts). */
export class ToolSettingsRepository {
  readonly #db: Kysely<DatabaseSchema>;
  readonly #engine: DatabaseEngine;
  readonly #reads: UserReads;

  constructor(db: Kysely<DatabaseSchema>, engine: DatabaseEngine, reads: UserReads = UNCACHED_READS) {
    this.#db = db;
    this.#engine = engine;
    this.#reads = reads;
  }

  /** Cached per user state (issue 11); the caller gets its own Map. */
  async listForUser(userId: string): Promise<Map<string, StoredToolSettings>> {
    return new Map(await this.#reads.read(userId, 'user_tool_settings', () => this.#listForUser(userId)));
  }

  async #listForUser(userId: string): Promise<Map<string, StoredToolSettings>> {
    const rows = await this.#db
      .selectFrom('user_tool_settings')
      .selectAll()
      .where('user_id', '=', userId)
      .execute();
    return new Map(rows.map((row) => [row.tool_name, toStored(row)]));
  }

  async get(userId: string, toolName: string): Promise<StoredToolSettings | undefined> {
    const row = await this.#db
      .selectFrom('user_tool_settings')
      .selectAll()
      .where('user_id', '=', userId)
      .where('tool_name', '=', toolName)
      .executeTakeFirst();
    return row === undefined ? undefined : toStored(row);
  }

  /** Replaces the saved row. */
  async put(userId: string, toolName: string, settings: ToolSettingsWrite): Promise<StoredToolSettings> {
    const values = {
      user_id: userId,
      tool_name: toolName,
      enabled: settings.enabled === undefined ? null : toFlag(settings.enabled),
      parameters: JSON.stringify(settings.parameters),
      updated_at: currentTimestamp(),
      permission: settings.permission === undefined ? null : JSON.stringify(settings.permission),
      approval_timeout_seconds: settings.approvalTimeoutSeconds ?? null,
    };
    await this.#db
      .insertInto('user_tool_settings')
      .values(values)
      .onConflict((conflict) =>
        conflict.columns(['user_id', 'tool_name']).doUpdateSet({
          enabled: values.enabled,
          parameters: values.parameters,
          updated_at: values.updated_at,
          permission: values.permission,
          approval_timeout_seconds: values.approval_timeout_seconds,
        }),
      )
      .execute();
    return toStored(values);
  }

  /**
   * Read-modify-write of one row without lost updates: two instances updating different parameters of one tool at
   * once both land. PostgreSQL locks the row (created first if missing); SQLite serializes writers anyway.
   */
  async update(
    userId: string,
    toolName: string,
    change: (current: StoredToolSettings | undefined) => ToolSettingsWrite,
  ): Promise<StoredToolSettings> {
    return this.#db.transaction().execute(async (transaction) => {
      let current: UserToolSettingsTable | undefined;
      if (this.#engine === 'postgres') {
        await transaction
          .insertInto('user_tool_settings')
          .values({
            user_id: userId,
            tool_name: toolName,
            enabled: null,
            parameters: '{}',
            updated_at: currentTimestamp(),
          })
          .onConflict((conflict) => conflict.columns(['user_id', 'tool_name']).doNothing())
          .execute();
        current = await transaction
          .selectFrom('user_tool_settings')
          .selectAll()
          .where('user_id', '=', userId)
          .where('tool_name', '=', toolName)
          .forUpdate()
          .executeTakeFirst();
      } else {
        current = await transaction
          .selectFrom('user_tool_settings')
          .selectAll()
          .where('user_id', '=', userId)
          .where('tool_name', '=', toolName)
          .executeTakeFirst();
      }
      const next = change(current === undefined ? undefined : toStored(current));
      return new ToolSettingsRepository(transaction, this.#engine).put(userId, toolName, next);
    });
  }

  async delete(userId: string, toolName: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('user_tool_settings')
      .where('user_id', '=', userId)
      .where('tool_name', '=', toolName)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
