import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { ChatMessagesTable, DatabaseSchema } from '../database-schema.ts';
import { currentTimestamp, fromFlag, toFlag } from './row-values.ts';

export interface TranscriptToolCall {
  id: string;
  name: string;
  /** The model's raw JSON text. */
  arguments: string;
}

/** One transcript entry, provider-neutral: replayed into any adapter's own message format on the next turn. */
export type TranscriptMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls: TranscriptToolCall[] }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string; isError: boolean };

export interface StoredTranscriptMessage {
  id: string;
  position: number;
  createdAt: string;
  message: TranscriptMessage;
}

function parseToolCalls(text: string | null): TranscriptToolCall[] {
  if (text === null) return [];
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? (value as TranscriptToolCall[]) : [];
  } catch {
    return [];
  }
}

function toStored(row: ChatMessagesTable): StoredTranscriptMessage {
  let message: TranscriptMessage;
  if (row.role === 'tool') {
    message = {
      role: 'tool',
      toolCallId: row.tool_call_id ?? '',
      toolName: row.tool_name ?? '',
      content: row.content,
      isError: fromFlag(row.is_error),
    };
  } else if (row.role === 'assistant') {
    message = { role: 'assistant', content: row.content, toolCalls: parseToolCalls(row.tool_calls) };
  } else message = { role: 'user', content: row.content };
  return { id: row.id, position: Number(row.position), createdAt: row.created_at, message };
}

/** The persisted chat transcript. Callers check chat ownership first (ChatService.get). */
export class ChatMessageRepository {
  readonly #db: Kysely<DatabaseSchema>;

  constructor(db: Kysely<DatabaseSchema>) {
    this.#db = db;
  }

  async list(chatId: string): Promise<StoredTranscriptMessage[]> {
    const rows = await this.#db
      .selectFrom('chat_messages')
      .selectAll()
      .where('chat_id', '=', chatId)
      .orderBy('position')
      .execute();
    return rows.map(toStored);
  }

  /**
   * Appends after the chat's last message, in one transaction. Two turns racing on one chat (PostgreSQL, read
   * committed) may pick the same positions: the unique key refuses the second, which retries after the first.
   */
  async append(chatId: string, messages: readonly TranscriptMessage[]): Promise<void> {
    if (messages.length === 0) return;
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.#appendOnce(chatId, messages);
        return;
      } catch (error) {
        if (attempt >= 5) throw error;
      }
    }
  }

  async #appendOnce(chatId: string, messages: readonly TranscriptMessage[]): Promise<void> {
    await this.#db.transaction().execute(async (transaction) => {
      const last = await transaction
        .selectFrom('chat_messages')
        .select((expression) => expression.fn.max('position').as('position'))
        .where('chat_id', '=', chatId)
        .executeTakeFirst();
      const start = last?.position === null || last?.position === undefined ? 0 : Number(last.position) + 1;
      const now = currentTimestamp();
      const rows: ChatMessagesTable[] = messages.map((message, index) => ({
        id: randomUUID(),
        chat_id: chatId,
        position: start + index,
        role: message.role,
        content: message.content,
        tool_calls:
          message.role === 'assistant' && message.toolCalls.length > 0
            ? JSON.stringify(message.toolCalls)
            : null,
        tool_call_id: message.role === 'tool' ? message.toolCallId : null,
        tool_name: message.role === 'tool' ? message.toolName : null,
        is_error: toFlag(message.role === 'tool' && message.isError),
        created_at: now,
      }));
      await transaction.insertInto('chat_messages').values(rows).execute();
    });
  }
}
