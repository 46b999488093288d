import type { Kysely } from 'kysely';
import type { DatabaseEngine } from '../database-engine.ts';

/**
 * IMG-1 images in the database (issue 10, item 21): every instance behind a load balancer can serve any image, which
 * files in one instance's data directory could not. Bytes are the one non-portable column type (bytea / BLOB).
 */
export async function up(db: Kysely<unknown>, engine: DatabaseEngine): Promise<void> {
  await db.schema
    .createTable('images')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('chat_id', 'text')
    .addColumn('call_id', 'text')
    .addColumn('mime_type', 'text', (column) => column.notNull())
    .addColumn('model', 'text', (column) => column.notNull())
    .addColumn('bytes', 'integer', (column) => column.notNull())
    .addColumn('data', engine === 'postgres' ? 'bytea' : 'blob', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('images_user_id').on('images').column('user_id').execute();
}
