import type { ToolErrorPayload, ToolExecutionOutcome } from '../core/execute-tool.ts';
import { stringifyToolResult } from '../core/serialize-result.ts';
import type { ApproveCallback } from '../core/tool-approval.ts';
import type { ToolRuntime } from '../core/tool-runtime.ts';
import type { ToolportLogger } from '../core/tool-types.ts';
import { isAbortError, toProviderFailure, toProviderStreamError } from './provider-errors.ts';
import type {
  CompletedToolCall,
  ProviderAdapter,
  ProviderSession,
  StepOutcome,
  ToolResultForModel,
} from './provider-adapter.ts';
import { addUsage, emptyUsage, type StopReason, type StreamEvent, type TokenUsage } from './stream-events.ts';
import { buildSystemPrompt } from './system-prompt.ts';

export const DEFAULT_MAX_ITERATIONS = 10;

export interface StartConversationOptions {
  adapter: ProviderAdapter;
  /** The enabled tools and how to run them: `createToolRuntime` or the services' `getEnabledToolRuntime`. */
  runtime: ToolRuntime;
  /** The operator's or agent's prompt; the working directory is appended in agent mode (PATH-1). */
  systemPrompt?: string;
  onNonStrict?: (toolName: string, reason: string) => void;
}

/** Opens a provider session offering exactly the runtime's enabled tools. Keep it for follow-up turns. */
export function startConversation(options: StartConversationOptions): ProviderSession {
  return options.adapter.createSession({
    systemPrompt: buildSystemPrompt(options.runtime, options.systemPrompt),
    tools: options.runtime.tools.map((tool) => tool.definition),
    onNonStrict: options.onNonStrict,
  });
}

export interface AgentTurnOptions {
  session: ProviderSession;
  runtime: ToolRuntime;
  userMessage: string;
  /** Model calls per turn (default 10). Reaching it ends the turn with `turn_completed {stopReason: 'max_iterations'}`. */
  maxIterations?: number;
  /** User cancellation: aborts the provider stream and every running tool. */
  signal?: AbortSignal;
  logger?: ToolportLogger;
  /**
   * AGENT-1: tokens (input + output, over every model call) the turn may use. Once a step brings the total past it,
   * the turn ends with `turn_completed {stopReason: 'token_budget'}` and the step's calls are not run.
   */
  maxTotalTokens?: number;
  /**
   * Issue 16: answers calls a permission rule marks `ask`; the loop emits `approval_requested` before asking.
   * Without it, the runtime's own approver (if any) decides, and an `ask` is otherwise refused.
   */
  approve?: ApproveCallback;
}

export interface AgentTurnSummary {
  /** The model's text over the whole turn. */
  text: string;
  stopReason: StopReason;
  usage: TokenUsage;
  iterations: number;
}

function failureOutcome(call: CompletedToolCall, error: unknown): ToolExecutionOutcome {
  const message = error instanceof Error ? error.message : String(error);
  return {
    ok: false,
    callId: call.id,
    toolName: call.name,
    error: { code: 'execution_failed', message },
    output: JSON.stringify({ error: { code: 'execution_failed', message } }),
    durationMs: 0,
  };
}

/** Answers calls that will not run, so the provider history stays valid for a follow-up turn. */
function answerWithoutRunning(
  session: ProviderSession,
  calls: readonly CompletedToolCall[],
  message: string,
): void {
  if (calls.length === 0) return;
  session.addToolResults(
    calls.map((call) => ({
      callId: call.id,
      toolName: call.name,
      output: JSON.stringify({ error: { code: 'aborted', message } }),
      isError: true,
    })),
  );
}

/**
 * The assistant message that closes a turn the model did not answer (a provider error, the iteration limit), in the
 * session and in a replayed transcript: every provider wants the next user message to follow an assistant one.
 */
export function unansweredTurnNote(reason: string): string {
  return `(No answer: ${reason})`;
}

/** The note that closes a failed turn, in the session and in the recorded transcript alike. */
export function failedTurnNote(message: string): string {
  return unansweredTurnNote(`the turn failed. ${message}`);
}

