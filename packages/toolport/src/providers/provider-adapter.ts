import type { ToolDefinition, ToolportLogger } from '../core/tool-types.ts';
import type { StepEvent, StopReason, TokenUsage } from './stream-events.ts';

/** The wire formats toolport speaks (PROV-5). `openai` is the Responses API. */
export type ProviderName = 'openai' | 'openai-chat' | 'anthropic' | 'gemini' | 'gemini-interactions';

export const PROVIDER_NAMES: readonly ProviderName[] = [
  'openai',
  'openai-chat',
  'anthropic',
  'gemini',
  'gemini-interactions',
];

export interface CompletedToolCall {
  /** The provider's call id, or one toolport generated where the provider sends none (Gemini). */
  id: string;
  name: string;
  /** Raw JSON text as the model produced it. */
  arguments: string;
}

export interface StepOutcome {
  text: string;
  /** In the order the model made them. */
  toolCalls: CompletedToolCall[];
  usage: TokenUsage;
  stopReason: StopReason;
  /** The provider's own word for it (`tool_use`, `STOP`, `requires_action` …), for logs. */
  providerStopReason?: string;
}

/** A tool's outcome on its way back to the model. */
export interface ToolResultForModel {
  callId: string;
  toolName: string;
  /** The serialized text (CORE-7). */
  output: string;
  isError: boolean;
}

/**
 * One conversation with one provider, in that provider's own message format. The agent loop drives it:
 * `addUserMessage`, then `streamStep` / `addToolResults` until the model answers with text.
 */
export interface ProviderSession {
  addUserMessage(text: string): void;
  /**
   * Replays an earlier assistant message (a persisted transcript) in the provider's own format, so a new session
   * continues the conversation. Its tool calls must be answered with `addToolResults` before the next user message.
   * Absent where the provider keeps the conversation server-side (Gemini Interactions).
   */
  addAssistantMessage?(text: string, toolCalls: readonly CompletedToolCall[]): void;
  /** One model call. Yields PROV-3 step events; returns what the step produced. Throws on provider failure. */
  streamStep(signal?: AbortSignal): AsyncGenerator<StepEvent, StepOutcome>;
  /** Results in call order, in the provider's own format (function_call_output, role tool, tool_result, functionResponse). */
  addToolResults(results: readonly ToolResultForModel[]): void;
}

export interface SessionOptions {
  systemPrompt?: string;
  tools: readonly ToolDefinition[];
  /** Told about tools sent without strict mode and why. */
  onNonStrict?: (toolName: string, reason: string) => void;
}

export interface ProviderAdapter {
  readonly provider: ProviderName;
  readonly model: string;
  createSession(options: SessionOptions): ProviderSession;
}

export interface ProviderAdapterOptions {
  model: string;
  apiKey: string;
  /** An OpenAI-compatible server, a proxy, or the test harness's fake server. */
  baseURL?: string;
  /**
   * The fetch every SDK request goes through (AUTH-2: NET-1's safe fetch for a non-admin's configuration). Default:
   * the SDK's own.
   */
  fetch?: typeof globalThis.fetch;
  /** Output token cap per model call (Anthropic requires one). */
  maxOutputTokens?: number;
  /** SDK retries on 429/5xx; 0 in tests. */
  maxRetries?: number;
  logger?: ToolportLogger;
}

/** A provider failure with the HTTP status when there was one. */
export class ProviderStreamError extends Error {
  readonly status: number | undefined;
  constructor(message: string, status?: number, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'ProviderStreamError';
    this.status = status;
  }
}
