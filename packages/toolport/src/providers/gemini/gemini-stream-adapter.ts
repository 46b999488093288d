import {
  GoogleGenAI,
  type Content,
  type FunctionDeclaration,
  type GenerateContentResponse,
  type Part,
} from '@google/genai';
import { argumentsAsObject } from '../arguments-as-object.ts';
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
import { toolDefsToGeminiFunctionDeclarations } from './gemini-tool-mapper.ts';
import { PartialArgumentsWriter } from './partial-arguments-writer.ts';

const CONTENT_FILTER_REASONS = [
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
];

interface StreamingCall {
  id: string;
  providerId: string | undefined;
  name: string;
  writer: PartialArgumentsWriter;
  part: Part;
}

/** Where the ids of a session's calls came from: Gemini's own (echoed back) or generated here (kept local). */
export type GeminiCallIds = Map<string, string | undefined>;

/**
 * Turns a Gemini `streamGenerateContent` stream into PROV-3 step events and the model turn for the history.
 * Whole `functionCall` parts (the usual case) complete at once; Vertex's streamed form (`willContinue` + `partialArgs`
 * + an empty `functionCall` to close) is assembled. Gemini usually sends no call id: one is generated
 * (`nextId`) and remembered so the `functionResponse` is matched by name and order, as Gemini expects.
 * Parts keep their `thoughtSignature`, which Gemini 3 requires back on the next request.
 */
export async function* parseGeminiStream(
  chunks: AsyncIterable<GenerateContentResponse>,
  history: Content[],
  callIds: GeminiCallIds,
  nextId: () => string,
): AsyncGenerator<StepEvent, StepOutcome> {
  const parts: Part[] = [];
  const toolCalls: CompletedToolCall[] = [];
  let streaming: StreamingCall | undefined;
  let text = '';
  let usage: TokenUsage = emptyUsage();
  let finishReason: string | undefined;

  function* closeStreaming(): Generator<StepEvent> {
    if (streaming === undefined) return;
    const call = streaming;
    streaming = undefined;
    const tail = call.writer.finish();
    if (tail !== '') yield { type: 'tool_call_arguments_delta', id: call.id, delta: tail };
    const argumentsText = call.writer.text();
    call.part.functionCall = {
      ...(call.providerId === undefined ? {} : { id: call.providerId }),
      name: call.name,
      args: call.writer.value,
    };
    parts.push(call.part);
    toolCalls.push({ id: call.id, name: call.name, arguments: argumentsText });
    yield { type: 'tool_call_completed', id: call.id, name: call.name, arguments: argumentsText };
  }

  for await (const chunk of chunks) {
    const metadata = chunk.usageMetadata;
    if (metadata?.promptTokenCount !== undefined || metadata?.totalTokenCount !== undefined) {
      const inputTokens = metadata.promptTokenCount ?? 0;
      const outputTokens = (metadata.candidatesTokenCount ?? 0) + (metadata.thoughtsTokenCount ?? 0);
      usage = {
        inputTokens,
        outputTokens,
        totalTokens: metadata.totalTokenCount ?? inputTokens + outputTokens,
      };
    }
    const candidate = chunk.candidates?.[0];
    if (candidate === undefined) continue;
    if (candidate.finishReason) finishReason = candidate.finishReason;
    for (const part of candidate.content?.parts ?? []) {
      const call = part.functionCall;
      if (call === undefined) {
        if (typeof part.text === 'string' && (part.text !== '' || part.thoughtSignature !== undefined)) {
          parts.push(part);
          if (part.thought !== true && part.text !== '') {
            text += part.text;
            yield { type: 'text_delta', delta: part.text };
          }
        } else if (part.text === undefined) parts.push(part);
        continue;
      }
      const isContinuation = call.name === undefined && streaming !== undefined;
      if (isContinuation) {
        if (call.partialArgs !== undefined && call.partialArgs.length > 0) {
          for (const argument of call.partialArgs) {
            const delta = streaming!.writer.push(argument);
            if (delta !== '') yield { type: 'tool_call_arguments_delta', id: streaming!.id, delta };
          }
        }
        if (call.willContinue !== true) yield* closeStreaming();
        continue;
      }
      yield* closeStreaming();
      if (call.name === undefined) continue;
      const id = call.id ?? nextId();
      callIds.set(id, call.id);
      yield { type: 'tool_call_started', id, name: call.name };
      if (call.willContinue === true || (call.partialArgs !== undefined && call.args === undefined)) {
        const { functionCall: _functionCall, ...rest } = part;
        streaming = {
          id,
          providerId: call.id,
          name: call.name,
          writer: new PartialArgumentsWriter(),
          part: rest,
        };
        for (const argument of call.partialArgs ?? []) {
          const delta = streaming.writer.push(argument);
          if (delta !== '') yield { type: 'tool_call_arguments_delta', id, delta };
        }
        if (call.willContinue !== true) yield* closeStreaming();
        continue;
      }
      const argumentsText = call.args === undefined ? '' : JSON.stringify(call.args);
      if (argumentsText !== '') yield { type: 'tool_call_arguments_delta', id, delta: argumentsText };
      parts.push(part);
      toolCalls.push({ id, name: call.name, arguments: argumentsText });
      yield { type: 'tool_call_completed', id, name: call.name, arguments: argumentsText };
    }
  }
  yield* closeStreaming();
  if (parts.length > 0) history.push({ role: 'model', parts });
  let stopReason: StopReason = 'end_turn';
  if (toolCalls.length > 0) stopReason = 'tool_calls';
  else if (finishReason === 'MAX_TOKENS') stopReason = 'max_tokens';
  else if (finishReason !== undefined && CONTENT_FILTER_REASONS.includes(finishReason))
    stopReason = 'content_filter';
  else if (finishReason !== undefined && finishReason !== 'STOP') stopReason = 'other';
  return { text, toolCalls, usage, stopReason, providerStopReason: finishReason };
}

