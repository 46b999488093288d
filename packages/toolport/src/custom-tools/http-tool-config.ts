import { Ajv } from 'ajv';
import { JSONPath } from 'jsonpath-plus';
import { ToolportError } from '../core/errors.ts';
import type { JsonSchema } from '../core/tool-types.ts';
import type { CredentialLayout } from '../credentials/config-credentials.ts';
import { placeholderNames, splitUrlTemplate } from './http-tool-template.ts';

/** SPEC HTTP-1 (seed 003): the validated configuration of a declarative HTTP tool. */
export const HTTP_TOOL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpToolMethod = (typeof HTTP_TOOL_METHODS)[number];
export type HttpToolAuthType = 'bearer' | 'basic' | 'api-key';
export type HttpBodyKind = 'json' | 'form' | 'xml' | 'text';

export interface HttpToolConfig {
  url: string;
  method: HttpToolMethod;
  description: string;
  parameters: JsonSchema;
  headers?: Record<string, string>;
  /** A string template, or a JSON value (a JSON template) for JSON bodies. */
  body?: unknown;
  auth?: { type: HttpToolAuthType; value: string; headerName?: string };
  responseMapping?: { path: string; as: string };
  timeout?: number;
}

export const DEFAULT_HTTP_TOOL_TIMEOUT_MS = 30_000;
export const MAX_HTTP_TOOL_TIMEOUT_MS = 600_000;
export const DEFAULT_API_KEY_HEADER = 'X-API-Key';

/** Where an HTTP tool keeps credentials (`credentials/config-credentials.ts`). */
export const HTTP_TOOL_CREDENTIALS: CredentialLayout = {
  kind: 'http-tool',
  values: [['auth', 'value']],
  maps: ['headers'],
  // Content negotiation, never credentials: shown and stored as written (and not redacted from every result).
  plainKeys: ['content-type', 'accept'],
};

const KNOWN_FIELDS = new Set([
  'url',
  'method',
  'description',
  'parameters',
  'headers',
  'body',
  'auth',
  'responseMapping',
  'timeout',
]);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Set by the client from the URL and body, or dangerous to let a template choose. */
const FORBIDDEN_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'upgrade']);

