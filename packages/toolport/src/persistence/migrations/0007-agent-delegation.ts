import type { Kysely } from 'kysely';
import type { DatabaseEngine } from '../database-engine.ts';

/** AGENT-1: a sub-agent's tool calls are recorded under the call that delegated to it. */
export async function up(db: Kysely<unknown>, _engine: DatabaseEngine): Promise<void> {
  await db.schema.alterTable('tool_executions').addColumn('parent_call_id', 'text').execute();
  await db.schema
    .createIndex('tool_executions_parent_call')
    .on('tool_executions')
    .column('parent_call_id')
    .execute();
}
