import { sql, type Kysely } from 'kysely';
import type { DatabaseEngine } from '../database-engine.ts';

/**
 * MCP-1 OAuth for remote MCP servers, per user and server:
 * - `mcp_oauth_credentials`: what the OAuth flow keeps (tokens, the registered client, discovery results), as one
 *   AES-256-GCM sealed JSON text bound to the user and server (secrets/secret-cipher.ts); never returned by the API.
 * - `mcp_oauth_states`: authorizations in progress. The `state` parameter is stored as its sha256 only; each row is
 *   bound to the user and server, holds the PKCE verifier (sealed), is deleted when used and expires.
 * Both go with their user or server (cascade).
 */
export async function up(db: Kysely<unknown>, engine: DatabaseEngine): Promise<void> {
  await db.schema
    .createTable('mcp_oauth_credentials')
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('server_id', 'text', (column) =>
      column.notNull().references('mcp_servers.id').onDelete('cascade'),
    )
    .addColumn('sealed', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('mcp_oauth_credentials_pk', ['user_id', 'server_id'])
    .execute();

  await db.schema
    .createTable('mcp_oauth_states')
    .addColumn('state_hash', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('server_id', 'text', (column) =>
      column.notNull().references('mcp_servers.id').onDelete('cascade'),
    )
    .addColumn('sealed_verifier', 'text', (column) => column.notNull())
    .addColumn('redirect_url', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('mcp_oauth_states_user_server')
    .on('mcp_oauth_states')
    .columns(['user_id', 'server_id'])
    .execute();
  await bumpUserStateOnWrite(db, engine, 'mcp_oauth_credentials');
}

/**
 * Like 0011's tables: stored or refreshed tokens change the user's MCP listing and the values every result is
 * redacted of, so a write bumps `users.state_version` (per-user caches on every instance drop what they hold).
 */
async function bumpUserStateOnWrite(
  db: Kysely<unknown>,
  engine: DatabaseEngine,
  table: string,
): Promise<void> {
  if (engine === 'postgres') {
    // toolport_bump_user_state() is 0011's.
    await sql`
      create trigger ${sql.raw(`${table}_user_state`)} after insert or update or delete on ${sql.table(table)}
      for each row execute function toolport_bump_user_state()`.execute(db);
    return;
  }
  const bump = (row: 'new' | 'old') =>
    `update users set state_version = state_version + 1 where id = ${row}.user_id;`;
  for (const [name, event, body] of [
    [`${table}_user_state_insert`, `insert on ${table}`, bump('new')],
    [`${table}_user_state_delete`, `delete on ${table}`, bump('old')],
    [
      `${table}_user_state_update`,
      `update on ${table}`,
      `${bump('old')} update users set state_version = state_version + 1 where id = new.user_id and new.user_id <> old.user_id;`,
    ],
  ] as const) {
    await sql.raw(`create trigger ${name} after ${event} for each row begin ${body} end`).execute(db);
  }
}