const NOT_RUN_AFTER_CANCEL = 'Not run: the turn was cancelled.';
const NOT_RUN_AFTER_PROVIDER_ERROR = 'Not run: the provider failed before the turn could run this call.';

function notRunResult(id: string, name: string, message: string): StreamEvent {
  const error: ToolErrorPayload = { code: 'aborted', message };
  return { type: 'tool_result', id, name, error, output: JSON.stringify({ error }) };
}

function resultForModel(call: CompletedToolCall, outcome: ToolExecutionOutcome): ToolResultForModel {
  return { callId: call.id, toolName: call.name, output: outcome.output, isError: !outcome.ok };
}

/**
 * Issue 16: each approver a turn wraps (to put `approval_requested` on its stream) → the approver it wraps. A sub-agent's
 * turn (AGENT-1) is handed the wrapped one through its delegating call's context: it unwraps it, so its asks are
 * announced once, on its own (nested) stream, and still reach the same human.
 */
const announcingApprovers = new WeakMap<ApproveCallback, ApproveCallback>();

/**
 * SPEC PROV-4: one user turn. Streams a model step, executes every completed call through the runtime
 * (concurrently; results fed back in call order, in the provider's own format), and repeats until the model answers
 * with text or `maxIterations` model calls were made. Never throws: provider failures become an `error` event,
 * cancellation a `turn_completed` with `stopReason: 'cancelled'`, and the turn always ends with `turn_completed`.
 * Model arguments go to the runtime as raw text, so malformed JSON comes back as a tool error the model can correct.
 */
