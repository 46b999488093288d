import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../database-schema.ts';
import { currentTimestamp } from './row-values.ts';

/** An authorization in progress, as stored (the verifier still sealed). */
export interface McpOAuthPendingRecord {
  userId: string;
  serverId: string;
  sealedVerifier: string;
  redirectUrl: string;
  expiresAt: string;
}

/**
 * MCP-1 OAuth rows (migration 0011). Credentials are per user and server (AUTH-1: every query filters by `user_id`);
 * pending authorizations are found by the hash of their `state` alone (the browser's return carries no user), and
 * `takePending` deletes the row it returns, so a state is used once.
 */
export class McpOAuthRepository {
  readonly #db: Kysely<DatabaseSchema>;

  constructor(db: Kysely<DatabaseSchema>) {
    this.#db = db;
  }

  async getSealed(userId: string, serverId: string): Promise<string | undefined> {
    const row = await this.#db
      .selectFrom('mcp_oauth_credentials')
      .select('sealed')
      .where('user_id', '=', userId)
      .where('server_id', '=', serverId)
      .executeTakeFirst();
    return row?.sealed;
  }

  async putSealed(userId: string, serverId: string, sealed: string): Promise<void> {
    const now = currentTimestamp();
    await this.#db
      .insertInto('mcp_oauth_credentials')
      .values({ user_id: userId, server_id: serverId, sealed, created_at: now, updated_at: now })
      .onConflict((conflict) =>
        conflict.columns(['user_id', 'server_id']).doUpdateSet({ sealed, updated_at: now }),
      )
      .execute();
  }

  /** Every sealed row of one user (for redaction), with its server id. */
  async listSealed(userId: string): Promise<Array<{ serverId: string; sealed: string }>> {
    const rows = await this.#db
      .selectFrom('mcp_oauth_credentials')
      .select(['server_id', 'sealed'])
      .where('user_id', '=', userId)
      .execute();
    return rows.map((row) => ({ serverId: row.server_id, sealed: row.sealed }));
  }

  /** Forgets the user's credentials for the server and any authorization of it in progress. */
  async delete(userId: string, serverId: string): Promise<boolean> {
    const pending = await this.#db
      .deleteFrom('mcp_oauth_states')
      .where('user_id', '=', userId)
      .where('server_id', '=', serverId)
      .executeTakeFirst();
    const stored = await this.#db
      .deleteFrom('mcp_oauth_credentials')
      .where('user_id', '=', userId)
      .where('server_id', '=', serverId)
      .executeTakeFirst();
    return Number(stored.numDeletedRows) + Number(pending.numDeletedRows) > 0;
  }

  async insertPending(stateHash: string, record: McpOAuthPendingRecord): Promise<void> {
    const now = currentTimestamp();
    // Expired rows of anyone go first: they can never be used.
    await this.#db.deleteFrom('mcp_oauth_states').where('expires_at', '<', now).execute();
    await this.#db
      .insertInto('mcp_oauth_states')
      .values({
        state_hash: stateHash,
        user_id: record.userId,
        server_id: record.serverId,
        sealed_verifier: record.sealedVerifier,
        redirect_url: record.redirectUrl,
        expires_at: record.expiresAt,
        created_at: now,
      })
      .execute();
  }

  /** The pending authorization with this state hash, deleted as it is read (single use); undefined when unknown. */
  async takePending(stateHash: string): Promise<McpOAuthPendingRecord | undefined> {
    const row = await this.#db
      .selectFrom('mcp_oauth_states')
      .selectAll()
      .where('state_hash', '=', stateHash)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    const deleted = await this.#db
      .deleteFrom('mcp_oauth_states')
      .where('state_hash', '=', stateHash)
      .executeTakeFirst();
    // Two callbacks with one state at once: only the one whose delete removed the row goes on.
    if (Number(deleted.numDeletedRows) !== 1) return undefined;
    return {
      userId: row.user_id,
      serverId: row.server_id,
      sealedVerifier: row.sealed_verifier,
      redirectUrl: row.redirect_url,
      expiresAt: row.expires_at,
    };
  }
}
