import type { Kysely } from 'kysely';
import type { DatabaseEngine } from '../database-engine.ts';

/** DB-1 tables. Never edit a released migration: add the next numbered file instead. */
export async function up(db: Kysely<unknown>, engine: DatabaseEngine): Promise<void> {
  const double = engine === 'postgres' ? 'double precision' : 'real';

  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('name', 'text', (column) => column.notNull().unique())
    .addColumn('is_admin', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .execute();

  await db.schema
    .createTable('api_tokens')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (column) => column.notNull().unique())
    .addColumn('label', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.createIndex('api_tokens_user_id').on('api_tokens').column('user_id').execute();

  await db.schema
    .createTable('user_tool_settings')
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('tool_name', 'text', (column) => column.notNull())
    .addColumn('enabled', 'integer')
    .addColumn('parameters', 'text', (column) => column.notNull().defaultTo('{}'))
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('user_tool_settings_pk', ['user_id', 'tool_name'])
    .execute();

  await db.schema
    .createTable('secrets')
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('ciphertext', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('secrets_pk', ['user_id', 'name'])
    .execute();

  await db.schema
    .createTable('tools')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('type', 'text', (column) => column.notNull())
    .addColumn('config', 'text', (column) => column.notNull().defaultTo('{}'))
    .addColumn('enabled', 'integer', (column) => column.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addUniqueConstraint('tools_user_name', ['user_id', 'name'])
    .execute();

  await db.schema
    .createTable('agents')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('description', 'text', (column) => column.notNull().defaultTo(''))
    .addColumn('config', 'text', (column) => column.notNull().defaultTo('{}'))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addUniqueConstraint('agents_user_name', ['user_id', 'name'])
    .execute();

  await db.schema
    .createTable('agent_tools')
    .addColumn('agent_id', 'text', (column) => column.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('tool_name', 'text', (column) => column.notNull())
    .addColumn('enabled', 'integer', (column) => column.notNull().defaultTo(1))
    .addColumn('config', 'text', (column) => column.notNull().defaultTo('{}'))
    .addPrimaryKeyConstraint('agent_tools_pk', ['agent_id', 'tool_name'])
    .execute();

  await db.schema
    .createTable('mcp_servers')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('transport', 'text', (column) => column.notNull())
    .addColumn('config', 'text', (column) => column.notNull().defaultTo('{}'))
    .addColumn('enabled', 'integer', (column) => column.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addUniqueConstraint('mcp_servers_user_name', ['user_id', 'name'])
    .execute();

  await db.schema
    .createTable('chats')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('title', 'text', (column) => column.notNull().defaultTo(''))
    .addColumn('working_directory', 'text')
    .addColumn('mode', 'text', (column) => column.notNull())
    .addColumn('agent_id', 'text', (column) => column.references('agents.id').onDelete('set null'))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('chats_user_id').on('chats').columns(['user_id', 'created_at']).execute();

  await db.schema
    .createTable('freshness_ledger')
    .addColumn('scope', 'text', (column) => column.notNull())
    .addColumn('real_path', 'text', (column) => column.notNull())
    .addColumn('sha256', 'text', (column) => column.notNull())
    .addColumn('recorded_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('freshness_ledger_pk', ['scope', 'real_path'])
    .execute();

  // No foreign keys: the audit trail outlives the users, chats and agents it mentions.
  await db.schema
    .createTable('tool_executions')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('call_id', 'text', (column) => column.notNull())
    .addColumn('tool_name', 'text', (column) => column.notNull())
    .addColumn('user_id', 'text', (column) => column.notNull())
    .addColumn('chat_id', 'text')
    .addColumn('agent_id', 'text')
    .addColumn('started_at', 'text', (column) => column.notNull())
    .addColumn('duration_ms', double, (column) => column.notNull())
    .addColumn('outcome', 'text', (column) => column.notNull())
    .addColumn('result_size', 'integer', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('tool_executions_user_started')
    .on('tool_executions')
    .columns(['user_id', 'started_at'])
    .execute();
  await db.schema.createIndex('tool_executions_started').on('tool_executions').column('started_at').execute();
}