export async function* runAgentTurn(
  options: AgentTurnOptions,
): AsyncGenerator<StreamEvent, AgentTurnSummary> {
  const { session, runtime, signal } = options;
  const maxIterations = Math.max(1, options.maxIterations ?? DEFAULT_MAX_ITERATIONS);
  let usage = emptyUsage();
  let iterations = 0;
  let text = '';

  const finish = (stopReason: StopReason, message?: string): [StreamEvent, AgentTurnSummary] => [
    { type: 'turn_completed', usage, stopReason, iterations, ...(message === undefined ? {} : { message }) },
    { text, stopReason, usage, iterations },
  ];

  session.addUserMessage(options.userMessage);
  // Calls the current step announced: a failure mid-step answers each, so no client is left with a dangling call.
  const announced = new Map<string, string>();
  try {
    for (;;) {
      if (signal?.aborted) {
        const [event, summary] = finish('cancelled', 'The turn was cancelled.');
        yield event;
        return summary;
      }
      iterations += 1;
      announced.clear();
      const step = session.streamStep(signal);
      let outcome: StepOutcome;
      for (;;) {
        const next = await step.next();
        if (next.done === true) {
          outcome = next.value;
          break;
        }
        if (next.value.type === 'tool_call_started') announced.set(next.value.id, next.value.name);
        yield next.value;
      }
      usage = addUsage(usage, outcome.usage);
      text += outcome.text;
      const calls = outcome.toolCalls;
      // Some SDKs end an aborted stream quietly instead of throwing: the signal is the truth.
      if (signal?.aborted) {
        answerWithoutRunning(session, calls, NOT_RUN_AFTER_CANCEL);
        for (const [id, name] of announced) yield notRunResult(id, name, NOT_RUN_AFTER_CANCEL);
        const [event, summary] = finish('cancelled', 'The turn was cancelled.');
        yield event;
        return summary;
      }
      announced.clear();
      if (calls.length === 0) {
        const [event, summary] = finish(outcome.stopReason);
        yield event;
        return summary;
      }
      if (options.maxTotalTokens !== undefined && usage.totalTokens > options.maxTotalTokens) {
        answerWithoutRunning(
          session,
          calls,
          `Not run: the turn used its budget of ${options.maxTotalTokens} tokens.`,
        );
        const [event, summary] = finish(
          'token_budget',
          `The turn stopped after using ${usage.totalTokens} tokens, past its budget of ${options.maxTotalTokens}.`,
        );
        yield event;
        return summary;
      }
      if (iterations >= maxIterations) {
        // Answer the calls so the conversation stays valid for a follow-up turn, without running them.
        answerWithoutRunning(
          session,
          calls,
          `Not run: the turn reached its limit of ${maxIterations} model calls.`,
        );
        session.addAssistantMessage?.(
          unansweredTurnNote(`the turn stopped after ${maxIterations} model calls.`),
          [],
        );
        const [event, summary] = finish(
          'max_iterations',
          `The turn stopped after ${maxIterations} model calls; the model still wanted to call ${calls
            .map((call) => call.name)
            .join(', ')}.`,
        );
        yield event;
        return summary;
      }

      const outcomes: ToolExecutionOutcome[] = new Array<ToolExecutionOutcome>(calls.length);
      // Results (and partial results, e.g. one per generated image) stream out as they happen; they go back to the
      // model in call order once every call has finished.
      const pending: StreamEvent[] = [];
      let wake: (() => void) | undefined;
      const notify = (): void => {
        wake?.();
        wake = undefined;
      };
      let running = calls.length;
      const outerApprove =
        options.approve === undefined
          ? undefined
          : (announcingApprovers.get(options.approve) ?? options.approve);
      const approve: ApproveCallback | undefined =
        outerApprove === undefined
          ? undefined
          : (request) => {
              pending.push({
                type: 'approval_requested',
                callId: request.callId,
                toolName: request.toolName,
                arguments: request.arguments,
                reason: request.reason,
              });
              notify();
              return outerApprove(request);
            };
      if (approve !== undefined && outerApprove !== undefined) announcingApprovers.set(approve, outerApprove);
      for (const [index, call] of calls.entries()) {
        void runtime
          .execute(
            { callId: call.id, toolName: call.name, arguments: call.arguments },
            {
              signal,
              ...(approve === undefined ? {} : { approve }),
              onPartialResult: (partial) => {
                pending.push({
                  type: 'tool_result',
                  id: call.id,
                  name: call.name,
                  result: partial,
                  output: stringifyToolResult(partial),
                  partial: true,
                });
                notify();
              },
              onNestedEvent: (nested) => {
                const event = nested as unknown as StreamEvent;
                pending.push({ ...event, parentCallId: event.parentCallId ?? call.id });
                notify();
              },
            },
          )
          .catch((error: unknown) => failureOutcome(call, error))
          .then((finished) => {
            outcomes[index] = finished;
            pending.push(
              finished.ok
                ? {
                    type: 'tool_result',
                    id: call.id,
                    name: call.name,
                    result: finished.result,
                    output: finished.output,
                  }
                : {
                    type: 'tool_result',
                    id: call.id,
                    name: call.name,
                    error: finished.error,
                    output: finished.output,
                  },
            );
            running -= 1;
            notify();
          });
      }
      while (running > 0 || pending.length > 0) {
        if (pending.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        while (pending.length > 0) yield pending.shift()!;
      }
      session.addToolResults(calls.map((call, index) => resultForModel(call, outcomes[index]!)));
    }
  } catch (error) {
    if (isAbortError(error, signal)) {
      for (const [id, name] of announced) yield notRunResult(id, name, NOT_RUN_AFTER_CANCEL);
      const [event, summary] = finish('cancelled', 'The turn was cancelled.');
      yield event;
      return summary;
    }
    const failure = toProviderFailure(toProviderStreamError(error));
    options.logger?.warn(
      { provider: failure.provider, status: failure.status, type: failure.type, error: failure.message },
      'provider call failed',
    );
    for (const [id, name] of announced) yield notRunResult(id, name, NOT_RUN_AFTER_PROVIDER_ERROR);
    yield {
      type: 'error',
      code: 'provider_error',
      message: failure.message,
      ...(failure.status === undefined ? {} : { status: failure.status }),
      provider: failure.provider,
      retryable: failure.retryable,
      error: failure,
    };
    session.addAssistantMessage?.(failedTurnNote(failure.message), []);
    const [event, summary] = finish('error', failure.message);
    yield event;
    return summary;
  }
}