export function invalidConfig(field: string, message: string): ToolportError {
  return new ToolportError('validation_failed', `Invalid HTTP tool config: \`${field}\` ${message}`, {
    details: { field },
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requireString(input: Record<string, unknown>, field: string, maxLength: number): string {
  const value = input[field];
  if (typeof value !== 'string' || value.trim() === '') {
    throw invalidConfig(
      field,
      `must be a non-empty string${value === undefined ? ' (it is required)' : ''}.`,
    );
  }
  if (value.length > maxLength) throw invalidConfig(field, `must be at most ${maxLength} characters.`);
  return value;
}

const schemaChecker = new Ajv({ strict: false, validateFormats: false });

function readParameters(value: unknown): JsonSchema {
  if (!isRecord(value)) {
    throw invalidConfig(
      'parameters',
      'is required: a JSON Schema of type "object" describing the arguments.',
    );
  }
  if (value.type !== 'object') throw invalidConfig('parameters', 'must have "type": "object".');
  if (value.properties !== undefined && !isRecord(value.properties)) {
    throw invalidConfig('parameters.properties', 'must be an object of property schemas.');
  }
  try {
    schemaChecker.compile(value);
  } catch (error) {
    throw invalidConfig('parameters', `is not a valid JSON Schema: ${(error as Error).message}`);
  }
  // Strict where derivable: the model may send only the declared arguments.
  return value.additionalProperties === undefined ? { ...value, additionalProperties: false } : value;
}

export function parameterNames(parameters: JsonSchema): Set<string> {
  return new Set(isRecord(parameters.properties) ? Object.keys(parameters.properties) : []);
}

/** JSON body when the declared type says so (or nothing is declared and the body is JSON). */
export function bodyKind(config: Pick<HttpToolConfig, 'headers' | 'body'>): HttpBodyKind {
  const declared = contentTypeOf(config.headers)?.toLowerCase();
  if (declared === undefined)
    return typeof config.body === 'string' ? (looksLikeJson(config.body) ? 'json' : 'text') : 'json';
  if (/^application\/(?:[\w.+-]+\+)?json\b/.test(declared)) return 'json';
  if (declared.startsWith('application/x-www-form-urlencoded')) return 'form';
  if (/^(?:application|text)\/(?:[\w.+-]+\+)?xml\b/.test(declared)) return 'xml';
  return 'text';
}

export function contentTypeOf(headers: Record<string, string> | undefined): string | undefined {
  if (headers === undefined) return undefined;
  for (const [name, value] of Object.entries(headers))
    if (name.toLowerCase() === 'content-type') return value;
  return undefined;
}

function looksLikeJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Every string inside a JSON template (placeholders live only in strings). */
function jsonStrings(node: unknown, out: string[] = []): string[] {
  if (typeof node === 'string') out.push(node);
  else if (Array.isArray(node)) for (const item of node) jsonStrings(item, out);
  else if (isRecord(node)) for (const item of Object.values(node)) jsonStrings(item, out);
  return out;
}

/** The parsed JSON template of a JSON body (a string body is parsed once here). */
export function jsonBodyTemplate(body: unknown): unknown {
  return typeof body === 'string' ? (JSON.parse(body) as unknown) : body;
}

function checkUrl(url: string, parameters: Set<string>): void {
  const parts = splitUrlTemplate(url);
  if (parts === undefined) throw invalidConfig('url', 'must be an absolute http:// or https:// URL.');
  if (parts.origin.includes('{{') || parts.origin.includes('}}')) {
    throw invalidConfig(
      'url',
      'cannot template the scheme, host or port: placeholders are allowed in the path and the query only.',
    );
  }
  let origin: URL;
  try {
    origin = new URL(`${parts.origin}/`);
  } catch {
    throw invalidConfig('url', 'must be an absolute http:// or https:// URL.');
  }
  if (origin.protocol !== 'http:' && origin.protocol !== 'https:') {
    throw invalidConfig('url', 'must use http:// or https://.');
  }
  if (origin.username !== '' || origin.password !== '') {
    throw invalidConfig(
      'url',
      'cannot contain credentials (user:password@): use `auth` with a secret reference.',
    );
  }
  if (origin.port === '0') throw invalidConfig('url', 'cannot use port 0.');
  for (const name of placeholderNames(url)) {
    if (!parameters.has(name)) {
      throw invalidConfig(
        'url',
        `refers to {{${name}}}, which is not a property of \`parameters\`. Secrets are allowed only in headers and ` +
          '`auth`, never in the URL.',
      );
    }
  }
}

function checkNoSecretPlaceholders(field: string, texts: readonly string[], parameters: Set<string>): void {
  for (const text of texts) {
    for (const name of placeholderNames(text)) {
      if (!parameters.has(name)) {
        throw invalidConfig(
          field,
          `refers to {{${name}}}, which is not a property of \`parameters\` (secrets are allowed only in headers and \`auth\`).`,
        );
      }
    }
  }
}

function readHeaders(value: unknown): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) throw invalidConfig('headers', 'must be an object of header names to string values.');
  const headers: Record<string, string> = {};
  for (const [name, entry] of Object.entries(value)) {
    if (!HEADER_NAME.test(name)) throw invalidConfig(`headers.${name}`, 'is not a valid HTTP header name.');
    if (FORBIDDEN_HEADERS.has(name.toLowerCase())) {
      throw invalidConfig(`headers.${name}`, 'is set by the HTTP client and cannot be configured.');
    }
    if (typeof entry !== 'string') throw invalidConfig(`headers.${name}`, 'must be a string.');
    if (/[\r\n\0]/.test(entry)) throw invalidConfig(`headers.${name}`, 'cannot contain line breaks (CR/LF).');
    headers[name] = entry;
  }
  return headers;
}

function readAuth(value: unknown): HttpToolConfig['auth'] {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) throw invalidConfig('auth', 'must be an object {type, value, headerName?}.');
  const type = value.type;
  if (type !== 'bearer' && type !== 'basic' && type !== 'api-key') {
    throw invalidConfig('auth.type', 'must be "bearer", "basic" or "api-key".');
  }
  if (typeof value.value !== 'string' || value.value === '') {
    throw invalidConfig(
      'auth.value',
      'must be a non-empty string (a literal, or a template like {{API_KEY}}).',
    );
  }
  if (/[\r\n\0]/.test(value.value)) throw invalidConfig('auth.value', 'cannot contain line breaks (CR/LF).');
  if (type === 'basic' && !value.value.includes(':')) {
    throw invalidConfig('auth.value', 'must be "user:password" for basic auth (e.g. "me:{{PASSWORD}}").');
  }
  for (const key of Object.keys(value)) {
    if (key !== 'type' && key !== 'value' && key !== 'headerName')
      throw invalidConfig(`auth.${key}`, 'is not a known field.');
  }
  let headerName: string | undefined;
  if (value.headerName !== undefined) {
    if (type !== 'api-key') throw invalidConfig('auth.headerName', 'applies only to "api-key" auth.');
    if (typeof value.headerName !== 'string' || !HEADER_NAME.test(value.headerName)) {
      throw invalidConfig('auth.headerName', 'must be a valid HTTP header name.');
    }
    headerName = value.headerName;
  }
  return { type, value: value.value, ...(headerName === undefined ? {} : { headerName }) };
}

