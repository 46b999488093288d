import { GoogleGenAI, type Interactions } from '@google/genai';
import type {
  ProviderAdapter,
  ProviderAdapterOptions,
  ProviderSession,
  SessionOptions,
  StepOutcome,
  ToolResultForModel,
} from '../provider-adapter.ts';
import { ProviderStreamError } from '../provider-adapter.ts';
import type { StepEvent, StopReason, TokenUsage } from '../stream-events.ts';
import { emptyUsage } from '../stream-events.ts';
import { ToolCallAccumulator } from '../tool-call-accumulator.ts';
import { toolDefsToGeminiInteractions } from './gemini-tool-mapper.ts';

type InteractionEvent = Interactions.InteractionSSEEvent;

export interface InteractionStepState {
  interactionId: string | undefined;
}

/**
 * Turns a Gemini Interactions API stream into PROV-3 step events: `step.start` of a `function_call` opens a call
 * (its arguments may already be there), `arguments_delta` streams them, `step.stop` completes it;
 * `status: requires_action` is Gemini's "call the tools". The conversation lives server-side
 * (`previous_interaction_id`), so only the interaction id is kept.
 */
export async function* parseGeminiInteractionsStream(
  events: AsyncIterable<InteractionEvent>,
  state: InteractionStepState,
): AsyncGenerator<StepEvent, StepOutcome> {
  const calls = new ToolCallAccumulator(() => `call_${crypto.randomUUID()}`);
  let text = '';
  let usage: TokenUsage = emptyUsage();
  let status: string | undefined;
  for await (const event of events) {
    switch (event.event_type) {
      case 'interaction.created':
        state.interactionId = event.interaction.id ?? state.interactionId;
        break;
      case 'step.start':
        if (event.step.type === 'function_call') {
          const initial =
            event.step.arguments !== undefined && Object.keys(event.step.arguments).length > 0
              ? JSON.stringify(event.step.arguments)
              : '';
          yield* calls.apply({
            id: event.step.id,
            index: event.index,
            name: event.step.name,
            argumentsDelta: initial,
          });
        }
        break;
      case 'step.delta': {
        const delta = event.delta;
        if (delta.type === 'text' && delta.text !== '') {
          text += delta.text;
          yield { type: 'text_delta', delta: delta.text };
        } else if (delta.type === 'arguments_delta') {
          const id = calls.idAtIndex(event.index);
          if (id !== undefined) yield* calls.apply({ id, argumentsDelta: delta.arguments });
        }
        break;
      }
      case 'step.stop': {
        const id = calls.idAtIndex(event.index);
        if (id !== undefined) yield* calls.complete(id);
        break;
      }
      case 'interaction.completed': {
        const interaction = event.interaction;
        state.interactionId = interaction.id ?? state.interactionId;
        status = interaction.status;
        const inputTokens = interaction.usage?.total_input_tokens ?? 0;
        const outputTokens =
          (interaction.usage?.total_output_tokens ?? 0) + (interaction.usage?.total_thought_tokens ?? 0);
        usage = {
          inputTokens,
          outputTokens,
          totalTokens: interaction.usage?.total_tokens ?? inputTokens + outputTokens,
        };
        break;
      }
      case 'error':
        throw new ProviderStreamError(event.error?.message ?? 'The interaction failed.');
      default:
        break;
    }
  }
  yield* calls.completeAll();
  const toolCalls = calls.completedCalls();
  let stopReason: StopReason = 'end_turn';
  if (toolCalls.length > 0) stopReason = 'tool_calls';
  else if (status === 'incomplete') stopReason = 'max_tokens';
  else if (status !== undefined && status !== 'completed') stopReason = 'other';
  return { text, toolCalls, usage, stopReason, providerStopReason: status };
}

class GeminiInteractionsSession implements ProviderSession {
  readonly #client: GoogleGenAI;
  readonly #options: ProviderAdapterOptions;
  readonly #system: string | undefined;
  readonly #tools: ReturnType<typeof toolDefsToGeminiInteractions>;
  readonly #state: InteractionStepState = { interactionId: undefined };
  #pendingInput: Interactions.Step[] | string = [];

  constructor(client: GoogleGenAI, options: ProviderAdapterOptions, session: SessionOptions) {
    this.#client = client;
    this.#options = options;
    this.#system = session.systemPrompt;
    this.#tools = toolDefsToGeminiInteractions(session.tools);
  }

  addUserMessage(text: string): void {
    this.#pendingInput = text;
  }

  async *streamStep(signal?: AbortSignal): AsyncGenerator<StepEvent, StepOutcome> {
    const stream = await this.#client.interactions.create(
      {
        model: this.#options.model,
        input: this.#pendingInput,
        stream: true,
        ...(this.#system === undefined ? {} : { system_instruction: this.#system }),
        ...(this.#tools.length === 0 ? {} : { tools: this.#tools }),
        ...(this.#state.interactionId === undefined
          ? {}
          : { previous_interaction_id: this.#state.interactionId }),
      } as Interactions.InteractionCreateParams.CreateModelInteractionParamsStreaming,
      { signal },
    );
    this.#pendingInput = [];
    return yield* parseGeminiInteractionsStream(stream, this.#state);
  }

  addToolResults(results: readonly ToolResultForModel[]): void {
    this.#pendingInput = results.map((result) => ({
      type: 'function_result' as const,
      call_id: result.callId,
      name: result.toolName,
      result: result.output,
      ...(result.isError ? { is_error: true } : {}),
    }));
  }
}

/** Gemini's Interactions API (server-side conversation state) on `@google/genai`. */
export function createGeminiInteractionsAdapter(options: ProviderAdapterOptions): ProviderAdapter {
  const client = new GoogleGenAI({
    apiKey: options.apiKey,
    httpOptions: {
      ...(options.baseURL === undefined ? {} : { baseUrl: options.baseURL }),
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    },
  });
  return {
    provider: 'gemini-interactions',
    model: options.model,
    createSession: (session) => new GeminiInteractionsSession(client, options, session),
  };
}
