import { ApiError, authorizationHeaders } from './client';
import { markRevoked } from '../auth/token-store';

/**
 * A JSON request to a route this build's generated types may not know yet (features the server gains later are
 * found in its OpenAPI document at run time).
 */
export async function requestJson(method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(path, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...authorizationHeaders(),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (response.status === 401) markRevoked();
  const text = await response.text();
  const parsed: unknown = text === '' ? undefined : JSON.parse(text);
  if (!response.ok) throw new ApiError(response.status, parsed);
  return parsed;
}
