import { ToolportError } from '../core/errors.ts';
import { redactSecretsInText } from '../core/redact-secrets.ts';
import type { OutboundHttpClient } from '../core/tool-types.ts';

/** What a script passes to `g.http.makeHttpRequest` and gets back (seed: `{url, method, headers, body}`). */
export interface ScriptHttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function invalid(message: string): ToolportError {
  return new ToolportError('validation_failed', `g.http.makeHttpRequest: ${message}`);
}

function readRequest(payload: unknown): {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
} {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw invalid('pass an object {url, method, headers, body}.');
  }
  const { url, method, headers, body } = payload as Record<string, unknown>;
  if (typeof url !== 'string' || url === '') throw invalid('`url` must be a non-empty string.');
  if (method !== undefined && typeof method !== 'string') throw invalid('`method` must be a string.');
  if (body !== undefined && body !== null && typeof body !== 'string') {
    throw invalid('`body` must be a string (JSON.stringify objects first).');
  }
  const own: Record<string, string> = {};
  if (headers !== undefined && headers !== null) {
    if (typeof headers !== 'object' || Array.isArray(headers)) throw invalid('`headers` must be an object.');
    for (const [name, value] of Object.entries(headers)) {
      if (typeof value !== 'string') throw invalid(`header ${JSON.stringify(name)} must be a string.`);
      own[name] = value;
    }
  }
  return {
    url,
    method: (method ?? 'GET').toUpperCase(),
    headers: own,
    ...(typeof body === 'string' ? { body } : {}),
  };
}

/** The script's own headers under the tool's: a tool header wins whatever the case the script wrote it in. */
function mergeHeaders(
  own: Record<string, string>,
  injected: Readonly<Record<string, string>>,
): Record<string, string> {
  const injectedNames = new Set(Object.keys(injected).map((name) => name.toLowerCase()));
  const merged: Record<string, string> = {};
  for (const [name, value] of Object.entries(own))
    if (!injectedNames.has(name.toLowerCase())) merged[name] = value;
  return { ...merged, ...injected };
}

/**
 * `g.http.makeHttpRequest` on the host: through NET-1 (`client`), with the tool's resolved headers injected here —
 * the script never receives their values, and a server echoing them back has them masked before the script sees the
 * response.
 */
export async function performScriptHttpRequest(
  payload: unknown,
  injectedHeaders: Readonly<Record<string, string>>,
  /** The secret values inside `injectedHeaders`, masked in the response. */
  secretValues: readonly string[],
  client: OutboundHttpClient,
  signal: AbortSignal,
): Promise<ScriptHttpResponse> {
  const request = readRequest(payload);
  // redactSecretsInText covers the raw, Base64, URL-encoded and JSON-escaped forms: the same set executeTool redacts.
  const hide = (text: string): string => redactSecretsInText(text, secretValues);
  const response = await client.request(
    {
      url: request.url,
      method: request.method,
      headers: mergeHeaders(request.headers, injectedHeaders),
      ...(request.body === undefined ? {} : { body: request.body }),
    },
    signal,
  );
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) headers[name] = hide(value);
  return {
    status: response.status,
    headers,
    body: hide(new TextDecoder().decode(response.body)),
  };
}
