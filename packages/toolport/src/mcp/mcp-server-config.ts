import { ToolportError } from '../core/errors.ts';
import {
  maskCredentials,
  restoreMaskedCredentials,
  type CredentialLayout,
} from '../credentials/config-credentials.ts';

/**
 * A user's MCP server (SPEC MCP-1, Settings → MCP). Plain data, stored as JSON by the persistence layer. Header and
 * environment values may hold `{{SECRET_NAME}}` references, resolved through the user's `SecretReader` at connect
 * time; a GET never returns them (`redactMcpServerConfig`).
 */
export type McpServerConfig = McpStdioServerConfig | McpRemoteServerConfig;

interface McpServerConfigBase {
  /** Stable id (database row id). Connections and statuses are keyed by it. */
  id: string;
  /** Shown in the UI and used as the tool-name prefix `<name>_<tool>` (sanitized). */
  name: string;
  /** A disabled server is never spawned or contacted. */
  enabled: boolean;
  /** A call without a response or progress for this long fails with `timeout`. Progress restarts the clock. */
  callTimeoutSeconds?: number;
  /** Spawn/connect plus the initialize handshake must finish within this; default the pool's (30 s). */
  connectTimeoutSeconds?: number;
}

export interface McpStdioServerConfig extends McpServerConfigBase {
  transport: 'stdio';
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
}

/** `auto` tries Streamable HTTP and falls back to the legacy HTTP+SSE transport when the server refuses it. */
export type McpRemoteProtocol = 'auto' | 'streamable-http' | 'sse';

export interface McpRemoteServerConfig extends McpServerConfigBase {
  transport: 'http';
  url: string;
  protocol?: McpRemoteProtocol;
  headers?: Record<string, string>;
  /** MCP authorization (OAuth 2.1): a client registered with the authorization server in advance, and scopes. */
  oauth?: McpOAuthClientConfig;
}

/**
 * Optional: without it, toolport registers itself (client ID metadata document, else dynamic registration) and takes
 * scopes from the server's `WWW-Authenticate` or `scopes_supported`.
 */
export interface McpOAuthClientConfig {
  /** A pre-registered client id. */
  clientId?: string;
  /** Its secret, for a confidential client: a credential (sealed at rest, `***` in responses). */
  clientSecret?: string;
  /** Space-separated scopes to ask for when the server names none. */
  scope?: string;
}

export const DEFAULT_MCP_CALL_TIMEOUT_SECONDS = 60;
export const MIN_MCP_CALL_TIMEOUT_SECONDS = 1;
export const MAX_MCP_CALL_TIMEOUT_SECONDS = 600;
export const MIN_MCP_CONNECT_TIMEOUT_SECONDS = 1;
export const MAX_MCP_CONNECT_TIMEOUT_SECONDS = 300;
/** What a GET shows in place of a header or environment value. A write of this value keeps the stored one. */
export const REDACTED_VALUE = '***';

const REMOTE_PROTOCOLS: readonly McpRemoteProtocol[] = ['auto', 'streamable-http', 'sse'];
const HEADER_NAME_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

