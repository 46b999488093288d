import type { Kysely } from 'kysely';
import type { DatabaseEngine } from '../database-engine.ts';

/** Per-user provider configurations and the chat transcript (issue 5, items 6 and 7). */
export async function up(db: Kysely<unknown>, _engine: DatabaseEngine): Promise<void> {
  // The API key is never stored here: `api_key_secret` names one of the user's secrets (SEC-1).
  await db.schema
    .createTable('provider_configs')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('provider', 'text', (column) => column.notNull())
    .addColumn('base_url', 'text')
    .addColumn('default_model', 'text', (column) => column.notNull())
    .addColumn('api_key_secret', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addUniqueConstraint('provider_configs_user_name', ['user_id', 'name'])
    .execute();

  await db.schema
    .createTable('chat_messages')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('chat_id', 'text', (column) => column.notNull().references('chats.id').onDelete('cascade'))
    .addColumn('position', 'integer', (column) => column.notNull())
    .addColumn('role', 'text', (column) => column.notNull())
    .addColumn('content', 'text', (column) => column.notNull().defaultTo(''))
    .addColumn('tool_calls', 'text')
    .addColumn('tool_call_id', 'text')
    .addColumn('tool_name', 'text')
    .addColumn('is_error', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addUniqueConstraint('chat_messages_chat_position', ['chat_id', 'position'])
    .execute();
}
