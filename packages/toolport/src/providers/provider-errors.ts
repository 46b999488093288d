import { isToolportError } from '../core/errors.ts';
import { ProviderStreamError } from './provider-adapter.ts';

/**
 * NET-1 refusals reach the SDK as its fetch's error and come back as a generic "Connection error."; the refusal in
 * the cause chain says what happened (AUTH-2: a non-admin's base URL that resolves to a blocked address).
 */
function refusalInCauses(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current instanceof Error; depth += 1) {
    if (isToolportError(current) && current.code === 'permission_denied') return current.message;
    current = current.cause;
  }
  return undefined;
}

/** Turns an SDK error (APIError of openai/anthropic, ApiError of genai, a network error) into one shape. */
export function toProviderStreamError(error: unknown): ProviderStreamError {
  if (error instanceof ProviderStreamError) return error;
  const status = (error as { status?: unknown } | null)?.status;
  const message = refusalInCauses(error) ?? (error instanceof Error ? error.message : String(error));
  return new ProviderStreamError(message, typeof status === 'number' ? status : undefined, error);
}

export function isAbortError(error: unknown, signal: AbortSignal | undefined): boolean {
  if (signal?.aborted) return true;
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'AbortError' || name === 'APIUserAbortError';
}
