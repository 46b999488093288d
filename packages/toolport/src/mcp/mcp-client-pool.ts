import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  extractWWWAuthenticateParams,
  UnauthorizedError,
  type OAuthClientProvider,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode as McpErrorCode,
  McpError,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { ToolportError, isToolportError } from '../core/errors.ts';
import { silentLogger } from '../core/logger.ts';
import type { RegistryEntry } from '../core/tool-registry.ts';
import type { SecretReader, ToolProgress, ToolportLogger } from '../core/tool-types.ts';
import { getMcpCallTimeoutMs, type McpServerConfig } from './mcp-server-config.ts';
import { hasCause, McpAuthorizationRequiredError } from './mcp-oauth-provider.ts';
import { createMcpToolEntries } from './mcp-tool-entries.ts';
import { resolveSecretReferences } from './resolve-secret-references.ts';

export type McpConnectionState =
  | 'disabled'
  | 'idle'
  | 'connecting'
  | 'connected'
  | 'failed'
  | 'closed'
  /** A remote server that answered 401 and has no usable OAuth tokens for this user: they must authorize it. */
  | 'needs_authorization';

/** The status view of one server (Settings → MCP): connected or not, last error, tool count, last listing time. */
export interface McpServerStatus {
  serverId: string;
  name: string;
  enabled: boolean;
  state: McpConnectionState;
  connected: boolean;
  /** The transport in use: `stdio`, `streamable-http`, or `sse` after the legacy fallback. */
  transport?: 'stdio' | 'streamable-http' | 'sse';
  lastError?: { message: string; at: string };
  /** After a failed connect or listing: no new attempt before this time (exponential backoff). */
  retryAt?: string;
  /** Failed connects/listings in a row (reset by a successful listing). */
  consecutiveFailures?: number;
  toolCount?: number;
  lastListedAt?: string;
  connectedAt?: string;
  /** How many times this server was connected (spawned) and listed since the pool started. */
  connectCount: number;
  listCount: number;
  /** The stdio child's process id while connected. */
  pid?: number;
}

export interface McpClientPoolOptions {
  /** Resolves `{{SECRET}}` references in headers and env at connect time (SEC-1). */
  secretsForUser?: (userId: string) => SecretReader | undefined;
  /** Outbound fetch for remote servers; pass NET-1's policy-checked fetch for user-added servers. */
  fetch?: FetchLike;
  /** Time for spawn/connect plus the initialize handshake, unless the server sets `connectTimeoutSeconds`. Default 30 s. */
  connectTimeoutMs?: number;
  /**
   * How long `getEntries` waits for a server that is not ready, counted from the start of its connection attempt.
   * The attempt goes on in the background; its tools join a later listing. Default 1.5 s.
   */
  listingWaitMs?: number;
  /** The first retry delay after a failure; it doubles per failure in a row up to `maxRetryDelayMs`. Default 1 s. */
  retryDelayMs?: number;
  /** Default 5 minutes. */
  maxRetryDelayMs?: number;
  /** Time for one `tools/list` page. Default 30 s. */
  listTimeoutMs?: number;
  logger?: ToolportLogger;
  clientInfo?: { name: string; version: string };
  /**
   * OAuth for a remote server (MCP authorization): the SDK transport uses this provider's tokens, discovers the
   * authorization server on a 401 and refreshes tokens itself. Undefined: static headers only.
   */
  authProviderFor?: (
    userId: string,
    config: McpServerConfig,
  ) => OAuthClientProvider | undefined | Promise<OAuthClientProvider | undefined>;
  /**
   * After a server said it needs authorization: how long before the next attempt (another instance may have stored
   * the tokens meanwhile; `disconnect` retries at once). Default 30 s.
   */
  authorizationRetryMs?: number;
  /**
   * A server with an OAuth provider answered 403 `insufficient_scope` naming `scope` (step-up): called before the
   * transport reacts, so the provider can tell a refresh (same scope) from the authorization the user must give.
   */
  onInsufficientScope?: (userId: string, config: McpServerConfig, scope: string) => Promise<void>;
  /** The hint in a `needs_authorization` status: how this user authorizes the server. */
  authorizationHint?: (config: McpServerConfig) => string;
  /** Called after a `tools/list_changed` notification refreshed a server's cached listing. */
  onToolsChanged?: (userId: string, serverId: string) => void;
}

