import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isToolportError } from '../core/errors.ts';
import type { RegistryEntry } from '../core/tool-registry.ts';
import type { ToolportLogger } from '../core/tool-types.ts';
import { McpClientPool, type McpServerStatus } from '../mcp/mcp-client-pool.ts';
import type { McpServerConfig } from '../mcp/mcp-server-config.ts';
import { toMcpServerConfig } from './mcp-server-record-config.ts';
import type { OutboundAllowlist } from '../net/ip-address-policy.ts';
import { createSafeFetch, type SafeFetch } from '../net/safe-fetch.ts';
import type {
  McpServerRecord,
  McpServerRepository,
} from '../persistence/repositories/mcp-server-repository.ts';
import { mcpServerPolicyRefusal, assertMcpServerAllowed } from '../policy/mcp-server-access.ts';
import { DEFAULT_OPERATOR_POLICY, type OperatorPolicy } from '../policy/operator-policy.ts';
import type { PolicySubject } from '../policy/policy-denied.ts';
import { McpOAuthService, type McpOAuthServiceOptions } from './mcp-oauth-service.ts';
import type { SecretService } from './secret-service.ts';
import type { UserToolSource } from './tool-catalog.ts';

export interface McpServiceOptions {
  /**
   * Outbound fetch for remote servers. Default: NET-1's safe fetch, so a user-added URL on a private, loopback or
   * link-local address is refused unless the operator allowlisted it (`outboundAllowlist`).
   */
  fetch?: FetchLike;
  /** Hosts/CIDRs users' remote MCP servers may reach although private (serve: `TOOLPORT_OUTBOUND_ALLOW`). */
  outboundAllowlist?: OutboundAllowlist;
  connectTimeoutMs?: number;
  listTimeoutMs?: number;
  /** How long a listing waits for a server that is not ready yet (the pool's `listingWaitMs`). */
  listingWaitMs?: number;
  /** The server's public origin for OAuth callbacks (`TOOLPORT_PUBLIC_URL`); default the origin a request came to. */
  publicUrl?: string;
  /** After a server said it needs authorization, the pool retries after this long (default 30 s). */
  authorizationRetryMs?: number;
}

export interface McpServerServiceOptions extends McpServiceOptions {
  repository: McpServerRepository;
  secrets: SecretService;
  /** Names MCP tools must not take: the process registry's built-in and custom tools. */
  reservedNames: () => Iterable<string>;
  logger?: ToolportLogger;
  /** AUTH-2: who may add stdio and remote servers (default `DEFAULT_OPERATOR_POLICY`). */
  policy?: OperatorPolicy;
  /** Whether a user is an admin, for the policy at listing time (the catalog source only knows the user's id). */
  isAdmin?: (userId: string) => Promise<boolean>;
  /** MCP-1 OAuth: where users' tokens live and the key that seals them. Without it, remote servers get headers only. */
  oauth?: Pick<McpOAuthServiceOptions, 'repository' | 'users' | 'cipher'>;
}

export { toMcpServerConfig };

/** Sent on every request this process's pool makes to a remote MCP server, with the process's random id. */
export const MCP_CLIENT_HEADER = 'x-toolport-mcp-client';

/**
 * SPEC MCP-1 in the server: the process's one `McpClientPool`, fed by the users' stored server rows. Its tool source
 * joins `getEnabledToolRuntime`, so a turn and the capability inspector share each server's connection and listing.
 */
export class McpServerService {
  readonly pool: McpClientPool;
  /** MCP-1 OAuth (tokens per user and server, the authorization flow); undefined without `oauth` options. */
  readonly oauth: McpOAuthService | undefined;
  readonly #options: McpServerServiceOptions;
  readonly #safeFetch: SafeFetch | undefined;
  readonly #instanceId = randomUUID();
  readonly #withoutMcpTools = new AsyncLocalStorage<true>();

  constructor(options: McpServerServiceOptions) {
    this.#options = options;
    this.#safeFetch =
      options.fetch === undefined ? createSafeFetch({ allowlist: options.outboundAllowlist }) : undefined;
    const fetch = options.fetch ?? this.#safeFetch!.fetch;
    const oauth = (this.oauth =
      options.oauth === undefined
        ? undefined
        : new McpOAuthService({
            ...options.oauth,
            servers: options.repository,
            policy: options.policy ?? DEFAULT_OPERATOR_POLICY,
            // NET-1 for every request to an authorization server, like the MCP server's own URL.
            fetch,
            ...(options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl }),
            ...(options.logger === undefined ? {} : { logger: options.logger }),
            onAuthorizationChanged: (userId, serverId) => this.pool.disconnect(userId, serverId),
          }));
    this.pool = new McpClientPool({
      ...(oauth === undefined
        ? {}
        : {
            authProviderFor: (userId, config) => oauth.poolProvider(userId, config),
            onInsufficientScope: (userId, config, scope) => oauth.noteRequiredScope(userId, config.id, scope),
            authorizationHint: (config) =>
              `authorize it in Settings → MCP (POST /api/mcp-servers/${config.id}/authorize) or with ` +
              `\`toolport mcp-servers authorize ${config.name} --user <you>\`.`,
          }),
      ...(options.authorizationRetryMs === undefined
        ? {}
        : { authorizationRetryMs: options.authorizationRetryMs }),
      secretsForUser: (userId) => options.secrets.createReader(userId),
      fetch: (url, init) => {
        const headers = new Headers(init?.headers);
        headers.set(MCP_CLIENT_HEADER, this.#instanceId);
        return fetch(url, { ...init, headers });
      },
      ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
      ...(options.listTimeoutMs === undefined ? {} : { listTimeoutMs: options.listTimeoutMs }),
      ...(options.listingWaitMs === undefined ? {} : { listingWaitMs: options.listingWaitMs }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    });
  }

  get #policy(): OperatorPolicy {
    return this.#options.policy ?? DEFAULT_OPERATOR_POLICY;
  }

