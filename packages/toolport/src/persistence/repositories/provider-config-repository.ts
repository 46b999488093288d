import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DatabaseSchema, ProviderConfigsTable } from '../database-schema.ts';
import { currentTimestamp } from './row-values.ts';

export interface ProviderConfigRecord {
  id: string;
  userId: string;
  /** Unique per user; what a turn's `provider` names. */
  name: string;
  /** The wire format: `openai` (Responses), `openai-chat`, `anthropic`, `gemini`. */
  provider: string;
  baseUrl: string | null;
  defaultModel: string;
  /** The name of the user's secret holding the API key (SEC-1: never the key itself). */
  apiKeySecret: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface NewProviderConfig {
  name: string;
  provider: string;
  baseUrl: string | null;
  defaultModel: string;
  apiKeySecret: string | null;
}

function toRecord(row: ProviderConfigsTable): ProviderConfigRecord {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    provider: row.provider,
    baseUrl: row.base_url,
    defaultModel: row.default_model,
    apiKeySecret: row.api_key_secret,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Scoped by owner everywhere: another user's configuration reads as missing (AUTH-1). */
export class ProviderConfigRepository {
  readonly #db: Kysely<DatabaseSchema>;

  constructor(db: Kysely<DatabaseSchema>) {
    this.#db = db;
  }

  /** Undefined when the user already has a configuration of that name. */
  async create(userId: string, config: NewProviderConfig): Promise<ProviderConfigRecord | undefined> {
    const now = currentTimestamp();
    const row: ProviderConfigsTable = {
      id: randomUUID(),
      user_id: userId,
      name: config.name,
      provider: config.provider,
      base_url: config.baseUrl,
      default_model: config.defaultModel,
      api_key_secret: config.apiKeySecret,
      created_at: now,
      updated_at: now,
    };
    const inserted = await this.#db
      .insertInto('provider_configs')
      .values(row)
      .onConflict((conflict) => conflict.columns(['user_id', 'name']).doNothing())
      .returning('id')
      .executeTakeFirst();
    return inserted === undefined ? undefined : toRecord(row);
  }

  /** Oldest first: the first one is the user's default. */
  async list(userId: string): Promise<ProviderConfigRecord[]> {
    const rows = await this.#db
      .selectFrom('provider_configs')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toRecord);
  }

  async get(userId: string, id: string): Promise<ProviderConfigRecord | undefined> {
    const row = await this.#db
      .selectFrom('provider_configs')
      .selectAll()
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? undefined : toRecord(row);
  }

  async getByName(userId: string, name: string): Promise<ProviderConfigRecord | undefined> {
    const row = await this.#db
      .selectFrom('provider_configs')
      .selectAll()
      .where('user_id', '=', userId)
      .where('name', '=', name)
      .executeTakeFirst();
    return row === undefined ? undefined : toRecord(row);
  }

  async update(
    userId: string,
    id: string,
    changes: Partial<NewProviderConfig>,
  ): Promise<ProviderConfigRecord | undefined> {
    const set: Partial<ProviderConfigsTable> = { updated_at: currentTimestamp() };
    if (changes.name !== undefined) set.name = changes.name;
    if (changes.provider !== undefined) set.provider = changes.provider;
    if (changes.baseUrl !== undefined) set.base_url = changes.baseUrl;
    if (changes.defaultModel !== undefined) set.default_model = changes.defaultModel;
    if (changes.apiKeySecret !== undefined) set.api_key_secret = changes.apiKeySecret;
    await this.#db
      .updateTable('provider_configs')
      .set(set)
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .execute();
    return this.get(userId, id);
  }

  async delete(userId: string, id: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('provider_configs')
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