export interface McpCallOptions {
  signal?: AbortSignal;
  onProgress?: (progress: ToolProgress) => void;
  /** Without a response or progress for this long the call fails with `timeout`. Default: the server's setting. */
  timeoutMs?: number;
  /** Progress cannot extend a call past this. Default: 10 × timeoutMs. */
  maxTotalTimeoutMs?: number;
}

export interface McpEntriesResult {
  entries: RegistryEntry[];
  /** One per config passed in, in the same order. A failed server has no entries and a `lastError`. */
  statuses: McpServerStatus[];
}

export interface McpGetEntriesOptions {
  /** Names already taken (built-ins, custom tools): an MCP tool never shadows them. */
  reservedNames?: Iterable<string>;
  /** Overrides the pool's `listingWaitMs` (a one-shot CLI session waits for the whole connect). */
  listingWaitMs?: number;
}

interface Connection {
  readonly key: string;
  readonly userId: string;
  config: McpServerConfig;
  fingerprint: string;
  state: McpConnectionState;
  client: Client | undefined;
  transport: Transport | undefined;
  transportKind: McpServerStatus['transport'];
  connecting: Promise<Client> | undefined;
  tools: McpTool[] | undefined;
  listing: Promise<McpTool[]> | undefined;
  listedAt: Date | undefined;
  connectedAt: Date | undefined;
  lastError: { message: string; at: Date } | undefined;
  /** Connect + list in flight (started by a listing); never rejects. */
  warming: Promise<McpTool[] | undefined> | undefined;
  warmingSince: number;
  consecutiveFailures: number;
  retryAt: number | undefined;
  connectCount: number;
  listCount: number;
  /** Bumps on each connect, so a late event from an old client cannot touch the new one. */
  generation: number;
  stderrTail: string;
}

const STDERR_TAIL_CHARACTERS = 2_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
const DEFAULT_LISTING_WAIT_MS = 1_500;
const DEFAULT_RETRY_DELAY_MS = 1_000;
const DEFAULT_MAX_RETRY_DELAY_MS = 5 * 60_000;
const MAX_LIST_PAGES = 100;
const DEFAULT_AUTHORIZATION_RETRY_MS = 30_000;
/** What the SDK transport or toolport's provider throws when only the user can unblock the server. */
const AUTHORIZATION_REQUIRED = [UnauthorizedError, McpAuthorizationRequiredError];

function connectionKey(userId: string, serverId: string): string {
  return `${userId}\u0000${serverId}`;
}

function fingerprintOf(config: McpServerConfig): string {
  // `enabled` and the call timeout do not need a new connection; everything else does.
  const {
    enabled: _enabled,
    callTimeoutSeconds: _timeout,
    connectTimeoutSeconds: _connectTimeout,
    name: _name,
    ...connectionFields
  } = config;
  return JSON.stringify(connectionFields);
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Resolves with the promise's value, or `undefined` once `ms` passed (the promise goes on). */
function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, elapsed]).finally(() => clearTimeout(timer));
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ToolportError('timeout', message)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * SPEC MCP-1: one lazily opened, shared connection per (user, server), with its cached tool listing. The turn pipeline
 * and the capability inspector both call `getEntries`, so whichever comes first warms the other. A disabled server is
 * never spawned or contacted. Failures are recorded per server (`status`) and surface as tool errors; the next use
 * reconnects — after a failed connect or listing, not before `retryAt` (exponential backoff). A listing never waits
 * long on a server: it connects in the background and waits at most `listingWaitMs` from the start of the attempt,
 * so a server that never answers its handshake costs a turn nothing once its budget passed, and a known-bad one
 * nothing at all. `close()` ends every connection and every stdio child.
 */
export class McpClientPool {
  readonly #connections = new Map<string, Connection>();
  /** Per user: bumps whenever one of their servers' listings appears, changes or goes away. */
  readonly #listingVersions = new Map<string, number>();
  readonly #options: McpClientPoolOptions;
  readonly #logger: ToolportLogger;
  #closed = false;

