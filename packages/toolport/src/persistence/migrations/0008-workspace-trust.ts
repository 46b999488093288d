import type { Kysely } from 'kysely';
import type { DatabaseEngine } from '../database-engine.ts';

/**
 * WS-1 workspace trust: a user's approval of one workspace's tools.json, by the sha256 of the file they reviewed. A
 * changed file no longer matches and its tools do not run until the user trusts it again.
 */
export async function up(db: Kysely<unknown>, _engine: DatabaseEngine): Promise<void> {
  await db.schema
    .createTable('workspace_trust')
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('directory', 'text', (column) => column.notNull())
    .addColumn('sha256', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('workspace_trust_pk', ['user_id', 'directory'])
    .execute();
}
