import { isToolportError } from '../core/errors.ts';
import type { StepEvent } from './stream-events.ts';
import { ProviderStreamError, type ProviderErrorType, type StepOutcome } from './provider-adapter.ts';

/** Where a failed request went: named in messages, and the URL a connection error tried. */
export interface ProviderErrorContext {
  provider: string;
  /** The base URL the SDK was given, else the provider's public one. */
  url: string;
}

/** A classified provider failure: what an `error` event carries for a client to act on (wait, fix the key …). */
export interface ProviderFailure {
  provider: string;
  status?: number;
  type: ProviderErrorType;
  retryable: boolean;
  /** Plain words: what failed and what to do, with the provider's own message (never its raw JSON body). */
  message: string;
  /** The base URL tried, on connection errors and timeouts. */
  url?: string;
  /** Gemini's finish reason when a candidate ended in a failure (`MALFORMED_FUNCTION_CALL` …). */
  finishReason?: string;
}

export const DEFAULT_PROVIDER_URLS: Record<string, string> = {
  openai: 'https://api.openai.com/v1',
  'openai-chat': 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
  gemini: 'https://generativelanguage.googleapis.com',
  'gemini-interactions': 'https://generativelanguage.googleapis.com',
};

const PROVIDER_LABELS: Record<string, string> = {
  openai: 'OpenAI',
  'openai-chat': 'The Chat Completions server',
  anthropic: 'Anthropic',
  gemini: 'Gemini',
  'gemini-interactions': 'Gemini',
};

const RETRYABLE: ReadonlySet<ProviderErrorType> = new Set([
  'overloaded',
  'rate_limited',
  'server',
  'timeout',
  'connection',
  'invalid_response',
]);

/** What each type means for the caller, after "<provider> …". */
const SUMMARIES: Record<ProviderErrorType, string> = {
  overloaded: 'is overloaded; try again in a moment',
  rate_limited: 'refused the request: rate limit reached; wait before retrying',
  quota_exceeded: "refused the request: quota exceeded; check the account's plan and billing",
  invalid_request: 'rejected the request',
  authentication: 'rejected the API key; check the key configured for this provider',
  permission_denied: 'refused the request: this key may not use it',
  not_found: 'does not know the model or endpoint; check the model name and base URL',
  server: 'failed with a server error; try again',
  timeout: 'did not answer in time',
  connection: 'could not be reached',
  invalid_response: 'sent a reply toolport cannot use',
  unknown: 'failed',
};

/** Provider codes (Anthropic `error.type`, OpenAI `code`/`type`, Google `status`/`reason`), lower-cased. */
const CODE_TYPES: Record<string, ProviderErrorType> = {
  overloaded_error: 'overloaded',
  unavailable: 'overloaded',
  rate_limit_error: 'rate_limited',
  rate_limit_exceeded: 'rate_limited',
  resource_exhausted: 'rate_limited',
  insufficient_quota: 'quota_exceeded',
  authentication_error: 'authentication',
  invalid_api_key: 'authentication',
  api_key_invalid: 'authentication',
  unauthenticated: 'authentication',
  permission_error: 'permission_denied',
  permission_denied: 'permission_denied',
  not_found_error: 'not_found',
  model_not_found: 'not_found',
  invalid_request_error: 'invalid_request',
  invalid_argument: 'invalid_request',
  request_too_large: 'invalid_request',
  api_error: 'server',
  server_error: 'server',
  internal: 'server',
  timeout_error: 'timeout',
  deadline_exceeded: 'timeout',
};

/** Codes that say more than the HTTP status (a 429 that waiting will not fix, a 400 that is a bad key). */
const CODES_OVER_STATUS = new Set(['insufficient_quota', 'invalid_api_key', 'api_key_invalid']);

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function typeForStatus(status: number): ProviderErrorType {
  if (status === 401) return 'authentication';
  if (status === 403) return 'permission_denied';
  if (status === 404) return 'not_found';
  if (status === 408 || status === 504) return 'timeout';
  if (status === 429) return 'rate_limited';
  if (status === 503 || status === 529) return 'overloaded';
  if (status >= 500) return 'server';
  return 'invalid_request';
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}

/** The JSON body an SDK folded into its message (`@google/genai` puts the whole body there). */
function bodyInMessage(message: string): Record<string, unknown> | undefined {
  const start = message.indexOf('{');
  if (start < 0) return undefined;
  try {
    return record(JSON.parse(message.slice(start)));
  } catch {
    return undefined;
  }
}

interface ProviderDetail {
  message?: string;
  codes: string[];
}

/** The provider's own message and codes, from whichever SDK shape the error has. */
function providerDetail(error: unknown): ProviderDetail {
  const codes: string[] = [];
  const candidates: Array<Record<string, unknown> | undefined> = [];
  const sdkError = record(error);
  const sdkBody = record(sdkError?.error);
  candidates.push(record(sdkBody?.error), sdkBody);
  if (error instanceof Error) {
    const parsed = bodyInMessage(error.message);
    candidates.push(record(parsed?.error), parsed);
  }
  if (error instanceof ProviderStreamError && error.providerCode !== undefined)
    codes.push(error.providerCode);
  let message: string | undefined;
  for (const candidate of candidates) {
    if (candidate === undefined) continue;
    if (message === undefined && typeof candidate.message === 'string' && candidate.message !== '')
      message = candidate.message;
    for (const key of ['type', 'status', 'code'])
      if (typeof candidate[key] === 'string') codes.push(candidate[key]);
    if (Array.isArray(candidate.details))
      for (const detail of candidate.details)
        if (typeof record(detail)?.reason === 'string') codes.push(record(detail)!.reason as string);
  }
  for (const key of ['code', 'type'])
    if (typeof sdkError?.[key] === 'string') codes.push(sdkError[key] as string);
  return { message, codes: codes.map((code) => code.toLowerCase()) };
}

function connectionCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current !== undefined && depth < 6; depth += 1) {
    const code = record(current)?.code;
    if (typeof code === 'string' && CONNECTION_CODES.has(code)) return code;
    current = record(current)?.cause;
  }
  return undefined;
}

/**
 * NET-1 refusals reach the SDK as its fetch's error and come back as a generic "Connection error."; the refusal in
 * the cause chain says what happened (AUTH-2: a base URL that resolves to a blocked address).
 */
function refusalInCauses(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current instanceof Error; depth += 1) {
    if (isToolportError(current) && current.code === 'permission_denied') return current.message;
    current = current.cause;
  }
  return undefined;
}

function isTimeout(error: unknown): boolean {
  const name = record(error)?.name;
  return name === 'APIConnectionTimeoutError' || name === 'TimeoutError';
}

function isConnectionFailure(error: unknown): boolean {
  const name = record(error)?.name;
  return (
    connectionCode(error) !== undefined ||
    name === 'APIConnectionError' ||
    (error instanceof TypeError && error.message === 'fetch failed')
  );
}

function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/**
 * Turns any SDK failure (openai/anthropic `APIError`, genai `ApiError` whose message is the JSON body, a fetch that
 * could not connect, a stream `error` event) into one classified `ProviderStreamError` with a message in plain words.
 */
export function classifyProviderError(error: unknown, context: ProviderErrorContext): ProviderStreamError {
  if (error instanceof ProviderStreamError && error.type !== undefined) return error;
  const label = PROVIDER_LABELS[context.provider] ?? context.provider;
  const rawStatus = record(error)?.status;
  const status = typeof rawStatus === 'number' && rawStatus >= 400 ? rawStatus : undefined;
  const base = {
    cause: error,
    provider: context.provider,
    ...(error instanceof ProviderStreamError
      ? { providerCode: error.providerCode, finishReason: error.finishReason }
      : {}),
  };

  const refusal = refusalInCauses(error);
  if (refusal !== undefined)
    return new ProviderStreamError(`${label} was not contacted: ${refusal}`, undefined, {
      ...base,
      type: 'permission_denied',
      retryable: false,
      url: context.url,
    });

  if (status === undefined && (isTimeout(error) || isConnectionFailure(error))) {
    const type: ProviderErrorType = isTimeout(error) ? 'timeout' : 'connection';
    const code = connectionCode(error);
    const what =
      type === 'timeout'
        ? `${label} at ${context.url} did not answer in time`
        : `Could not connect to ${label} at ${context.url}${code === undefined ? '' : ` (${code})`}`;
    return new ProviderStreamError(`${what}: is the server at ${originOf(context.url)} running?`, undefined, {
      ...base,
      type,
      retryable: true,
      url: context.url,
    });
  }

  const detail = providerDetail(error);
  const strongCode = detail.codes.find((code) => CODES_OVER_STATUS.has(code));
  let type: ProviderErrorType;
  if (error instanceof ProviderStreamError && error.finishReason !== undefined) type = 'invalid_response';
  else if (strongCode !== undefined) type = CODE_TYPES[strongCode]!;
  else if (status !== undefined) type = typeForStatus(status);
  else type = detail.codes.map((code) => CODE_TYPES[code]).find((found) => found !== undefined) ?? 'unknown';

  const fallback = error instanceof Error ? error.message : String(error);
  // An SDK message that is only a JSON body (or "529 {…}") says nothing a person can read.
  const own = detail.message ?? (bodyInMessage(fallback) === undefined ? fallback : undefined);
  const ownText = own === undefined || own === '' ? '' : `: ${sentence(own.replace(/^\d{3} /, ''))}`;
  const statusText = status === undefined ? '' : ` (HTTP ${status})`;
  return new ProviderStreamError(`${label} ${SUMMARIES[type]}${statusText}${ownText}`, status, {
    ...base,
    type,
    retryable: RETRYABLE.has(type),
  });
}

/** The fields an `error` event carries (`ErrorEvent.error`). */
export function toProviderFailure(error: ProviderStreamError): ProviderFailure {
  return {
    provider: error.provider ?? 'unknown',
    ...(error.status === undefined ? {} : { status: error.status }),
    type: error.type ?? 'unknown',
    retryable: error.retryable ?? false,
    message: error.message,
    ...(error.url === undefined ? {} : { url: error.url }),
    ...(error.finishReason === undefined ? {} : { finishReason: error.finishReason }),
  };
}

/** Any failure as a classified `ProviderStreamError` when the provider is not known (custom adapters). */
export function toProviderStreamError(error: unknown): ProviderStreamError {
  return classifyProviderError(error, { provider: 'unknown', url: 'unknown' });
}

export function isAbortError(error: unknown, signal: AbortSignal | undefined): boolean {
  if (signal?.aborted) return true;
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'AbortError' || name === 'APIUserAbortError';
}

/**
 * Runs one adapter step and classifies what it throws, so every adapter's failures reach the loop in one shape.
 * Cancellation passes through untouched.
 */
export async function* classifiedStep(
  context: ProviderErrorContext,
  signal: AbortSignal | undefined,
  step: () => AsyncGenerator<StepEvent, StepOutcome>,
): AsyncGenerator<StepEvent, StepOutcome> {
  try {
    return yield* step();
  } catch (error) {
    if (isAbortError(error, signal)) throw error;
    throw classifyProviderError(error, context);
  }
}

export function providerErrorContext(provider: string, baseURL: string | undefined): ProviderErrorContext {
  return { provider, url: baseURL ?? DEFAULT_PROVIDER_URLS[provider] ?? provider };
}
