import OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions/completions';
import type {
  CompletedToolCall,
  ProviderAdapter,
  ProviderAdapterOptions,
  ProviderSession,
  SessionOptions,
  StepOutcome,
  ToolResultForModel,
} from '../provider-adapter.ts';
import type { StepEvent, StopReason, TokenUsage } from '../stream-events.ts';
import { emptyUsage } from '../stream-events.ts';
import { ToolCallAccumulator } from '../tool-call-accumulator.ts';
import { toolDefsToChatCompletions } from './openai-chat-tool-mapper.ts';

const STOP_REASONS: Record<string, StopReason> = {
  stop: 'end_turn',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  length: 'max_tokens',
  content_filter: 'content_filter',
};

/**
 * Turns a Chat Completions chunk stream (OpenAI and every compatible server) into PROV-3 step events and the
 * assistant message for the history. Tool-call fragments are keyed by id, then index (see ToolCallAccumulator);
 * calls complete when the stream ends, because compatible servers disagree on when `finish_reason` arrives.
 */
export async function* parseChatCompletionsStream(
  chunks: AsyncIterable<ChatCompletionChunk>,
  history: ChatCompletionMessageParam[],
): AsyncGenerator<StepEvent, StepOutcome> {
  const calls = new ToolCallAccumulator(() => `call_${crypto.randomUUID()}`);
  let text = '';
  let usage: TokenUsage = emptyUsage();
  let finishReason: string | undefined;
  for await (const chunk of chunks) {
    if (chunk.usage) {
      usage = {
        inputTokens: chunk.usage.prompt_tokens ?? 0,
        outputTokens: chunk.usage.completion_tokens ?? 0,
        totalTokens: chunk.usage.total_tokens ?? 0,
      };
    }
    // Only the first choice: toolport never asks for n > 1.
    const choice = chunk.choices?.find((candidate) => (candidate.index ?? 0) === 0);
    if (choice === undefined) continue;
    const delta = choice.delta;
    if (delta?.content) {
      text += delta.content;
      yield { type: 'text_delta', delta: delta.content };
    }
    for (const toolCall of delta?.tool_calls ?? []) {
      yield* calls.apply({
        id: toolCall.id,
        index: toolCall.index,
        name: toolCall.function?.name,
        argumentsDelta: toolCall.function?.arguments,
      });
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  yield* calls.completeAll();
  const toolCalls = calls.completedCalls();
  history.push({
    role: 'assistant',
    content: text === '' ? null : text,
    ...(toolCalls.length === 0
      ? {}
      : {
          tool_calls: toolCalls.map((call) => ({
            id: call.id,
            type: 'function' as const,
            function: { name: call.name, arguments: call.arguments === '' ? '{}' : call.arguments },
          })),
        }),
  });
  const stopReason: StopReason =
    toolCalls.length > 0 ? 'tool_calls' : (STOP_REASONS[finishReason ?? 'stop'] ?? 'other');
  return { text, toolCalls, usage, stopReason, providerStopReason: finishReason };
}

class ChatCompletionsSession implements ProviderSession {
  readonly #client: OpenAI;
  readonly #options: ProviderAdapterOptions;
  readonly #tools: ChatCompletionFunctionTool[];
  readonly #messages: ChatCompletionMessageParam[] = [];

  constructor(client: OpenAI, options: ProviderAdapterOptions, session: SessionOptions) {
    this.#client = client;
    this.#options = options;
    this.#tools = toolDefsToChatCompletions(session.tools);
    if (session.systemPrompt !== undefined)
      this.#messages.push({ role: 'system', content: session.systemPrompt });
  }

  addUserMessage(text: string): void {
    this.#messages.push({ role: 'user', content: text });
  }

  addAssistantMessage(text: string, toolCalls: readonly CompletedToolCall[]): void {
    this.#messages.push({
      role: 'assistant',
      content: text === '' ? null : text,
      ...(toolCalls.length === 0
        ? {}
        : {
            tool_calls: toolCalls.map((call) => ({
              id: call.id,
              type: 'function' as const,
              function: { name: call.name, arguments: call.arguments === '' ? '{}' : call.arguments },
            })),
          }),
    });
  }

  async *streamStep(signal?: AbortSignal): AsyncGenerator<StepEvent, StepOutcome> {
    const stream = await this.#client.chat.completions.create(
      {
        model: this.#options.model,
        messages: this.#messages,
        ...(this.#tools.length === 0 ? {} : { tools: this.#tools }),
        ...(this.#options.maxOutputTokens === undefined ? {} : { max_tokens: this.#options.maxOutputTokens }),
        stream: true,
        stream_options: { include_usage: true },
      },
      { signal },
    );
    return yield* parseChatCompletionsStream(stream, this.#messages);
  }

  addToolResults(results: readonly ToolResultForModel[]): void {
    for (const result of results) {
      this.#messages.push({ role: 'tool', tool_call_id: result.callId, content: result.output });
    }
  }
}

/** PROV-5: Chat Completions on the official `openai` SDK; `baseURL` reaches Ollama, vLLM, llama.cpp, OpenRouter … */
export function createOpenAIChatAdapter(options: ProviderAdapterOptions): ProviderAdapter {
  const client = new OpenAI({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    maxRetries: options.maxRetries ?? 2,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  return {
    provider: 'openai-chat',
    model: options.model,
    createSession: (session) => new ChatCompletionsSession(client, options, session),
  };
}