  constructor(options: McpClientPoolOptions = {}) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
  }

  /**
   * The registry entries of every enabled server's tools (connecting and listing lazily, from the cache after that),
   * plus one status per config. Never throws for a server's failure: that server contributes no tools.
   */
  async getEntries(
    userId: string,
    configs: readonly McpServerConfig[],
    options: McpGetEntriesOptions = {},
  ): Promise<McpEntriesResult> {
    if (this.#closed) throw new ToolportError('execution_failed', 'The MCP client pool is closed.');
    const listings = await Promise.all(
      configs.map(async (config) => {
        if (!config.enabled) {
          await this.#closeDisabled(userId, config);
          return { config, tools: [] as McpTool[] };
        }
        const connection = this.#connectionFor(userId, config);
        const waitMs = options.listingWaitMs ?? this.#options.listingWaitMs ?? DEFAULT_LISTING_WAIT_MS;
        return { config, tools: (await this.#toolsWithin(connection, waitMs)) ?? [] };
      }),
    );
    const entries = createMcpToolEntries(
      listings.filter((listing) => listing.tools.length > 0),
      { pool: this, userId, reservedNames: options.reservedNames },
    );
    return { entries, statuses: this.status(userId, configs) };
  }

  /**
   * The cached listing of one server, connecting and listing on first use (waiting for the whole attempt). Throws a
   * ToolportError on failure, at once while the server is in its retry backoff.
   */
  async listTools(userId: string, config: McpServerConfig): Promise<McpTool[]> {
    return this.#listConnection(this.#connectionFor(userId, config));
  }

  async #listConnection(connection: Connection): Promise<McpTool[]> {
    if (connection.tools !== undefined && connection.state === 'connected') return connection.tools;
    this.#throwIfBackingOff(connection);
    const client = await this.#ensureConnected(connection);
    if (connection.listing === undefined) {
      const listing: Promise<McpTool[]> = this.#list(connection, client).finally(() => {
        if (connection.listing === listing) connection.listing = undefined;
      });
      connection.listing = listing;
    }
    return connection.listing;
  }

  /**
   * Calls one tool. Returns the server's `CallToolResult` (including `isError` results: the tool's own failure).
   * Throws a ToolportError for a failed call: `timeout`, `aborted`, or `execution_failed` (connection, protocol).
   */
  async callTool(
    userId: string,
    config: McpServerConfig,
    toolName: string,
    args: Record<string, unknown>,
    options: McpCallOptions = {},
  ): Promise<CallToolResult> {
    if (!config.enabled) {
      throw new ToolportError('disabled', `The MCP server ${config.name} is disabled.`);
    }
    const connection = this.#connectionFor(userId, config);
    if (connection.state !== 'connected') this.#throwIfBackingOff(connection);
    const client = await this.#ensureConnected(connection);
    const timeoutMs = options.timeoutMs ?? getMcpCallTimeoutMs(config);
    try {
      const result = await client.callTool({ name: toolName, arguments: args }, undefined, {
        signal: options.signal,
        timeout: timeoutMs,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: options.maxTotalTimeoutMs ?? timeoutMs * 10,
        onprogress: options.onProgress
          ? (progress) =>
              options.onProgress?.({
                progress: progress.progress,
                ...(progress.total === undefined ? {} : { total: progress.total }),
                ...(progress.message === undefined ? {} : { message: progress.message }),
              })
          : undefined,
      });
      return result as CallToolResult;
    } catch (error) {
      if (options.signal?.aborted) {
        throw new ToolportError('aborted', `${toolName} on ${config.name} was cancelled by the caller.`);
      }
      if (error instanceof McpError && error.code === McpErrorCode.RequestTimeout) {
        const failure = new ToolportError(
          'timeout',
          `${toolName} on the MCP server ${config.name} did not answer within ${timeoutMs / 1000} s ` +
            '(progress extends the wait) and was cancelled.',
          { details: { server: config.name, timeoutMs } },
        );
        this.#recordError(connection, failure.message);
        throw failure;
      }
      if (hasCause(error, AUTHORIZATION_REQUIRED)) {
        // The tokens stopped working mid-session (revoked, refresh refused): the user must authorize again.
        const message = this.#needsAuthorizationMessage(config);
        this.#markNeedsAuthorization(connection, message);
        throw new ToolportError('execution_failed', message, { details: { server: config.name } });
      }
      const closed = error instanceof McpError && error.code === McpErrorCode.ConnectionClosed;
      const message = closed
        ? `The MCP server ${config.name} closed the connection during ${toolName}${this.#stderrHint(connection)}. ` +
          'It will be restarted on the next use.'
        : `The MCP server ${config.name} failed the call to ${toolName}: ${messageOf(error)}`;
      this.#recordError(connection, message);
      throw new ToolportError('execution_failed', message, {
        details: { server: config.name },
        cause: error,
      });
    }
  }

  /**
   * Changes whenever the tools this pool would give the user change (a listing arrived, was refreshed, or a
   * connection ended): a cache of the user's runtime compares it before reusing one.
   */
  listingVersion(userId: string): number {
    return this.#listingVersions.get(userId) ?? 0;
  }

  #listingChanged(connection: Connection): void {
    this.#listingVersions.set(connection.userId, this.listingVersion(connection.userId) + 1);
  }

  /**
   * Statuses of this user's servers. With `configs`, one per config in that order (a never-used server is `idle`, a
   * disabled one `disabled`); without, every server the pool has seen for the user.
   */
  status(userId: string, configs?: readonly McpServerConfig[]): McpServerStatus[] {
    if (configs !== undefined) {
      return configs.map((config) => {
        const connection = this.#connections.get(connectionKey(userId, config.id));
        if (!config.enabled) return { ...this.#statusOf(connection, config), state: 'disabled' };
        return this.#statusOf(connection, config);
      });
    }
    return [...this.#connections.values()]
      .filter((connection) => connection.userId === userId)
      .map((connection) => this.#statusOf(connection, connection.config));
  }

  /** Drops a server's connection (config deleted or changed by the API). The next use reconnects. */
  async disconnect(userId: string, serverId: string): Promise<void> {
    const key = connectionKey(userId, serverId);
    const connection = this.#connections.get(key);
    if (connection === undefined) return;
    this.#connections.delete(key);
    await this.#closeClient(connection, 'closed');
  }

  /** Ends every connection and stdio child. The pool cannot be used afterwards. */
  async close(): Promise<void> {
    this.#closed = true;
    const connections = [...this.#connections.values()];
    this.#connections.clear();
    await Promise.all(connections.map((connection) => this.#closeClient(connection, 'closed')));
  }

  #connectionFor(userId: string, config: McpServerConfig): Connection {
    if (this.#closed) throw new ToolportError('execution_failed', 'The MCP client pool is closed.');
    const key = connectionKey(userId, config.id);
    const fingerprint = fingerprintOf(config);
    let connection = this.#connections.get(key);
    if (connection !== undefined && connection.fingerprint !== fingerprint) {
      // The server's connection settings changed: the old session must not serve the new config.
      void this.#closeClient(connection, 'idle');
      connection.fingerprint = fingerprint;
      connection.tools = undefined;
      connection.listedAt = undefined;
      // A changed config deserves a fresh try, whatever the old one's failures.
      connection.consecutiveFailures = 0;
      connection.retryAt = undefined;
    }
    if (connection === undefined) {
      connection = {
        key,
        userId,
        config,
        fingerprint,
        state: 'idle',
        client: undefined,
        transport: undefined,
        transportKind: undefined,
        connecting: undefined,
        tools: undefined,
        listing: undefined,
        listedAt: undefined,
        connectedAt: undefined,
        lastError: undefined,
        warming: undefined,
        warmingSince: 0,
        consecutiveFailures: 0,
        retryAt: undefined,
        connectCount: 0,
        listCount: 0,
        generation: 0,
        stderrTail: '',
      };
      this.#connections.set(key, connection);
    }
    connection.config = config;
    return connection;
  }

  /**
   * The server's tools if it is ready or gets ready within `waitMs` of the start of the current attempt (started here
   * when none runs and the server is not backing off); `undefined` otherwise. Never throws.
   */
  async #toolsWithin(connection: Connection, waitMs: number): Promise<McpTool[] | undefined> {
    if (connection.tools !== undefined && connection.state === 'connected') return connection.tools;
    if (this.#backoffRemainingMs(connection) > 0) return undefined;
    if (connection.warming === undefined) {
      const warming: Promise<McpTool[] | undefined> = this.#listConnection(connection)
        .catch(() => undefined)
        .finally(() => {
          if (connection.warming === warming) connection.warming = undefined;
        });
      connection.warming = warming;
      connection.warmingSince = Date.now();
    }
    const remaining = connection.warmingSince + waitMs - Date.now();
    if (remaining <= 0) return undefined;
    return within(connection.warming, remaining);
  }

  #backoffRemainingMs(connection: Connection): number {
    if (connection.retryAt === undefined) return 0;
    return Math.max(0, connection.retryAt - Date.now());
  }

  #throwIfBackingOff(connection: Connection): void {
    const remainingMs = this.#backoffRemainingMs(connection);
    if (remainingMs === 0) return;
    if (connection.state === 'needs_authorization') {
      throw new ToolportError(
        'execution_failed',
        connection.lastError?.message ?? this.#needsAuthorizationMessage(connection.config),
        { details: { server: connection.config.name } },
      );
    }
    throw new ToolportError(
      'execution_failed',
      `The MCP server ${connection.config.name} is unavailable (${connection.lastError?.message ?? 'it failed'}); ` +
        `the next attempt is in ${Math.ceil(remainingMs / 1000)} s.`,
      { details: { server: connection.config.name, retryAt: new Date(connection.retryAt!).toISOString() } },
    );
  }

  /** A failed connect or listing: remember it, and wait 1 s, 2 s, 4 s … (capped) before the next attempt. */
  #recordFailure(connection: Connection, message: string): void {
    connection.consecutiveFailures += 1;
    const base = this.#options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
    const cap = this.#options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS;
    const delay = Math.min(cap, base * 2 ** Math.min(connection.consecutiveFailures - 1, 30));
    connection.retryAt = Date.now() + delay;
    this.#recordError(connection, message);
  }

  async #closeDisabled(userId: string, config: McpServerConfig): Promise<void> {
    const connection = this.#connections.get(connectionKey(userId, config.id));
    if (connection?.client !== undefined || connection?.connecting !== undefined) {
      await this.#closeClient(connection, 'disabled');
    }
  }

  #ensureConnected(connection: Connection): Promise<Client> {
    if (connection.client !== undefined && connection.state === 'connected') {
      return Promise.resolve(connection.client);
    }
    if (connection.connecting === undefined) {
      const connecting: Promise<Client> = this.#connect(connection).finally(() => {
        // Only clear our own attempt: a close() in between may have started a newer one.
        if (connection.connecting === connecting) connection.connecting = undefined;
      });
      connection.connecting = connecting;
    }
    return connection.connecting;
  }

  async #connect(connection: Connection): Promise<Client> {
    const config = connection.config;
    const generation = ++connection.generation;
    connection.state = 'connecting';
    connection.tools = undefined;
    connection.stderrTail = '';
    const timeoutMs =
      config.connectTimeoutSeconds !== undefined
        ? config.connectTimeoutSeconds * 1000
        : (this.#options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS);
    try {
      const secrets = this.#options.secretsForUser?.(connection.userId);
      const attempt = async (kind: NonNullable<McpServerStatus['transport']>): Promise<Client> => {
        const transport = await this.#createTransport(connection, kind, secrets);
        const client = new Client(this.#options.clientInfo ?? { name: 'toolport', version: '0.1.0' });
        connection.transport = transport;
        connection.transportKind = kind;
        client.onerror = (error) => {
          this.#logger.debug({ server: config.name, error: messageOf(error) }, 'mcp client error');
        };
        client.onclose = () => {
          if (connection.generation !== generation || connection.state === 'closed') return;
          if (connection.state === 'connected') {
            this.#recordError(
              connection,
              `The MCP server ${config.name} closed the connection${this.#stderrHint(connection)}.`,
            );
          }
          connection.client = undefined;
          connection.transport = undefined;
          if (connection.state !== 'disabled') connection.state = 'failed';
          // Its tools leave the next listing (getEntries lists connected servers only).
          this.#listingChanged(connection);
        };
        client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
          if (connection.generation !== generation || connection.client === undefined) return;
          try {
            await this.#list(connection, connection.client);
            this.#options.onToolsChanged?.(connection.userId, config.id);
          } catch (error) {
            this.#logger.warn({ server: config.name, error: messageOf(error) }, 'mcp re-list failed');
          }
        });
        try {
          await withTimeout(
            client.connect(transport, { timeout: timeoutMs }),
            timeoutMs,
            `The MCP server ${config.name} did not complete the handshake within ${timeoutMs / 1000} s.`,
          );
        } catch (error) {
          await client.close().catch(() => {});
          throw error;
        }
        return client;
      };

      let client: Client;
      if (config.transport === 'stdio') client = await attempt('stdio');
      else if (config.protocol === 'sse') client = await attempt('sse');
      else if (config.protocol === 'streamable-http') client = await attempt('streamable-http');
      else {
        try {
          client = await attempt('streamable-http');
        } catch (streamableError) {
          if (isToolportError(streamableError) && streamableError.code === 'not_found') throw streamableError;
          // A server that asked for authorization speaks Streamable HTTP: the legacy SSE fallback would only bury
          // needs_authorization under its own 405.
          if (hasCause(streamableError, AUTHORIZATION_REQUIRED)) throw streamableError;
          try {
            client = await attempt('sse');
          } catch (sseError) {
            throw new Error(
              `Streamable HTTP failed (${messageOf(streamableError)}), and so did the legacy SSE transport ` +
                `(${messageOf(sseError)})`,
              { cause: sseError },
            );
          }
        }
      }
      if (connection.generation !== generation || this.#closed) {
        await client.close().catch(() => {});
        throw new ToolportError('execution_failed', `The connection to ${config.name} was closed.`);
      }
      connection.client = client;
      connection.state = 'connected';
      connection.connectedAt = new Date();
      connection.connectCount += 1;
      return client;
    } catch (error) {
      if (hasCause(error, AUTHORIZATION_REQUIRED)) {
        // Not a failure of the server: the user has to authorize it (never an error that breaks a turn).
        const message = this.#needsAuthorizationMessage(config);
        if (connection.generation === generation) this.#markNeedsAuthorization(connection, message);
        throw new ToolportError('execution_failed', message, { details: { server: config.name } });
      }
      const message = isToolportError(error)
        ? error.message
        : `Could not connect to the MCP server ${config.name}: ${messageOf(error)}${this.#stderrHint(connection)}`;
      if (connection.generation === generation) {
        connection.state = 'failed';
        connection.client = undefined;
        connection.transport = undefined;
        this.#recordFailure(connection, message);
      }
      throw new ToolportError(isToolportError(error) ? error.code : 'execution_failed', message, {
        details: { server: config.name },
        cause: error,
      });
    }
  }

  async #createTransport(
    connection: Connection,
    kind: NonNullable<McpServerStatus['transport']>,
    secrets: SecretReader | undefined,
  ): Promise<Transport> {
    const config = connection.config;
    if (config.transport === 'stdio') {
      const env = await resolveSecretReferences(config.env, secrets, 'The environment variable');
      const transport = new StdioClientTransport({
        command: config.command,
        args: config.args ?? [],
        ...(env === undefined ? {} : { env }),
        ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
        stderr: 'pipe',
      });
      transport.stderr?.on('data', (chunk: Buffer) => {
        connection.stderrTail = (connection.stderrTail + chunk.toString('utf8')).slice(
          -STDERR_TAIL_CHARACTERS,
        );
      });
      return transport;
    }
    const headers = await resolveSecretReferences(config.headers, secrets, 'The header');
    const requestInit = headers === undefined ? undefined : { headers };
    const url = new URL(config.url);
    const authProvider = await this.#options.authProviderFor?.(connection.userId, config);
    const fetch = authProvider === undefined ? this.#options.fetch : this.#scopeWatchingFetch(connection);
    if (kind === 'sse') {
      return new SSEClientTransport(url, {
        ...(requestInit === undefined ? {} : { requestInit }),
        // The SSE GET does not use requestInit; its headers go through eventSourceInit's fetch.
        eventSourceInit: {
          fetch: (input, init) =>
            (fetch ?? globalThis.fetch)(input, {
              ...init,
              headers: { ...(init?.headers as Record<string, string> | undefined), ...headers },
            }),
        },
        ...(fetch === undefined ? {} : { fetch }),
        ...(authProvider === undefined ? {} : { authProvider }),
      });
    }
    return new StreamableHTTPClientTransport(url, {
      ...(requestInit === undefined ? {} : { requestInit }),
      ...(fetch === undefined ? {} : { fetch }),
      ...(authProvider === undefined ? {} : { authProvider }),
    });
  }

  /** The pool's fetch, telling `onInsufficientScope` about a step-up before the SDK transport sees the 403. */
  #scopeWatchingFetch(connection: Connection): FetchLike | undefined {
    const { fetch, onInsufficientScope } = this.#options;
    if (onInsufficientScope === undefined) return fetch;
    const base = fetch ?? globalThis.fetch;
    return async (input, init) => {
      const response = await base(input, init);
      if (response.status === 403) {
        const { error, scope } = extractWWWAuthenticateParams(response);
        if (error === 'insufficient_scope' && scope !== undefined) {
          await onInsufficientScope(connection.userId, connection.config, scope);
        }
      }
      return response;
    };
  }

  async #list(connection: Connection, client: Client): Promise<McpTool[]> {
    const config = connection.config;
    const timeoutMs = this.#options.listTimeoutMs ?? 30_000;
    try {
      const tools: McpTool[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_LIST_PAGES; page += 1) {
        const result = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs });
        tools.push(...result.tools);
        cursor = result.nextCursor;
        if (cursor === undefined) break;
      }
      connection.tools = tools;
      connection.listedAt = new Date();
      connection.listCount += 1;
      this.#listingChanged(connection);
      connection.consecutiveFailures = 0;
      connection.retryAt = undefined;
      return tools;
    } catch (error) {
      if (hasCause(error, AUTHORIZATION_REQUIRED)) {
        const message = this.#needsAuthorizationMessage(config);
        this.#markNeedsAuthorization(connection, message);
        throw new ToolportError('execution_failed', message, { details: { server: config.name } });
      }
      const message = `Listing the tools of the MCP server ${config.name} failed: ${messageOf(error)}`;
      this.#recordFailure(connection, message);
      throw new ToolportError('execution_failed', message, {
        details: { server: config.name },
        cause: error,
      });
    }
  }

  async #closeClient(connection: Connection, nextState: McpConnectionState): Promise<void> {
    connection.generation += 1;
    connection.state = nextState;
    const client = connection.client;
    const transport = connection.transport;
    const connecting = connection.connecting;
    connection.connecting = undefined;
    connection.client = undefined;
    connection.transport = undefined;
    if (connection.tools !== undefined) this.#listingChanged(connection);
    connection.tools = undefined;
    if (client !== undefined) await client.close().catch(() => {});
    else if (transport !== undefined) await transport.close().catch(() => {});
    if (connecting !== undefined) {
      // A connect in flight sees the new generation, closes its own client and rejects.
      await connecting.catch(() => {});
    }
  }

  #needsAuthorizationMessage(config: McpServerConfig): string {
    const hint = this.#options.authorizationHint?.(config);
    return `The MCP server ${config.name} needs authorization${hint === undefined ? '.' : `: ${hint}`}`;
  }

  /** No tools and no retries until `authorizationRetryMs` passed or the connection is reset (`disconnect`). */
  #markNeedsAuthorization(connection: Connection, message: string): void {
    void this.#closeClient(connection, 'needs_authorization');
    connection.retryAt = Date.now() + (this.#options.authorizationRetryMs ?? DEFAULT_AUTHORIZATION_RETRY_MS);
    connection.lastError = { message, at: new Date() };
    this.#logger.info({ server: connection.config.name }, 'mcp server needs authorization');
  }

  #recordError(connection: Connection, message: string): void {
    connection.lastError = { message, at: new Date() };
    this.#logger.warn({ server: connection.config.name, error: message }, 'mcp server failure');
  }

  #stderrHint(connection: Connection): string {
    const tail = connection.stderrTail.trim();
    return tail === '' ? '' : ` (stderr: ${tail.slice(-500)})`;
  }

  #statusOf(connection: Connection | undefined, config: McpServerConfig): McpServerStatus {
    const status: McpServerStatus = {
      serverId: config.id,
      name: config.name,
      enabled: config.enabled,
      state: connection?.state ?? 'idle',
      connected: connection?.state === 'connected',
      connectCount: connection?.connectCount ?? 0,
      listCount: connection?.listCount ?? 0,
    };
    if (connection === undefined) return status;
    if (connection.transportKind !== undefined) status.transport = connection.transportKind;
    if (connection.lastError !== undefined) {
      status.lastError = { message: connection.lastError.message, at: connection.lastError.at.toISOString() };
    }
    if (connection.retryAt !== undefined && connection.retryAt > Date.now()) {
      status.retryAt = new Date(connection.retryAt).toISOString();
    }
    if (connection.consecutiveFailures > 0) status.consecutiveFailures = connection.consecutiveFailures;
    if (connection.tools !== undefined) status.toolCount = connection.tools.length;
    if (connection.listedAt !== undefined) status.lastListedAt = connection.listedAt.toISOString();
    if (connection.connectedAt !== undefined && status.connected) {
      status.connectedAt = connection.connectedAt.toISOString();
    }
    const pid = connection.transport instanceof StdioClientTransport ? connection.transport.pid : null;
    if (pid !== null && status.connected) status.pid = pid;
    return status;
  }
}
