import type { Kysely } from 'kysely';
import type { DatabaseEngine } from '../database-engine.ts';

/**
 * MCP-1 OAuth for remote MCP servers, per user and server:
 * - `mcp_oauth_credentials`: what the OAuth flow keeps (tokens, the registered client, discovery results), as one
 *   AES-256-GCM sealed JSON text bound to the user and server (secrets/secret-cipher.ts); never returned by the API.
 * - `mcp_oauth_states`: authorizations in progress. The `state` parameter is stored as its sha256 only; each row is
 *   bound to the user and server, holds the PKCE verifier (sealed), is deleted when used and expires.
 * Both go with their user or server (cascade).
 */
export async function up(db: Kysely<unknown>, _engine: DatabaseEngine): Promise<void> {
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
}
