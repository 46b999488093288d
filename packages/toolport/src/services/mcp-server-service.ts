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

/**
 * SPEC MCP-1 in the server: the process's one `McpClientPool`, fed by the users' stored server rows. Its tool source
 * joins `getEnabledToolRuntime`, so a turn and the capability inspector share each server's connection and listing.
 */
export class McpServerService {
  readonly pool: McpClientPool;
  readonly #options: McpServerServiceOptions;
  readonly #safeFetch: SafeFetch | undefined;

  constructor(options: McpServerServiceOptions) {
    this.#options = options;
    this.#safeFetch =
      options.fetch === undefined ? createSafeFetch({ allowlist: options.outboundAllowlist }) : undefined;
    this.pool = new McpClientPool({
      secretsForUser: (userId) => options.secrets.createReader(userId),
      fetch: options.fetch ?? this.#safeFetch!.fetch,
      ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
      ...(options.listTimeoutMs === undefined ? {} : { listTimeoutMs: options.listTimeoutMs }),
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

  /** The catalog source: every enabled server's tools (connecting lazily), named clear of the reserved names. */
  readonly toolSource: UserToolSource = async (userId) => {
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
