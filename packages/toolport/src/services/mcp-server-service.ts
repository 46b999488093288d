import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isToolportError } from '../core/errors.ts';
import type { RegistryEntry } from '../core/tool-registry.ts';
import type { ToolportLogger } from '../core/tool-types.ts';
import { McpClientPool, type McpServerStatus } from '../mcp/mcp-client-pool.ts';
import { parseMcpServerConfig, type McpServerConfig } from '../mcp/mcp-server-config.ts';
import type { OutboundAllowlist } from '../net/ip-address-policy.ts';
import { createSafeFetch, type SafeFetch } from '../net/safe-fetch.ts';
import type {
  McpServerRecord,
  McpServerRepository,
} from '../persistence/repositories/mcp-server-repository.ts';
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
}

export interface McpServerServiceOptions extends McpServiceOptions {
  repository: McpServerRepository;
  secrets: SecretService;
  /** Names MCP tools must not take: the process registry's built-in and custom tools. */
  reservedNames: () => Iterable<string>;
  logger?: ToolportLogger;
}

/** The row's pieces as one config for the pool; the row's own id, name, transport and flag win over `config`. */
export function toMcpServerConfig(record: McpServerRecord): McpServerConfig {
  return parseMcpServerConfig({
    ...record.config,
    id: record.id,
    name: record.name,
    transport: record.transport,
    enabled: record.enabled,
  });
}

/** Sent on every request this process's pool makes to a remote MCP server, with the process's random id. */
export const MCP_CLIENT_HEADER = 'x-toolport-mcp-client';

/**
 * SPEC MCP-1 in the server: the process's one `McpClientPool`, fed by the users' stored server rows. Its tool source
 * joins `getEnabledToolRuntime`, so a turn and the capability inspector share each server's connection and listing.
 */
export class McpServerService {
  readonly pool: McpClientPool;
  readonly #options: McpServerServiceOptions;
  readonly #safeFetch: SafeFetch | undefined;
  readonly #instanceId = randomUUID();
  readonly #withoutMcpTools = new AsyncLocalStorage<true>();

  constructor(options: McpServerServiceOptions) {
    this.#options = options;
    this.#safeFetch =
      options.fetch === undefined ? createSafeFetch({ allowlist: options.outboundAllowlist }) : undefined;
    const fetch = options.fetch ?? this.#safeFetch!.fetch;
    this.pool = new McpClientPool({
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

  /** The user's servers as configs. A row that no longer validates is skipped (and logged), never connected. */
  async listConfigs(userId: string): Promise<McpServerConfig[]> {
    const configs: McpServerConfig[] = [];
    for (const record of await this.#options.repository.list(userId)) {
      try {
        configs.push(toMcpServerConfig(record));
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

  /** The status view of one stored row; never connects. An invalid row reads as failed with the reason. */
  statusOf(userId: string, record: McpServerRecord): McpServerStatus {
    let config: McpServerConfig;
    try {
      config = toMcpServerConfig(record);
    } catch (error) {
      if (!isToolportError(error)) throw error;
      return {
        serverId: record.id,
        name: record.name,
        enabled: record.enabled,
        state: record.enabled ? 'failed' : 'disabled',
        connected: false,
        lastError: { message: error.message, at: record.updatedAt },
        connectCount: 0,
        listCount: 0,
      };
    }
    return this.pool.status(userId, [config])[0]!;
  }

  /** Ends every connection and stdio child (server shutdown). */
  async close(): Promise<void> {
    await this.pool.close();
    await this.#safeFetch?.close();
  }
}
