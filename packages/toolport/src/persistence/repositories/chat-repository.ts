import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { ToolMode } from '../../core/tool-types.ts';
import type { ChatsTable, DatabaseSchema } from '../database-schema.ts';
import { currentTimestamp } from './row-values.ts';

export interface ChatRecord {
  id: string;
  userId: string;
  title: string;
  /** Real path of the bound working directory (PATH-1), or null. */
  workingDirectory: string | null;
  mode: ToolMode;
  agentId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface NewChat {
  title?: string;
  workingDirectory?: string | null;
  mode: ToolMode;
  agentId?: string | null;
}

function toChatRecord(row: ChatsTable): ChatRecord {
  return {
    id: row.id,
    userId: row.user_id,
    title: row.title,
    workingDirectory: row.working_directory,
    mode: row.mode === 'agent' ? 'agent' : 'chat',
    agentId: row.agent_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Every read and write is scoped by owner: another user's chat is indistinguishable from a missing one (AUTH-1). */
export class ChatRepository {
  readonly #db: Kysely<DatabaseSchema>;

  constructor(db: Kysely<DatabaseSchema>) {
    this.#db = db;
  }

  async create(userId: string, chat: NewChat): Promise<ChatRecord> {
    const now = currentTimestamp();
    const row: ChatsTable = {
      id: randomUUID(),
      user_id: userId,
      title: chat.title ?? '',
      working_directory: chat.workingDirectory ?? null,
      mode: chat.mode,
      agent_id: chat.agentId ?? null,
      created_at: now,
      updated_at: now,
    };
    await this.#db.insertInto('chats').values(row).execute();
    return toChatRecord(row);
  }

  async get(userId: string, chatId: string): Promise<ChatRecord | undefined> {
    const row = await this.#db
      .selectFrom('chats')
      .selectAll()
      .where('user_id', '=', userId)
      .where('id', '=', chatId)
      .executeTakeFirst();
    return row === undefined ? undefined : toChatRecord(row);
  }

  /** Newest first. */
  async list(userId: string): Promise<ChatRecord[]> {
    const rows = await this.#db
      .selectFrom('chats')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .execute();
    return rows.map(toChatRecord);
  }

  async update(
    userId: string,
    chatId: string,
    changes: Partial<Pick<NewChat, 'title' | 'workingDirectory' | 'mode' | 'agentId'>>,
  ): Promise<ChatRecord | undefined> {
    const set: Partial<ChatsTable> = { updated_at: currentTimestamp() };
    if (changes.title !== undefined) set.title = changes.title;
    if (changes.workingDirectory !== undefined) set.working_directory = changes.workingDirectory;
    if (changes.mode !== undefined) set.mode = changes.mode;
    if (changes.agentId !== undefined) set.agent_id = changes.agentId;
    await this.#db
      .updateTable('chats')
      .set(set)
      .where('user_id', '=', userId)
      .where('id', '=', chatId)
      .execute();
    return this.get(userId, chatId);
  }

  async delete(userId: string, chatId: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('chats')
      .where('user_id', '=', userId)
      .where('id', '=', chatId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
