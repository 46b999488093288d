import { sql, type Kysely } from 'kysely';
import type { DatabaseEngine } from '../database-engine.ts';

/**
 * Issue 11: `users.state_version` grows with every write to a row that a user's tool listing, settings or secrets are
 * built from. The auth query reads it with the token, so every instance learns on each request whether its per-user
 * caches are current (a change through another instance is seen by the next request here). Triggers, not code, bump
 * it: every write path — another instance, the CLI, a later feature — is covered, in the writing transaction.
 * Chats count only for their working directory and mode (the settings list shows the tools of agent-mode workspaces).
 */
const TABLES = ['user_tool_settings', 'secrets', 'tools', 'mcp_servers', 'workspace_trust'] as const;

export async function up(db: Kysely<unknown>, engine: DatabaseEngine): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('state_version', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  if (engine === 'postgres') {
    await sql`
      create function toolport_bump_user_state() returns trigger language plpgsql as $$
      begin
        if tg_op <> 'INSERT' then
          update users set state_version = state_version + 1 where id = old.user_id;
        end if;
        if tg_op <> 'DELETE' and (tg_op = 'INSERT' or new.user_id is distinct from old.user_id) then
          update users set state_version = state_version + 1 where id = new.user_id;
        end if;
        return null;
      end $$`.execute(db);
    for (const table of TABLES) {
      await sql`
        create trigger ${sql.raw(`${table}_user_state`)} after insert or update or delete on ${sql.table(table)}
        for each row execute function toolport_bump_user_state()`.execute(db);
    }
    await sql`
      create trigger chats_user_state after insert or delete or update of working_directory, mode on chats
      for each row execute function toolport_bump_user_state()`.execute(db);
    return;
  }
  const bump = (row: 'new' | 'old') =>
    `update users set state_version = state_version + 1 where id = ${row}.user_id;`;
  const triggers: Array<[string, string, string]> = [];
  for (const table of [...TABLES, 'chats']) {
    const update = table === 'chats' ? 'update of working_directory, mode' : 'update';
    triggers.push(
      [`${table}_user_state_insert`, `insert on ${table}`, bump('new')],
      [`${table}_user_state_delete`, `delete on ${table}`, bump('old')],
      [
        `${table}_user_state_update`,
        `${update} on ${table}`,
        `${bump('old')} update users set state_version = state_version + 1 where id = new.user_id and new.user_id <> old.user_id;`,
      ],
    );
  }
  for (const [name, event, body] of triggers) {
    await sql.raw(`create trigger ${name} after ${event} for each row begin ${body} end`).execute(db);
  }
}
