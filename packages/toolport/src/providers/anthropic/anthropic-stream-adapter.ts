import Anthropic from '@anthropic-ai/sdk';
import type {
  ContentBlockParam,
  MessageParam,
  RawMessageStreamEvent,
  Tool,
} from '@anthropic-ai/sdk/resources/messages/messages';
import { parseToolArgumentsJson } from '../../core/tool-arguments.ts';
import type {
  CompletedToolCall,
  ProviderAdapter,
  ProviderAdapterOptions,
  ProviderSession,
  SessionOptions,
  StepOutcome,
  ToolResultForModel,
} from '../provider-adapter.ts';
import type { StepEvent, StopReason } from '../stream-events.ts';
import { ToolCallAccumulator } from '../tool-call-accumulator.ts';
import { toolDefsToAnthropic } from './anthropic-tool-mapper.ts';

const STOP_REASONS: Record<string, StopReason> = {
  end_turn: 'end_turn',
  stop_sequence: 'end_turn',
  tool_use: 'tool_calls',
  max_tokens: 'max_tokens',
  refusal: 'content_filter',
};
const DEFAULT_MAX_TOKENS = 8192;

type BlockState =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'other' };

function argumentsAsInput(text: string): Record<string, unknown> {
  // The history needs an object; a malformed one was already answered with a validation error result.
  try {
    const parsed = parseToolArgumentsJson(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/**
 * Turns an Anthropic Messages event stream into PROV-3 step events and the assistant message for the history.
 * `tool_use` blocks open calls, `input_json_delta` fragments (the first is often empty) stream their arguments,
 * `content_block_stop` completes them; thinking blocks are kept with their signatures for the next request.
 */
export async function* parseAnthropicStream(
  events: AsyncIterable<RawMessageStreamEvent>,
  history: MessageParam[],
): AsyncGenerator<StepEvent, StepOutcome> {
  const calls = new ToolCallAccumulator(() => `toolu_${crypto.randomUUID()}`);
  const blocks = new Map<number, BlockState>();
  let text = '';
  let inputTokens = 0;
  let outputTokens = 0;
  let providerStopReason: string | undefined;
  for await (const event of events) {
    switch (event.type) {
      case 'message_start':
        inputTokens =
          event.message.usage.input_tokens +
          (event.message.usage.cache_creation_input_tokens ?? 0) +
          (event.message.usage.cache_read_input_tokens ?? 0);
        outputTokens = event.message.usage.output_tokens;
        break;
      case 'content_block_start': {
        const block = event.content_block;
        if (block.type === 'text') {
          blocks.set(event.index, { type: 'text', text: block.text });
          if (block.text !== '') {
            text += block.text;
            yield { type: 'text_delta', delta: block.text };
          }
        } else if (block.type === 'tool_use') {
          blocks.set(event.index, { type: 'tool_use', id: block.id });
          yield* calls.apply({ id: block.id, index: event.index, name: block.name });
        } else if (block.type === 'thinking') {
          blocks.set(event.index, { type: 'thinking', thinking: block.thinking, signature: block.signature });
        } else blocks.set(event.index, { type: 'other' });
        break;
      }
      case 'content_block_delta': {
        const block = blocks.get(event.index);
        const delta = event.delta;
        if (delta.type === 'text_delta' && block?.type === 'text') {
          block.text += delta.text;
          text += delta.text;
          if (delta.text !== '') yield { type: 'text_delta', delta: delta.text };
        } else if (delta.type === 'input_json_delta' && block?.type === 'tool_use') {
          yield* calls.apply({ id: block.id, argumentsDelta: delta.partial_json });
        } else if (delta.type === 'thinking_delta' && block?.type === 'thinking') {
          block.thinking += delta.thinking;
        } else if (delta.type === 'signature_delta' && block?.type === 'thinking') {
          block.signature += delta.signature;
        }
        break;
      }
      case 'content_block_stop': {
        const block = blocks.get(event.index);
        if (block?.type === 'tool_use') yield* calls.complete(block.id);
        break;
      }
      case 'message_delta':
        if (event.delta.stop_reason) providerStopReason = event.delta.stop_reason;
        outputTokens = event.usage.output_tokens ?? outputTokens;
        break;
      default:
        break;
    }
  }
  yield* calls.completeAll();
  const toolCalls = calls.completedCalls();
  const argumentsById = new Map(toolCalls.map((call) => [call.id, call]));
  const content: ContentBlockParam[] = [];
  for (const index of [...blocks.keys()].sort((a, b) => a - b)) {
    const block = blocks.get(index)!;
    // Anthropic refuses empty text blocks in a request.
    if (block.type === 'text' && block.text !== '') content.push({ type: 'text', text: block.text });
    if (block.type === 'thinking' && block.signature !== '')
      content.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
    if (block.type === 'tool_use') {
      const call = argumentsById.get(block.id);
      if (call !== undefined)
        content.push({
          type: 'tool_use',
          id: call.id,
          name: call.name,
          input: argumentsAsInput(call.arguments),
        });
    }
  }
  if (content.length > 0) history.push({ role: 'assistant', content });
  const stopReason: StopReason =
    toolCalls.length > 0 ? 'tool_calls' : (STOP_REASONS[providerStopReason ?? 'end_turn'] ?? 'other');
  return {
    text,
    toolCalls,
    usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
    stopReason,
    providerStopReason,
  };
}

class AnthropicSession implements ProviderSession {
  readonly #client: Anthropic;
  readonly #options: ProviderAdapterOptions;
  readonly #system: string | undefined;
  readonly #tools: Tool[];
  readonly #messages: MessageParam[] = [];

  constructor(client: Anthropic, options: ProviderAdapterOptions, session: SessionOptions) {
    this.#client = client;
    this.#options = options;
    this.#system = session.systemPrompt;
    this.#tools = toolDefsToAnthropic(session.tools);
  }

  addUserMessage(text: string): void {
    this.#messages.push({ role: 'user', content: text });
  }

  addAssistantMessage(text: string, toolCalls: readonly CompletedToolCall[]): void {
    const content: ContentBlockParam[] = [];
    if (text !== '') content.push({ type: 'text', text });
    for (const call of toolCalls)
      content.push({
        type: 'tool_use',
        id: call.id,
        name: call.name,
        input: argumentsAsInput(call.arguments),
      });
    if (content.length > 0) this.#messages.push({ role: 'assistant', content });
  }

  async *streamStep(signal?: AbortSignal): AsyncGenerator<StepEvent, StepOutcome> {
    const stream = await this.#client.messages.create(
      {
        model: this.#options.model,
        max_tokens: this.#options.maxOutputTokens ?? DEFAULT_MAX_TOKENS,
        messages: this.#messages,
        ...(this.#system === undefined ? {} : { system: this.#system }),
        ...(this.#tools.length === 0 ? {} : { tools: this.#tools }),
        stream: true,
      },
      { signal },
    );
    return yield* parseAnthropicStream(stream, this.#messages);
  }

  addToolResults(results: readonly ToolResultForModel[]): void {
    if (results.length === 0) return;
    this.#messages.push({
      role: 'user',
      content: results.map((result) => ({
        type: 'tool_result' as const,
        tool_use_id: result.callId,
        content: result.output,
        ...(result.isError ? { is_error: true } : {}),
      })),
    });
  }
}

/** PROV-5: Anthropic Messages on the official `@anthropic-ai/sdk`. */
export function createAnthropicAdapter(options: ProviderAdapterOptions): ProviderAdapter {
  const client = new Anthropic({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    maxRetries: options.maxRetries ?? 2,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  return {
    provider: 'anthropic',
    model: options.model,
    createSession: (session) => new AnthropicSession(client, options, session),
  };
}
