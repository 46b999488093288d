import createClient from 'openapi-fetch';
import type { paths } from '../.generated/api';
import { currentToken, markRevoked } from '../auth/token-store';

/** An API error body (`{error: {code, message, parameter?, …}}`) with its HTTP status. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** The setting or field the server blames (422 `invalid_settings` names one). */
  readonly parameter: string | undefined;
  readonly details: Record<string, unknown>;

  constructor(status: number, body: unknown) {
    const error = isErrorBody(body) ? body.error : { code: `http_${status}`, message: `HTTP ${status}` };
    super(String(error.message));
    this.status = status;
    this.code = String(error.code);
    this.parameter = typeof error.parameter === 'string' ? error.parameter : undefined;
    this.details = error;
  }
}

function isErrorBody(
  body: unknown,
): body is { error: Record<string, unknown> & { code: unknown; message: unknown } } {
  return typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'object';
}

export function authorizationHeaders(): Record<string, string> {
  const token = currentToken();
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
}

/** Typed client over the generated `paths`; every request carries the bearer token, and a 401 signs the tab out. */
export const api = createClient<paths>({ baseUrl: '' });
api.use({
  onRequest({ request }) {
    for (const [name, value] of Object.entries(authorizationHeaders())) request.headers.set(name, value);
    return request;
  },
  onResponse({ response }) {
    if (response.status === 401) markRevoked();
    return response;
  },
});

/** Awaits an openapi-fetch call: its data, or an ApiError. */
export async function call<T>(
  pending: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await pending;
  if (!response.ok || error !== undefined) throw new ApiError(response.status, error);
  return data as T;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
