import type { Kysely } from 'kysely';
import type { DatabaseEngine } from '../database-engine.ts';

/**
 * Issue 16: permission rules on tool settings and agent tool rows, the decision recorded with each execution, and
 * pending approvals in a table so an answer reaching any instance is seen by the one running the turn.
 */
export async function up(db: Kysely<unknown>, _engine: DatabaseEngine): Promise<void> {
  await db.schema.alterTable('user_tool_settings').addColumn('permission', 'text').execute();
  await db.schema.alterTable('user_tool_settings').addColumn('approval_timeout_seconds', 'integer').execute();
  await db.schema.alterTable('agent_tools').addColumn('permission', 'text').execute();
  await db.schema.alterTable('tool_executions').addColumn('approval', 'text').execute();

  await db.schema
    .createTable('tool_approvals')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('chat_id', 'text', (column) => column.notNull().references('chats.id').onDelete('cascade'))
    .addColumn('call_id', 'text', (column) => column.notNull())
    .addColumn('tool_name', 'text', (column) => column.notNull())
    .addColumn('arguments', 'text', (column) => column.notNull())
    .addColumn('reason', 'text', (column) => column.notNull())
    .addColumn('subjects', 'text', (column) => column.notNull())
    .addColumn('agent_id', 'text')
    .addColumn('asked_by', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('remember', 'text')
    .addColumn('message', 'text')
    .addColumn('decided_by', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .addColumn('decided_at', 'text')
    .execute();
  // Not unique: some providers number call ids per turn, so one chat can see `call_1` again in a later turn.
  await db.schema
    .createIndex('tool_approvals_chat_call')
    .on('tool_approvals')
    .columns(['chat_id', 'call_id'])
    .execute();
  await db.schema
    .createIndex('tool_approvals_session')
    .on('tool_approvals')
    .columns(['chat_id', 'tool_name', 'remember'])
    .execute();
}