function invalid(field: string, message: string): ToolportError {
  return new ToolportError('validation_failed', `Invalid MCP server config: \`${field}\` ${message}`, {
    details: { field },
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readString(input: Record<string, unknown>, field: string, required: true): string;
function readString(input: Record<string, unknown>, field: string, required: false): string | undefined;
function readString(input: Record<string, unknown>, field: string, required: boolean): string | undefined {
  const value = input[field];
  if (value === undefined || value === null) {
    if (required) throw invalid(field, 'is required.');
    return undefined;
  }
  if (typeof value !== 'string') throw invalid(field, `must be a string, received ${typeof value}.`);
  if (required && value.trim() === '') throw invalid(field, 'must not be empty.');
  return value;
}

function readStringMap(
  input: Record<string, unknown>,
  field: string,
  namePattern: RegExp,
  what: string,
): Record<string, string> | undefined {
  const value = input[field];
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) throw invalid(field, 'must be an object of string values.');
  const result: Record<string, string> = {};
  for (const [name, entry] of Object.entries(value)) {
    if (!namePattern.test(name)) throw invalid(`${field}.${name}`, `is not a valid ${what} name.`);
    if (typeof entry !== 'string') throw invalid(`${field}.${name}`, 'must be a string.');
    result[name] = entry;
  }
  return result;
}

function readSeconds(
  input: Record<string, unknown>,
  field: string,
  min: number,
  max: number,
): number | undefined {
  const value = input[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(field, `must be an integer from ${min} to ${max}.`);
  }
  return value;
}

const OAUTH_FIELDS = ['clientId', 'clientSecret', 'scope'] as const;

function readOAuthClient(input: Record<string, unknown>): McpOAuthClientConfig | undefined {
  const value = input.oauth;
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) throw invalid('oauth', 'must be an object with clientId, clientSecret and scope.');
  const unknown = Object.keys(value).filter((key) => !(OAUTH_FIELDS as readonly string[]).includes(key));
  if (unknown.length > 0) throw invalid(`oauth.${unknown[0]}`, 'is not a known field.');
  const oauth: McpOAuthClientConfig = {};
  for (const field of OAUTH_FIELDS) {
    const entry = value[field];
    if (entry === undefined || entry === null || entry === '') continue;
    if (typeof entry !== 'string') throw invalid(`oauth.${field}`, 'must be a string.');
    oauth[field] = entry;
  }
  if (oauth.clientSecret !== undefined && oauth.clientId === undefined) {
    throw invalid('oauth.clientId', 'is required with oauth.clientSecret.');
  }
  return Object.keys(oauth).length === 0 ? undefined : oauth;
}

/**
 * Validates an untrusted config (an API body, a stored row) and returns a clean copy with only known fields.
 * Throws a `validation_failed` ToolportError naming the field.
 */
export function parseMcpServerConfig(input: unknown): McpServerConfig {
  if (!isRecord(input)) throw invalid('(root)', 'must be an object.');
  const id = readString(input, 'id', true);
  const name = readString(input, 'name', true);
  if (name.length > 64) throw invalid('name', 'must be at most 64 characters.');
  const enabled = input.enabled ?? true;
  if (typeof enabled !== 'boolean') throw invalid('enabled', 'must be true or false.');
  const callTimeoutSeconds = readSeconds(
    input,
    'callTimeoutSeconds',
    MIN_MCP_CALL_TIMEOUT_SECONDS,
    MAX_MCP_CALL_TIMEOUT_SECONDS,
  );
  const connectTimeoutSeconds = readSeconds(
    input,
    'connectTimeoutSeconds',
    MIN_MCP_CONNECT_TIMEOUT_SECONDS,
    MAX_MCP_CONNECT_TIMEOUT_SECONDS,
  );
  const base = {
    id,
    name,
    enabled,
    ...(callTimeoutSeconds === undefined ? {} : { callTimeoutSeconds }),
    ...(connectTimeoutSeconds === undefined ? {} : { connectTimeoutSeconds }),
  };

  const transport = input.transport;
  if (transport === 'stdio') {
    const command = readString(input, 'command', true);
    const rawArgs = input.args;
    let args: string[] | undefined;
    if (rawArgs !== undefined && rawArgs !== null) {
      if (!Array.isArray(rawArgs) || rawArgs.some((argument) => typeof argument !== 'string')) {
        throw invalid('args', 'must be an array of strings.');
      }
      args = rawArgs as string[];
    }
    const env = readStringMap(input, 'env', ENV_NAME_PATTERN, 'environment variable');
    const cwd = readString(input, 'cwd', false);
    return {
      ...base,
      transport,
      command,
      ...(args === undefined ? {} : { args }),
      ...(env === undefined ? {} : { env }),
      ...(cwd === undefined || cwd === '' ? {} : { cwd }),
    };
  }
  if (transport === 'http') {
    const url = readString(input, 'url', true);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw invalid('url', `is not a URL: ${JSON.stringify(url)}.`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw invalid('url', 'must be an http:// or https:// URL.');
    }
    const protocol = input.protocol ?? 'auto';
    if (!REMOTE_PROTOCOLS.includes(protocol as McpRemoteProtocol)) {
      throw invalid('protocol', `must be one of ${REMOTE_PROTOCOLS.join(', ')}.`);
    }
    const headers = readStringMap(input, 'headers', HEADER_NAME_PATTERN, 'HTTP header');
    const oauth = readOAuthClient(input);
    return {
      ...base,
      transport,
      url,
      protocol: protocol as McpRemoteProtocol,
      ...(headers === undefined ? {} : { headers }),
      ...(oauth === undefined ? {} : { oauth }),
    };
  }
  throw invalid('transport', 'must be "stdio" or "http".');
}

/**
 * Where an MCP server config keeps credentials: every header and the OAuth client secret (remote), every environment
 * value (stdio).
 */
export function mcpCredentialLayout(transport: McpServerConfig['transport'] | string): CredentialLayout {
  return transport === 'stdio'
    ? { kind: 'mcp-server', values: [], maps: ['env'], redactedKeys: CREDENTIAL_LIKE_ENV_NAME }
    : { kind: 'mcp-server', values: [['oauth', 'clientSecret']], maps: ['headers'] };
}

/** Environment names that carry credentials; their literal values are redacted from every result. */
const CREDENTIAL_LIKE_ENV_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|AUTH|CREDENTIAL|PRIVATE|COOKIE|SESSION/i;

/**
 * What a GET returns: literal header and environment values replaced by `***`, `{{SECRET}}` references shown as
 * written (names stay, so the UI can list them). One implementation for every config: `credentials/`.
 */
export function redactMcpServerConfig(config: McpServerConfig): McpServerConfig {
  return maskCredentials(
    config as unknown as Record<string, unknown>,
    mcpCredentialLayout(config.transport),
  ) as unknown as McpServerConfig;
}

/**
 * For an update whose body came from a redacted GET: a header or env value still equal to `***` keeps the stored
 * value, so the UI can edit other fields without ever having seen the secret.
 */
export function applyRedactedValues(next: McpServerConfig, stored: McpServerConfig): McpServerConfig {
  const layout = mcpCredentialLayout(next.transport);
  const previous =
    stored.transport === next.transport
      ? stored
      : { ...stored, headers: undefined, env: undefined, oauth: undefined };
  return restoreMaskedCredentials(
    next as unknown as Record<string, unknown>,
    previous as unknown as Record<string, unknown>,
    layout,
  ) as unknown as McpServerConfig;
}

export function getMcpCallTimeoutMs(config: McpServerConfig): number {
  return (config.callTimeoutSeconds ?? DEFAULT_MCP_CALL_TIMEOUT_SECONDS) * 1000;
}
