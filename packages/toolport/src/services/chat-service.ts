import { realpath, stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { ToolportError } from '../core/errors.ts';
import type { ToolMode } from '../core/tool-types.ts';
import type { ChatRecord, ChatRepository } from '../persistence/repositories/chat-repository.ts';
import type { FreshnessLedgerRepository } from '../persistence/repositories/freshness-ledger-repository.ts';

export interface CreateChatInput {
  title?: string;
  /** An absolute server-side directory; stored as its real path (PATH-1). */
  workingDirectory?: string | null;
  /** Defaults to `agent` when a working directory is bound, else `chat` (as the CLI's `--workdir`). */
  mode?: ToolMode;
}

export class ChatService {
  readonly #chats: ChatRepository;
  readonly #ledger: FreshnessLedgerRepository;

  constructor(chats: ChatRepository, ledger: FreshnessLedgerRepository) {
    this.#chats = chats;
    this.#ledger = ledger;
  }

  async create(userId: string, input: CreateChatInput): Promise<ChatRecord> {
    const workingDirectory =
      input.workingDirectory === undefined || input.workingDirectory === null
        ? null
        : await resolveWorkingDirectory(input.workingDirectory);
    return this.#chats.create(userId, {
      title: input.title ?? '',
      workingDirectory,
      mode: input.mode ?? (workingDirectory === null ? 'chat' : 'agent'),
    });
  }

  list(userId: string): Promise<ChatRecord[]> {
    return this.#chats.list(userId);
  }

  /** Another user's chat is `not_found`, exactly like a missing one (AUTH-1: no existence leak). */
  async get(userId: string, chatId: string): Promise<ChatRecord> {
    const chat = await this.#chats.get(userId, chatId);
    if (chat === undefined) throw chatNotFound(chatId);
    return chat;
  }

  async delete(userId: string, chatId: string): Promise<void> {
    if (!(await this.#chats.delete(userId, chatId))) throw chatNotFound(chatId);
    await this.#ledger.clearScope(chatId);
  }
}

async function resolveWorkingDirectory(directory: string): Promise<string> {
  const fail = (reason: string): never => {
    throw new ToolportError(
      'validation_failed',
      `workingDirectory ${JSON.stringify(directory)} ${reason}. Give an absolute path to an existing directory on the server.`,
      { details: { argument: 'workingDirectory' } },
    );
  };
  if (!isAbsolute(directory)) fail('is not absolute');
  let real = '';
  try {
    real = await realpath(directory);
  } catch {
    fail('does not exist');
  }
  if (!(await stat(real)).isDirectory()) fail('is not a directory');
  return real;
}

function chatNotFound(chatId: string): ToolportError {
  return new ToolportError('not_found', `No chat ${JSON.stringify(chatId)}.`, { details: { chatId } });
}
