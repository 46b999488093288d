import { ToolportError } from '../core/errors.ts';
import type { ToolContext, ToolportLogger } from '../core/tool-types.ts';
import type { DelegationRequest, DelegationResult } from '../custom-tools/agent-tool.ts';
import type { AgentRepository } from '../persistence/repositories/agent-repository.ts';
import type { ChatRepository } from '../persistence/repositories/chat-repository.ts';
import type { UserRepository } from '../persistence/repositories/user-repository.ts';
import { runAgentTurn, startConversation, type AgentTurnSummary } from '../providers/agent-loop.ts';
import { parseAgentConfig } from './agent-service.ts';
import { createAdapterForConfig } from './provider-adapter-for-config.ts';
import type { ProviderConfigService } from './provider-config-service.ts';
import type { ToolRuntimeService } from './tool-runtime-service.ts';

export interface AgentDelegationServiceOptions {
  agents: AgentRepository;
  chats: ChatRepository;
  /** The caller's record: the policy judges the sub-turn's tools and provider by who the user is. */
  users: UserRepository;
  providers: ProviderConfigService;
  /** Late-bound: the runtime service is built after the catalog that holds the agent tools. */
  toolRuntime: () => ToolRuntimeService;
  maxRetries?: number;
  logger?: ToolportLogger;
}

/**
 * AGENT-1: runs a delegation — the target agent's own loop (its prompt, provider configuration, model, tools and
 * `maxIterations`) on the task, in the caller's chat (its working directory and mode), with the caller's
 * cancellation. Every event of the sub-turn is forwarded to the caller through `context.emitNestedEvent` (the agent
 * loop tags it with the delegating call's id), and every call the sub-agent makes is recorded under that call.
 */
export class AgentDelegationService {
  readonly #options: AgentDelegationServiceOptions;

  constructor(options: AgentDelegationServiceOptions) {
    this.#options = options;
  }

  async delegate(request: DelegationRequest, context: ToolContext): Promise<DelegationResult> {
    const { agents, chats, providers, logger } = this.#options;
    const chain = context.services.delegation ?? {
      agentIds: context.agentId === undefined ? [] : [context.agentId],
      depth: 0,
    };
    // Both limits are checked before anything of the target runs.
    if (chain.agentIds.includes(request.targetAgentId)) {
      throw new ToolportError(
        'permission_denied',
        `Delegation refused: agent ${request.targetAgentId} is already in this chain of delegations ` +
          `(${[...chain.agentIds, request.targetAgentId].join(' → ')}), which would be a cycle.`,
        { details: { reason: 'delegation_cycle', chain: chain.agentIds } },
      );
    }
    if (chain.depth + 1 > request.maxDelegationDepth) {
      throw new ToolportError(
        'permission_denied',
        `Delegation refused: this chain already holds ${chain.depth} delegation${chain.depth === 1 ? '' : 's'}, ` +
          `the limit (setting maxDelegationDepth) is ${request.maxDelegationDepth}.`,
        {
          details: {
            reason: 'delegation_depth',
            depth: chain.depth,
            maxDelegationDepth: request.maxDelegationDepth,
          },
        },
      );
    }
    const target = await agents.get(context.userId, request.targetAgentId);
    if (target === undefined) {
      throw new ToolportError(
        'execution_failed',
        `The agent this tool delegates to (${request.targetAgentId}) no longer exists: point the agent tool at ` +
          'another agent (PATCH /api/tools/agent-tool/:id).',
        { details: { targetAgentId: request.targetAgentId } },
      );
    }
    // AUTH-2: fail closed — the sub-turn runs with the user's real record, never a guessed one.
    const user = await this.#options.users.findById(context.userId);
    if (user === undefined)
      throw new ToolportError('permission_denied', 'The calling user no longer exists.');
    const config = parseAgentConfig(target.config);
    const resolved = await providers.resolve(user, config.providerConfig);
    const chat =
      context.chatId === undefined ? null : ((await chats.get(context.userId, context.chatId)) ?? null);
    const runtime = await this.#options.toolRuntime().getEnabledToolRuntime(user, chat, target, {
      signal: context.signal,
      parentCallId: context.callId,
      toolServices: { delegation: { agentIds: [...chain.agentIds, target.id], depth: chain.depth + 1 } },
    });
    const session = startConversation({
      adapter: createAdapterForConfig(resolved, {
        model: config.model ?? resolved.config.defaultModel,
        ...(this.#options.maxRetries === undefined ? {} : { maxRetries: this.#options.maxRetries }),
        ...(logger === undefined ? {} : { logger }),
      }),
      runtime,
      ...(config.systemPrompt === undefined ? {} : { systemPrompt: config.systemPrompt }),
    });
    const turn = runAgentTurn({
      session,
      runtime,
      userMessage:
        request.context === undefined || request.context.trim() === ''
          ? request.task
          : `${request.task}\n\nContext from the delegating agent:\n${request.context}`,
      ...(config.maxIterations === undefined ? {} : { maxIterations: config.maxIterations }),
      ...(request.maxDelegationTokens === undefined ? {} : { maxTotalTokens: request.maxDelegationTokens }),
      signal: context.signal,
      // Issue 16: the sub-agent's `ask` calls go to the human who approves the delegating call (nested events).
      ...(context.approve === undefined ? {} : { approve: context.approve }),
      ...(logger === undefined ? {} : { logger }),
    });
    let summary: AgentTurnSummary;
    let failure: string | undefined;
    for (;;) {
      const next = await turn.next();
      if (next.done === true) {
        summary = next.value;
        break;
      }
      if (next.value.type === 'error') failure = next.value.message;
      context.emitNestedEvent?.(next.value as unknown as { type: string } & Record<string, unknown>);
    }
    return this.#result(target.id, summary, request, context, failure);
  }

  #result(
    agentId: string,
    summary: AgentTurnSummary,
    request: DelegationRequest,
    context: ToolContext,
    failure: string | undefined,
  ): DelegationResult {
    const base = { answer: summary.text, agentId, iterations: summary.iterations, usage: summary.usage };
    switch (summary.stopReason) {
      case 'cancelled':
        // executeTool reports the call as aborted or timed out from its own signal's reason.
        throw context.signal.reason ?? new ToolportError('aborted', 'The delegation was cancelled.');
      case 'error':
        throw new ToolportError(
          'execution_failed',
          `The agent ${agentId} failed: ${failure ?? 'its provider call did not succeed'}.`,
          {
            details: { agentId, iterations: summary.iterations },
          },
        );
      case 'token_budget':
        throw new ToolportError(
          'execution_failed',
          `The delegation to agent ${agentId} used ${summary.usage.totalTokens} tokens, past its ` +
            `maxDelegationTokens of ${request.maxDelegationTokens}; it was stopped before finishing.`,
          { details: { agentId, usage: summary.usage, maxDelegationTokens: request.maxDelegationTokens } },
        );
      case 'max_iterations':
        return { ...base, stopReason: 'max_iterations' };
      default:
        return base;
    }
  }
}
