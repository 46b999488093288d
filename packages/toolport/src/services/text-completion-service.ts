import { ToolportError } from '../core/errors.ts';
import type {
  TextCompletionRequest,
  TextCompletionResult,
  TextCompletionService,
  ToolportLogger,
} from '../core/tool-types.ts';
import { createAdapterForConfig } from './provider-adapter-for-config.ts';
import type { PolicySubject } from '../policy/policy-denied.ts';
import type { ProviderConfigService } from './provider-config-service.ts';

export interface TextCompletionServiceOptions {
  providers: ProviderConfigService;
  maxRetries?: number;
  logger?: ToolportLogger;
}

/** Output cap for one summary call; Anthropic requires one, and summaries are short by design. */
const DEFAULT_MAX_OUTPUT_TOKENS = 2048;

/**
 * WEB-1/YT-1: the calling user's models for tools, through the same provider adapters as chat turns (one session with
 * no tools, one step). The configuration is resolved per call, so a key or base URL changed by the user applies at
 * once.
 */
export function createTextCompletionService(
  user: PolicySubject,
  options: TextCompletionServiceOptions,
): TextCompletionService {
  return {
    async complete(request: TextCompletionRequest, signal: AbortSignal): Promise<TextCompletionResult> {
      const resolved = await options.providers
        .resolve(user, nonEmpty(request.providerConfig))
        .catch((error: unknown) => {
          throw new ToolportError(
            'execution_failed',
            `${(error as Error).message} Summaries use the tool's "providerConfig" setting (a provider ` +
              'configuration name; empty = your first one) and "model" setting.',
            { cause: error },
          );
        });
      const model = nonEmpty(request.model) ?? resolved.config.defaultModel;
      const adapter = createAdapterForConfig(resolved, {
        model,
        maxOutputTokens: request.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
        ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
        ...(options.logger === undefined ? {} : { logger: options.logger }),
      });
      const session = adapter.createSession({ systemPrompt: request.systemPrompt, tools: [] });
      session.addUserMessage(request.prompt);
      const step = session.streamStep(signal);
      let next = await step.next();
      while (next.done !== true) next = await step.next();
      if (signal.aborted) throw signal.reason;
      const text = next.value.text.trim();
      if (text === '') {
        throw new ToolportError(
          'execution_failed',
          `${resolved.config.name} (${model}) returned an empty answer (stop reason ${next.value.stopReason}).`,
        );
      }
      return { text, providerConfig: resolved.config.name, model, usage: next.value.usage };
    },
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