  /**
   * AUTH-2 on create, update and enable: throws `permission_denied` naming the policy key (`mcp.stdio`, `mcp.remote`,
   * `mcp.stdioCommandAllowlist`) when the policy keeps this server from this user. A disabled server may always be
   * kept (so a user can switch off or rename what an earlier policy allowed); a new one is checked either way.
   */
  assertAllowed(user: PolicySubject, config: McpServerConfig, options: { creating: boolean }): void {
    if (!options.creating && !config.enabled) return;
    assertMcpServerAllowed(this.#policy, user, config);
  }

  /**
   * The user's servers as configs. A row that no longer validates is skipped (and logged), never connected; so is
   * one the operator policy no longer allows this user (stored before the policy changed): it never spawns.
   */
  async listConfigs(userId: string): Promise<McpServerConfig[]> {
    const configs: McpServerConfig[] = [];
    const records = await this.#options.repository.list(userId);
    if (records.length === 0) return configs;
    // Unknown users and lookups that are not wired count as non-admins: fail closed.
    const user: PolicySubject = { id: userId, isAdmin: (await this.#options.isAdmin?.(userId)) === true };
    for (const record of records) {
      try {
        const config = toMcpServerConfig(record);
        const refusal = mcpServerPolicyRefusal(this.#policy, user, config);
        if (refusal !== undefined) {
          if (config.enabled) {
            this.#options.logger?.warn(
              { server: record.name, policyKey: refusal.policyKey },
              'not connecting an MCP server the operator policy does not allow this user',
            );
          }
          continue;
        }
        configs.push(config);
      } catch (error) {
        if (!isToolportError(error)) throw error;
        this.#options.logger?.warn(
          { server: record.name, error: error.message },
          'skipping an invalid MCP server config',
        );
      }
    }
    return configs;
  }

  /**
   * True when a request to toolport's own `/mcp` comes from this process's pool: a user's remote MCP server that
   * points back at this server (directly or through another user). Its runtime must then leave MCP tools out, or
   * listing would wait on the very connection being opened (a loop until the connect timeout).
   */
  isOwnClient(headers: IncomingHttpHeaders): boolean {
    return headers[MCP_CLIENT_HEADER] === this.#instanceId;
  }

  /** Runs `work` with this service's tool source contributing nothing (see `isOwnClient`). */
  withoutMcpTools<T>(work: () => Promise<T>): Promise<T> {
    return this.#withoutMcpTools.run(true, work);
  }

  /** The catalog source: every enabled server's tools (connecting lazily), named clear of the reserved names. */
  readonly toolSource: UserToolSource = async (userId) => {
    if (this.#withoutMcpTools.getStore() === true) return [];
    const configs = await this.listConfigs(userId);
    if (configs.length === 0) return [];
    const { entries } = await this.pool.getEntries(userId, configs, {
      reservedNames: this.#options.reservedNames(),
    });
    return entries satisfies readonly RegistryEntry[];
  };

  /**
   * The status view of one stored row; never connects. An invalid row reads as failed with the reason, and so does an
   * enabled row the operator policy refuses this user (it is never spawned: the reason names the policy key).
   */
  statusOf(user: PolicySubject, record: McpServerRecord): McpServerStatus {
    const failed = (message: string): McpServerStatus => ({
      serverId: record.id,
      name: record.name,
      enabled: record.enabled,
      state: record.enabled ? 'failed' : 'disabled',
      connected: false,
      lastError: { message, at: record.updatedAt },
      connectCount: 0,
      listCount: 0,
    });
    let config: McpServerConfig;
    try {
      config = toMcpServerConfig(record);
    } catch (error) {
      if (!isToolportError(error)) throw error;
      return failed(error.message);
    }
    const refusal = config.enabled ? mcpServerPolicyRefusal(this.#policy, user, config) : undefined;
    if (refusal !== undefined) return failed(refusal.message);
    return this.pool.status(user.id, [config])[0]!;
  }

  /** Ends every connection and stdio child (server shutdown). */
  async close(): Promise<void> {
    await this.pool.close();
    await this.#safeFetch?.close();
  }
}
