import { JSONPath } from 'jsonpath-plus';
import { ToolportError } from '../core/errors.ts';
import type { OutboundHttpResponse } from '../core/tool-types.ts';
import type { HttpToolConfig } from './http-tool-config.ts';

/** SPEC HTTP-1 results: a body cap in characters, and the response headers a model may see. */
export const MAX_HTTP_TOOL_BODY_CHARACTERS = 100_000;
const EXCERPT_CHARACTERS = 300;
const decoder = new TextDecoder();
const SAFE_HEADERS = new Set(['content-type', 'content-length', 'location', 'retry-after']);
const RATE_LIMIT_HEADER = /^(?:x-)?rate-?limit-/i;

export interface HttpToolResult {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  truncated?: true;
}

function safeHeaders(headers: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (SAFE_HEADERS.has(lower) || RATE_LIMIT_HEADER.test(lower)) kept[lower] = value;
  }
  return kept;
}

function isJsonType(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/(?:[\w.+-]+\+)?json\b|^text\/json\b/i.test(contentType);
}

/** Definite paths (`$.a.b[0]`) give one value; wildcards, slices, unions and descent give the list of matches. */
function isDefinitePath(path: string): boolean {
  return !/\*|\.\.|,|:|\?\(|\(/.test(path);
}

function mapResponse(config: HttpToolConfig, json: unknown, hasJson: boolean): Record<string, unknown> {
  const mapping = config.responseMapping!;
  if (!hasJson) {
    throw new ToolportError(
      'execution_failed',
      `responseMapping needs a JSON response, and this one is not JSON: the path ${mapping.path} cannot apply.`,
      { details: { path: mapping.path } },
    );
  }
  let matches: unknown[];
  try {
    matches = JSONPath({ path: mapping.path, json: json as object, eval: false, wrap: true }) as unknown[];
  } catch (error) {
    throw new ToolportError(
      'execution_failed',
      `responseMapping.path ${mapping.path} is invalid: ${(error as Error).message}`,
      { details: { path: mapping.path } },
    );
  }
  if (matches.length === 0) {
    throw new ToolportError(
      'execution_failed',
      `responseMapping.path ${mapping.path} matched nothing in the response.`,
      {
        details: { path: mapping.path },
      },
    );
  }
  return { [mapping.as]: isDefinitePath(mapping.path) && matches.length === 1 ? matches[0] : matches };
}

/**
 * What the model receives: `{status, headers, body}` (JSON parsed when the content type says so, text otherwise,
 * capped with `truncated`), or `{[as]: value}` with a `responseMapping`. Non-2xx answers are tool errors with the
 * status and a short excerpt.
 */
export function shapeHttpToolResult(config: HttpToolConfig, response: OutboundHttpResponse): unknown {
  const text = decoder.decode(response.body);
  const contentType = Object.entries(response.headers).find(
    ([name]) => name.toLowerCase() === 'content-type',
  )?.[1];
  if (response.status < 200 || response.status > 299) {
    const excerpt = text.length > EXCERPT_CHARACTERS ? `${text.slice(0, EXCERPT_CHARACTERS)}…` : text;
    throw new ToolportError(
      'execution_failed',
      `The API answered HTTP ${response.status}${excerpt === '' ? '.' : `: ${excerpt}`}`,
      { details: { status: response.status, body: excerpt } },
    );
  }
  let json: unknown;
  let hasJson = false;
  if (isJsonType(contentType) && !response.truncated && text.trim() !== '') {
    try {
      json = JSON.parse(text);
      hasJson = true;
    } catch {
      // A server that labels text as JSON: the model gets the text.
    }
  }
  if (config.responseMapping !== undefined) return mapResponse(config, json, hasJson);
  const headers = safeHeaders(response.headers);
  if (hasJson && text.length <= MAX_HTTP_TOOL_BODY_CHARACTERS)
    return { status: response.status, headers, body: json };
  if (text.length > MAX_HTTP_TOOL_BODY_CHARACTERS || response.truncated) {
    return {
      status: response.status,
      headers,
      body: text.slice(0, MAX_HTTP_TOOL_BODY_CHARACTERS),
      truncated: true,
    };
  }
  return { status: response.status, headers, body: text };
}