function readResponseMapping(value: unknown): HttpToolConfig['responseMapping'] {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) throw invalidConfig('responseMapping', 'must be an object {path, as}.');
  if (typeof value.path !== 'string' || value.path.trim() === '') {
    throw invalidConfig('responseMapping.path', 'must be a JSONPath such as "$.data.items[0].name".');
  }
  if (typeof value.as !== 'string' || value.as.trim() === '' || value.as.length > 128) {
    throw invalidConfig('responseMapping.as', 'must be a non-empty name (at most 128 characters).');
  }
  for (const key of Object.keys(value)) {
    if (key !== 'path' && key !== 'as')
      throw invalidConfig(`responseMapping.${key}`, 'is not a known field.');
  }
  assertJsonPath(value.path);
  return { path: value.path, as: value.as };
}

/** A JSONPath jsonpath-plus can parse and evaluate without script evaluation (filters and scripts are refused). */
export function assertJsonPath(path: string): void {
  if (!path.startsWith('$')) throw invalidConfig('responseMapping.path', 'must start with "$".');
  try {
    JSONPath({ path, json: {}, eval: false, wrap: true });
  } catch (error) {
    throw invalidConfig('responseMapping.path', `is not a valid JSONPath: ${(error as Error).message}`);
  }
}

/**
 * Validates an untrusted config (plaintext credentials: opened before validation) and returns a clean copy. `secrets`
 * are the owner's secret names, for the rule that a placeholder naming both an argument and a secret is refused.
 */
export function parseHttpToolConfig(
  input: unknown,
  secretNames: ReadonlySet<string> = new Set(),
): HttpToolConfig {
  if (!isRecord(input)) throw invalidConfig('config', 'must be an object.');
  for (const key of Object.keys(input))
    if (!KNOWN_FIELDS.has(key)) throw invalidConfig(key, 'is not a known field.');
  const url = requireString(input, 'url', 4096);
  const method = input.method;
  if (typeof method !== 'string' || !(HTTP_TOOL_METHODS as readonly string[]).includes(method)) {
    throw invalidConfig('method', `must be one of ${HTTP_TOOL_METHODS.join(', ')}.`);
  }
  const description =
    input.description === undefined ? undefined : requireString(input, 'description', 10_000);
  const parameters = readParameters(input.parameters);
  const names = parameterNames(parameters);
  checkUrl(url, names);
  const headers = readHeaders(input.headers);
  const auth = readAuth(input.auth);
  const credentialTemplates = [...Object.values(headers ?? {}), ...(auth === undefined ? [] : [auth.value])];
  for (const name of credentialTemplates.flatMap(placeholderNames)) {
    if (names.has(name) && secretNames.has(name)) {
      throw invalidConfig(
        `parameters.properties.${name}`,
        `names an argument and one of your secrets: {{${name}}} in a header or \`auth\` would be ambiguous. ` +
          'Rename the argument or the secret.',
      );
    }
  }
  let body: unknown;
  if (input.body !== undefined && input.body !== null) {
    if (method === 'GET' || method === 'DELETE') {
      throw invalidConfig('body', `is not sent with ${method}: remove it or use POST, PUT or PATCH.`);
    }
    body = input.body;
    const kind = bodyKind({ headers, body });
    if (typeof body !== 'string' && kind !== 'json') {
      throw invalidConfig('body', 'must be a string template for a non-JSON content type.');
    }
    if (kind === 'json') {
      let template: unknown;
      try {
        template = jsonBodyTemplate(body);
      } catch (error) {
        throw invalidConfig(
          'body',
          `must be valid JSON for a JSON content type (${(error as Error).message}); put each placeholder inside a ` +
            'string: "{{count}}" takes the typed value.',
        );
      }
      checkNoSecretPlaceholders('body', jsonStrings(template), names);
    } else {
      checkNoSecretPlaceholders('body', [body as string], names);
    }
  }
  const timeout = input.timeout;
  if (
    timeout !== undefined &&
    (typeof timeout !== 'number' ||
      !Number.isInteger(timeout) ||
      timeout < 1 ||
      timeout > MAX_HTTP_TOOL_TIMEOUT_MS)
  ) {
    throw invalidConfig(
      'timeout',
      `must be an integer number of milliseconds from 1 to ${MAX_HTTP_TOOL_TIMEOUT_MS}.`,
    );
  }
  const responseMapping = readResponseMapping(input.responseMapping);
  return {
    url,
    method: method as HttpToolMethod,
    description: description ?? `${method} ${url}`,
    parameters,
    ...(headers === undefined ? {} : { headers }),
    ...(body === undefined ? {} : { body }),
    ...(auth === undefined ? {} : { auth }),
    ...(responseMapping === undefined ? {} : { responseMapping }),
    ...(timeout === undefined ? {} : { timeout: timeout as number }),
  };
}
