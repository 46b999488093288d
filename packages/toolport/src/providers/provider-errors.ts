import { ProviderStreamError } from './provider-adapter.ts';

/** Turns an SDK error (APIError of openai/anthropic, ApiError of genai, a network error) into one shape. */
export function toProviderStreamError(error: unknown): ProviderStreamError {
  if (error instanceof ProviderStreamError) return error;
  const status = (error as { status?: unknown } | null)?.status;
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderStreamError(message, typeof status === 'number' ? status : undefined, error);
}

export function isAbortError(error: unknown, signal: AbortSignal | undefined): boolean {
  if (signal?.aborted) return true;
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'AbortError' || name === 'APIUserAbortError';
}
