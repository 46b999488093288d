import { realpath, stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { ToolportError } from '../core/errors.ts';
import type { ToolMode } from '../core/tool-types.ts';
import type { AgentRepository } from '../persistence/repositories/agent-repository.ts';
import type { ChatRecord, ChatRepository } from '../persistence/repositories/chat-repository.ts';
import type { FreshnessLedgerRepository } from '../persistence/repositories/freshness-ledger-repository.ts';
import { DEFAULT_OPERATOR_POLICY, type OperatorPolicy } from '../policy/operator-policy.ts';
import type { PolicySubject } from '../policy/policy-denied.ts';
import { assertWorkingDirectoryAllowed } from '../policy/workspace-roots.ts';

export interface CreateChatInput {
  title?: string;
  /** An absolute server-side directory; stored as its real path (PATH-1). */
  workingDirectory?: string | null;
  /** Defaults to `agent` when a working directory is bound, else `chat` (as the CLI's `--workdir`). */
  mode?: ToolMode;
  /** AGENT-1: the agent whose prompt, model and tools the chat's turns run with (one of the user's). */
  agentId?: string | null;
}

/** `PATCH /api/chats/:chatId`: only the fields given change; `null` unbinds a working directory or an agent. */
export type UpdateChatInput = CreateChatInput;

export class ChatService {
  readonly #chats: ChatRepository;
  readonly #ledger: FreshnessLedgerRepository;
  readonly #policy: OperatorPolicy;
  readonly #agents: AgentRepository | undefined;

  constructor(
    chats: ChatRepository,
    ledger: FreshnessLedgerRepository,
    policy: OperatorPolicy = DEFAULT_OPERATOR_POLICY,
    agents?: AgentRepository,
  ) {
    this.#chats = chats;
    this.#ledger = ledger;
    this.#policy = policy;
    this.#agents = agents;
  }

  /** AUTH-2: a non-admin binds only under `workspaceRoots`; nobody binds inside a server-wide denied path. */
  async create(user: PolicySubject, input: CreateChatInput): Promise<ChatRecord> {
    const workingDirectory = await this.#bindable(user, input.workingDirectory);
    const agentId = await this.#checkedAgentId(user.id, input.agentId);
    return this.#chats.create(user.id, {
      title: input.title ?? '',
      workingDirectory: workingDirectory ?? null,
      mode: input.mode ?? (workingDirectory === undefined || workingDirectory === null ? 'chat' : 'agent'),
      ...(agentId === undefined ? {} : { agentId }),
    });
  }

  async update(user: PolicySubject, chatId: string, input: UpdateChatInput): Promise<ChatRecord> {
    const chat = await this.get(user.id, chatId);
    const workingDirectory = await this.#bindable(user, input.workingDirectory);
    const agentId = await this.#checkedAgentId(user.id, input.agentId);
    const updated = await this.#chats.update(user.id, chat.id, {
      ...(input.title === undefined ? {} : { title: input.title }),
      ...(workingDirectory === undefined ? {} : { workingDirectory }),
      // Binding a directory without naming a mode switches to agent mode, as on create.
      ...(input.mode !== undefined
        ? { mode: input.mode }
        : typeof workingDirectory === 'string'
          ? { mode: 'agent' as const }
          : {}),
      ...(agentId === undefined ? {} : { agentId }),
    });
    if (updated === undefined) throw chatNotFound(chatId);
    return updated;
  }

  /** The real path to bind (null unbinds, undefined leaves it), after the policy's checks. */
  async #bindable(
    user: PolicySubject,
    directory: string | null | undefined,
  ): Promise<string | null | undefined> {
    if (directory === undefined || directory === null) return directory;
    const real = await resolveWorkingDirectory(directory);
    await assertWorkingDirectoryAllowed(this.#policy, user, real);
    return real;
  }

  async #checkedAgentId(
    userId: string,
    agentId: string | null | undefined,
  ): Promise<string | null | undefined> {
    if (agentId === undefined || agentId === null) return agentId;
    if (this.#agents === undefined || (await this.#agents.get(userId, agentId)) === undefined) {
      throw new ToolportError(
        'validation_failed',
        `agentId ${JSON.stringify(agentId)} names no agent of yours; GET /api/agents lists them.`,
        { details: { argument: 'agentId' } },
      );
    }
    return agentId;
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
