import OpenAI from 'openai';
import type {
  FunctionTool,
  ResponseInputItem,
  ResponseStreamEvent,
  ResponseUsage,
} from 'openai/resources/responses/responses';
import type {
  CompletedToolCall,
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
import { toolDefsToResponsesAPI } from './openai-responses-tool-mapper.ts';

function toUsage(usage: ResponseUsage | null | undefined): TokenUsage {
  if (!usage) return emptyUsage();
  return {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    totalTokens: usage.total_tokens,
  };
}

/**
 * Turns one Responses API event stream into PROV-3 step events. Calls are keyed by `call_id` (what
 * `function_call_output` echoes); argument deltas name the output item, mapped back to its call. A server that sends
 * only `function_call_arguments.done` (LM Studio) still yields one delta. The output items are collected for the
 * next request's input.
 */
export async function* parseResponsesStream(
  events: AsyncIterable<ResponseStreamEvent>,
  outputItems: ResponseInputItem[],
): AsyncGenerator<StepEvent, StepOutcome> {
  const calls = new ToolCallAccumulator(() => `call_${crypto.randomUUID()}`);
  const callIdByItem = new Map<string, string>();
  const doneItems: ResponseInputItem[] = [];
  let finalOutput: ResponseInputItem[] | undefined;
  let text = '';
  let usage = emptyUsage();
  let providerStopReason: string | undefined;
  let incompleteReason: string | undefined;

  for await (const event of events) {
    switch (event.type) {
      case 'response.output_text.delta':
        if (event.delta !== '') {
          text += event.delta;
          yield { type: 'text_delta', delta: event.delta };
        }
        break;
      case 'response.output_item.added':
        if (event.item.type === 'function_call') {
          const callId = event.item.call_id;
          if (event.item.id) callIdByItem.set(event.item.id, callId);
          yield* calls.apply({ id: callId, name: event.item.name, argumentsDelta: event.item.arguments });
        }
        break;
      case 'response.function_call_arguments.delta': {
        const callId = callIdByItem.get(event.item_id);
        if (callId !== undefined) yield* calls.apply({ id: callId, argumentsDelta: event.delta });
        break;
      }
      case 'response.function_call_arguments.done': {
        const callId = callIdByItem.get(event.item_id);
        if (callId !== undefined) yield* calls.applyFinalArguments(callId, event.arguments);
        break;
      }
      case 'response.output_item.done':
        doneItems.push(event.item as ResponseInputItem);
        if (event.item.type === 'function_call') {
          const { call_id: callId, name } = event.item;
          if (!calls.hasCall(callId)) yield* calls.apply({ id: callId, name });
          yield* calls.applyFinalArguments(callId, event.item.arguments);
          yield* calls.complete(callId);
        }
        break;
      case 'response.completed':
      case 'response.incomplete':
        usage = toUsage(event.response.usage);
        providerStopReason = event.response.status ?? undefined;
        incompleteReason = event.response.incomplete_details?.reason ?? undefined;
        finalOutput = event.response.output as ResponseInputItem[];
        break;
      case 'response.failed':
        throw new ProviderStreamError(event.response.error?.message ?? 'The response failed.');
      case 'error':
        throw new ProviderStreamError(event.message);
      default:
        break;
    }
  }
  yield* calls.completeAll();
  outputItems.push(...(finalOutput !== undefined && finalOutput.length > 0 ? finalOutput : doneItems));
  const toolCalls = calls.completedCalls();
  let stopReason: StopReason = 'end_turn';
  if (toolCalls.length > 0) stopReason = 'tool_calls';
  else if (incompleteReason === 'max_output_tokens') stopReason = 'max_tokens';
  else if (incompleteReason === 'content_filter') stopReason = 'content_filter';
  return { text, toolCalls, usage, stopReason, providerStopReason };
}

class ResponsesSession implements ProviderSession {
  readonly #client: OpenAI;
  readonly #options: ProviderAdapterOptions;
  readonly #instructions: string | undefined;
  readonly #tools: FunctionTool[];
  readonly #input: ResponseInputItem[] = [];

  constructor(client: OpenAI, options: ProviderAdapterOptions, session: SessionOptions) {
    this.#client = client;
    this.#options = options;
    this.#instructions = session.systemPrompt;
    this.#tools = toolDefsToResponsesAPI(session.tools, {
      onNonStrict: session.onNonStrict,
      logger: options.logger,
    });
  }

  addUserMessage(text: string): void {
    this.#input.push({ role: 'user', content: text });
  }

  addAssistantMessage(text: string, toolCalls: readonly CompletedToolCall[]): void {
    if (text !== '') this.#input.push({ role: 'assistant', content: text });
    for (const call of toolCalls) {
      this.#input.push({
        type: 'function_call',
        call_id: call.id,
        name: call.name,
        arguments: call.arguments === '' ? '{}' : call.arguments,
      });
    }
  }

  async *streamStep(signal?: AbortSignal): AsyncGenerator<StepEvent, StepOutcome> {
    const stream = await this.#client.responses.create(
      {
        model: this.#options.model,
        input: this.#input,
        ...(this.#instructions === undefined ? {} : { instructions: this.#instructions }),
        ...(this.#tools.length === 0 ? {} : { tools: this.#tools }),
        ...(this.#options.maxOutputTokens === undefined
          ? {}
          : { max_output_tokens: this.#options.maxOutputTokens }),
        stream: true,
      },
      { signal },
    );
    return yield* parseResponsesStream(stream, this.#input);
  }

  addToolResults(results: readonly ToolResultForModel[]): void {
    for (const result of results) {
      this.#input.push({ type: 'function_call_output', call_id: result.callId, output: result.output });
    }
  }
}

/** PROV-5: OpenAI Responses API on the official `openai` SDK. */
export function createOpenAIResponsesAdapter(options: ProviderAdapterOptions): ProviderAdapter {
  const client = new OpenAI({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    maxRetries: options.maxRetries ?? 2,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  return {
    provider: 'openai',
    model: options.model,
    createSession: (session) => new ResponsesSession(client, options, session),
  };
}