class GeminiSession implements ProviderSession {
  readonly #client: GoogleGenAI;
  readonly #options: ProviderAdapterOptions;
  readonly #system: string | undefined;
  readonly #declarations: FunctionDeclaration[];
  readonly #contents: Content[] = [];
  readonly #callIds: GeminiCallIds = new Map();
  #generated = 0;

  constructor(client: GoogleGenAI, options: ProviderAdapterOptions, session: SessionOptions) {
    this.#client = client;
    this.#options = options;
    this.#system = session.systemPrompt;
    this.#declarations = toolDefsToGeminiFunctionDeclarations(session.tools);
  }

  addUserMessage(text: string): void {
    this.#contents.push({ role: 'user', parts: [{ text }] });
  }

  addAssistantMessage(text: string, toolCalls: readonly CompletedToolCall[]): void {
    const parts: Part[] = [];
    if (text !== '') parts.push({ text });
    for (const call of toolCalls) {
      // A replayed call's id is toolport's, not Gemini's: the response is matched by name and order, as when Gemini
      // sent none. Thought signatures are not persisted; Gemini validates them only within the current turn.
      this.#callIds.set(call.id, undefined);
      parts.push({ functionCall: { name: call.name, args: argumentsAsObject(call.arguments) } });
    }
    if (parts.length > 0) this.#contents.push({ role: 'model', parts });
  }

  async *streamStep(signal?: AbortSignal): AsyncGenerator<StepEvent, StepOutcome> {
    const stream = await this.#client.models.generateContentStream({
      model: this.#options.model,
      contents: this.#contents,
      config: {
        ...(this.#system === undefined ? {} : { systemInstruction: this.#system }),
        ...(this.#declarations.length === 0 ? {} : { tools: [{ functionDeclarations: this.#declarations }] }),
        ...(this.#options.maxOutputTokens === undefined
          ? {}
          : { maxOutputTokens: this.#options.maxOutputTokens }),
        ...(signal === undefined ? {} : { abortSignal: signal }),
      },
    });
    // Session-unique and deterministic: Gemini matches responses by name and order when it sent no id.
    return yield* parseGeminiStream(
      stream,
      this.#contents,
      this.#callIds,
      () => `gemini_call_${++this.#generated}`,
    );
  }

  addToolResults(results: readonly ToolResultForModel[]): void {
    if (results.length === 0) return;
    this.#contents.push({
      role: 'user',
      parts: results.map((result) => {
        const providerId = this.#callIds.get(result.callId);
        return {
          functionResponse: {
            ...(providerId === undefined ? {} : { id: providerId }),
            name: result.toolName,
            response: result.isError ? { error: result.output } : { output: result.output },
          },
        };
      }),
    });
  }
}

/** PROV-5: Gemini `streamGenerateContent` on the official `@google/genai` SDK. */
export function createGeminiAdapter(options: ProviderAdapterOptions): ProviderAdapter {
  const client = new GoogleGenAI({
    apiKey: options.apiKey,
    httpOptions: {
      ...(options.baseURL === undefined ? {} : { baseUrl: options.baseURL }),
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    },
  });
  return {
    provider: 'gemini',
    model: options.model,
    createSession: (session) => new GeminiSession(client, options, session),
  };
}
