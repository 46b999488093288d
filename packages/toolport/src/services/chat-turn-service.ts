import { ToolportError } from '../core/errors.ts';
import type { ImageGenerationService, ImageStore, ToolportLogger } from '../core/tool-types.ts';
import type { AgentRecord, AgentRepository } from '../persistence/repositories/agent-repository.ts';
import type {
  ChatMessageRepository,
  StoredTranscriptMessage,
} from '../persistence/repositories/chat-message-repository.ts';
import { runAgentTurn, startConversation } from '../providers/agent-loop.ts';
import {
  createImageGenerationService,
  type ImageGenerationServiceOptions,
} from '../providers/images/image-generation-service.ts';
import type { StreamEvent } from '../providers/stream-events.ts';
import type { PolicySubject } from '../policy/policy-denied.ts';
import type { ApprovalService } from './approval-service.ts';
import type { ChatService } from './chat-service.ts';
import type { ProviderConfigService } from './provider-config-service.ts';
import { parseAgentConfig, type AgentConfig } from './agent-service.ts';
import { createAdapterForConfig } from './provider-adapter-for-config.ts';
import { replayTranscript } from './replay-transcript.ts';
import type { ToolRuntimeService } from './tool-runtime-service.ts';
import { TranscriptRecorder } from './transcript-recorder.ts';

export interface ChatTurnInput {
  message: string;
  /** The name of one of the user's provider configurations; default: their oldest. */
  provider?: string;
  /** Default: the configuration's default model. */
  model?: string;
  maxIterations?: number;
  /** AGENT-1: an agent id; this turn runs with that agent instead of the chat's. */
  agent?: string;
}

export interface PreparedChatTurn {
  readonly provider: string;
  readonly model: string;
  /**
   * Streams the turn's PROV-3 events. Aborting `signal` (the client went away, the server is stopping) aborts the
   * provider stream and every running tool. The transcript is written when the turn ends, cancelled ones included.
   */
  run(signal: AbortSignal): AsyncGenerator<StreamEvent, void>;
}

export interface ChatTurnServiceOptions {
  chats: ChatService;
  agents: AgentRepository;
  messages: ChatMessageRepository;
  providers: ProviderConfigService;
  toolRuntime: ToolRuntimeService;
  /** Issue 16: who answers a call a permission rule marks `ask` (the turn's stream shows `approval_requested`). */
  approvals?: ApprovalService;
  imageStore?: ImageStore;
  /** SDK retries on 429/5xx (default 2; tests use 0). */
  maxRetries?: number;
  logger?: ToolportLogger;
}

/** SPEC PROV-4 behind `POST /api/chats/:id/turns`: the user's provider, tools and transcript around the agent loop. */
export class ChatTurnService {
  readonly #options: ChatTurnServiceOptions;

  constructor(options: ChatTurnServiceOptions) {
    this.#options = options;
  }

  async listMessages(userId: string, chatId: string): Promise<StoredTranscriptMessage[]> {
    const chat = await this.#options.chats.get(userId, chatId);
    return this.#options.messages.list(chat.id);
  }

  /** Everything that can fail with a plain error response (unknown chat, no provider, missing key) fails here. */
  async prepareTurn(user: PolicySubject, chatId: string, input: ChatTurnInput): Promise<PreparedChatTurn> {
    const { chats, agents, messages, providers, toolRuntime, logger } = this.#options;
    const userId = user.id;
    const chat = await chats.get(userId, chatId);
    const agentId = input.agent ?? chat.agentId;
    const agent: AgentRecord | undefined = agentId === null ? undefined : await agents.get(userId, agentId);
    if (agentId !== null && agent === undefined) {
      throw new ToolportError('not_found', `No agent ${JSON.stringify(agentId)}.`, { details: { agentId } });
    }
    // AGENT-1: the agent's provider configuration, model and iteration limit, unless the turn names its own.
    const agentConfig = agent === undefined ? {} : storedAgentConfig(agent, logger);
    const resolved = await providers.resolve(user, input.provider ?? agentConfig.providerConfig);
    const model = input.model ?? agentConfig.model ?? resolved.config.defaultModel;
    const maxIterations = input.maxIterations ?? agentConfig.maxIterations;
    const images = await this.#imageService(user, resolved.config.name);
    const history = await messages.list(chat.id);
    const maxRetries = this.#options.maxRetries;
    const imageStore = this.#options.imageStore;
    const approve = this.#options.approvals?.approverFor(user);

    return {
      provider: resolved.config.name,
      model,
      async *run(signal) {
        const runtime = await toolRuntime.getEnabledToolRuntime(user, chat, agent, {
          signal,
          toolServices: {
            ...(images === undefined ? {} : { images }),
            ...(imageStore === undefined ? {} : { imageStore }),
          },
        });
        const adapter = createAdapterForConfig(resolved, {
          model,
          ...(maxRetries === undefined ? {} : { maxRetries }),
          ...(logger === undefined ? {} : { logger }),
        });
        const systemPrompt = agentConfig.systemPrompt;
        const session = startConversation({
          adapter,
          runtime,
          ...(typeof systemPrompt === 'string' ? { systemPrompt } : {}),
          onNonStrict: (tool, reason) => logger?.info({ tool, reason }, 'tool sent without strict mode'),
        });
        replayTranscript(
          session,
          history.map((stored) => stored.message),
        );
        const recorder = new TranscriptRecorder(input.message);
        try {
          const turn = runAgentTurn({
            session,
            runtime,
            userMessage: input.message,
            ...(maxIterations === undefined ? {} : { maxIterations }),
            signal,
            logger,
            ...(approve === undefined ? {} : { approve }),
          });
          for await (const event of turn) {
            recorder.observe(event);
            yield event;
          }
        } finally {
          await messages.append(chat.id, recorder.messages).catch((error: unknown) => {
            logger?.error({ chatId: chat.id, error: String(error) }, 'could not save the chat transcript');
          });
        }
      },
    };
  }

  /**
   * IMG-1 for this user: OpenAI Images from an `openai` configuration, Gemini image models from a `gemini` one. The
   * turn's own configuration comes first, then the others oldest first.
   */
  async #imageService(
    user: PolicySubject,
    turnConfigName: string,
  ): Promise<ImageGenerationService | undefined> {
    const { providers, maxRetries } = this.#options;
    const options: ImageGenerationServiceOptions = maxRetries === undefined ? {} : { maxRetries };
    const configs = await providers.list(user.id);
    configs.sort((a, b) => Number(b.name === turnConfigName) - Number(a.name === turnConfigName));
    for (const config of configs) {
      const slot =
        config.provider === 'openai' ? 'openai' : config.provider === 'gemini' ? 'gemini' : undefined;
      if (slot === undefined || options[slot] !== undefined) continue;
      try {
        const { apiKey, fetch } = await providers.resolve(user, config.name);
        options[slot] = {
          apiKey,
          ...(config.baseUrl === null ? {} : { baseURL: config.baseUrl }),
          ...(fetch === undefined ? {} : { fetch }),
        };
      } catch {
        // A configuration without a usable key offers no images; the tool says which provider is missing.
      }
    }
    return options.openai === undefined && options.gemini === undefined
      ? undefined
      : createImageGenerationService(options);
  }
}

/** A stored agent's config; one written before validation existed and no longer valid counts as empty (logged). */
function storedAgentConfig(agent: AgentRecord, logger: ToolportLogger | undefined): AgentConfig {
  try {
    return parseAgentConfig(agent.config);
  } catch (error) {
    logger?.warn({ agentId: agent.id, error: String(error) }, 'agent config ignored: invalid');
    return {};
  }
}
