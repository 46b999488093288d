import type { ToolErrorPayload } from '../core/execute-tool.ts';
import type { ProviderFailure } from './provider-errors.ts';

/**
 * SPEC PROV-3: the one normalized event stream every provider adapter produces and the agent loop forwards.
 * Event names are exactly the spec's. `arguments` stays the model's raw JSON text: it is parsed only by core
 * (`parseToolArgumentsJson`), so malformed JSON becomes a tool error the model can correct, never a crashed turn.
 */

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/**
 * Why a step or turn ended, normalized across providers. `max_iterations` and `cancelled` come from the loop;
 * `error` follows an `error` event.
 */
export type StopReason =
  | 'end_turn'
  | 'tool_calls'
  | 'max_tokens'
  | 'content_filter'
  | 'max_iterations'
  | 'token_budget'
  | 'cancelled'
  | 'error'
  | 'other';

export interface TextDeltaEvent {
  type: 'text_delta';
  delta: string;
}

export interface ToolCallStartedEvent {
  type: 'tool_call_started';
  id: string;
  name: string;
}

export interface ToolCallArgumentsDeltaEvent {
  type: 'tool_call_arguments_delta';
  id: string;
  delta: string;
}

export interface ToolCallCompletedEvent {
  type: 'tool_call_completed';
  id: string;
  name: string;
  /** The model's raw JSON text; the concatenation of this call's deltas. Empty text means `{}`. */
  arguments: string;
}

export interface ToolResultEvent {
  type: 'tool_result';
  id: string;
  name: string;
  /** Present on success: the structured result (for the UI). */
  result?: unknown;
  /** Present on failure: `{code, message}` (CORE-6). */
  error?: ToolErrorPayload;
  /** The serialized text the model receives (CORE-7); for a partial result, the partial serialized. */
  output: string;
  /** A result streamed before the final one (generate_image sends one per image); the final one has no flag. */
  partial?: true;
}

/**
 * Issue 16: a call a permission rule marks `ask` waits, before it runs, for a human's answer
 * (`POST /api/chats/:id/approvals/:callId`). `callId` is the id of its `tool_call_started`.
 */
export interface ApprovalRequestedEvent {
  type: 'approval_requested';
  callId: string;
  toolName: string;
  arguments: Record<string, unknown>;
  /** The matched rule, e.g. `"*": "ask"`. */
  reason: string;
}

export interface TurnCompletedEvent {
  type: 'turn_completed';
  usage: TokenUsage;
  stopReason: StopReason;
  /** How many model calls the turn made. */
  iterations: number;
  /** A sentence for humans when the turn did not end with the model's answer (max_iterations, cancelled, error). */
  message?: string;
}

export interface ErrorEvent {
  type: 'error';
  /** `provider_error` (HTTP, connection or stream failure) or `internal_error` (docs/errors.md). */
  code: string;
  /** Plain words: what failed and what to do. */
  message: string;
  status?: number;
  /** On `provider_error`: the provider's name, as in `error.provider`. */
  provider?: string;
  /** On `provider_error`: whether sending the same turn again may succeed (overloaded, rate limited, connection …). */
  retryable?: boolean;
  /** On `provider_error`: the classified failure `{provider, status?, type, retryable, message, url?, finishReason?}`. */
  error?: ProviderFailure;
}

/**
 * AGENT-1: a sub-agent's events reach the caller inside the call that delegated to it, each carrying that call's id as
 * `parentCallId` (deeper delegations keep the id of their own delegating call). The turn's own events have none, so
 * a UI renders nested text and calls under the parent call, never as top-level text.
 */
export interface NestedEventFields {
  parentCallId?: string;
}

export type StreamEvent = (
  | TextDeltaEvent
  | ToolCallStartedEvent
  | ToolCallArgumentsDeltaEvent
  | ToolCallCompletedEvent
  | ToolResultEvent
  | ApprovalRequestedEvent
  | TurnCompletedEvent
  | ErrorEvent
) &
  NestedEventFields;

/** What one provider step (one model call) streams: the model's part of PROV-3. */
export type StepEvent =
  TextDeltaEvent | ToolCallStartedEvent | ToolCallArgumentsDeltaEvent | ToolCallCompletedEvent;

export function emptyUsage(): TokenUsage {
  return { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
}

export function addUsage(total: TokenUsage, step: TokenUsage): TokenUsage {
  return {
    inputTokens: total.inputTokens + step.inputTokens,
    outputTokens: total.outputTokens + step.outputTokens,
    totalTokens: total.totalTokens + step.totalTokens,
  };
}
