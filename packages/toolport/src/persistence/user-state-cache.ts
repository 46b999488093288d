import type {
  KyselyPlugin,
  OperationNode,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';

/**
 * The tables whose rows a user's tool listing, settings or secrets are built from. Migration 0011's triggers bump
 * `users.state_version` on writes to them (chats: working directory and mode only); this process also drops its own
 * caches when it writes one (`createLocalWriteObserver`).
 */
export const USER_STATE_TABLES: ReadonlySet<string> = new Set([
  'user_tool_settings',
  'secrets',
  'tools',
  'mcp_servers',
  'workspace_trust',
  'chats',
  // Migration 0012: stored OAuth tokens change what the user's MCP servers list and what results redact.
  'mcp_oauth_credentials',
]);

const MAX_USERS = 10_000;

/** What a repository needs of the cache: memoized per-user reads (straight through without one). */
export interface UserReads {
  read<T>(userId: string, key: string, load: () => Promise<T>): Promise<T>;
}

export const UNCACHED_READS: UserReads = { read: (_userId, _key, load) => load() };

/** One user's cached values; replaced (never cleared in place) when they may be stale. */
class UserState {
  readonly values = new Map<string, Promise<unknown>>();
  readonly version: number;

  constructor(version: number) {
    this.version = version;
  }
}

/**
 * Issue 11: per-user caches of database reads that stay correct across instances. Every authenticated request reads
 * the user's `state_version` with the token (`observe`): a different number than the one the cache was filled under
 * means a write happened somewhere (another instance, the CLI), so the user's values are dropped before the request
 * reads any. A write through this process drops every user's values at once (`invalidateAll`, from the Kysely
 * plugin), and until the next `observe` reads go to the database: a request sees its own writes.
 *
 * A user never observed (the CLI, tests that call services directly) is never cached: `read` loads every time.
 */
export class UserStateCache {
  readonly #states = new Map<string, UserState>();
  /** Replaced on every local write: what reader-lifetime caches of unobserved users compare against. */
  #localEpoch: object = {};

  /** The version the auth query read with the user's token. */
  observe(userId: string, version: number): void {
    const current = this.#states.get(userId);
    if (current?.version === version) return;
    this.#states.delete(userId);
    if (this.#states.size >= MAX_USERS) this.#states.delete(this.#states.keys().next().value!);
    this.#states.set(userId, new UserState(version));
  }

  /** This process wrote a tracked row (of some user): nothing cached may be served until it is observed again. */
  invalidateAll(): void {
    this.#states.clear();
    this.#localEpoch = {};
  }

  /** True while the user's cached values are current (observed, no local write since). */
  isCurrent(userId: string): boolean {
    return this.#states.has(userId);
  }

  /**
   * An object whose identity changes whenever values cached for the user may have gone stale: the user's state when
   * observed, else the local write epoch. Longer-lived caches (a secret reader's rows) compare it before reuse.
   */
  token(userId: string): object {
    return this.#states.get(userId) ?? this.#localEpoch;
  }

  /** `load()` once per user state and `key`; straight through when the user's state is not current. */
  read<T>(userId: string, key: string, load: () => Promise<T>): Promise<T> {
    const state = this.#states.get(userId);
    if (state === undefined) return load();
    let value = state.values.get(key) as Promise<T> | undefined;
    if (value === undefined) {
      value = load();
      state.values.set(key, value);
      // A failed read is not remembered: the next request tries again.
      value.catch(() => {
        if (state.values.get(key) === value) state.values.delete(key);
      });
    }
    return value;
  }
}

/** The table an insert, update or delete writes, or undefined for anything else. */
function writtenTable(node: RootOperationNode): string | undefined {
  const tableOf = (target: OperationNode | undefined): string | undefined => {
    if (target === undefined) return undefined;
    if (target.kind === 'TableNode') {
      return (target as unknown as { table: { identifier: { name: string } } }).table.identifier.name;
    }
    if (target.kind === 'AliasNode') return tableOf((target as unknown as { node: OperationNode }).node);
    return undefined;
  };
  switch (node.kind) {
    case 'InsertQueryNode':
      return tableOf(node.into);
    case 'UpdateQueryNode':
      return tableOf(node.table);
    case 'DeleteQueryNode':
      return tableOf(node.from.froms[0]);
    default:
      return undefined;
  }
}

/**
 * Drops the cache's values on every write this process makes to a tracked table, before the statement runs and
 * again after it (a read that started in between must not keep what it saw).
 */
export function createLocalWriteObserver(cache: UserStateCache): KyselyPlugin {
  const writes = new WeakSet<object>();
  return {
    transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
      const table = writtenTable(node);
      if (table !== undefined && USER_STATE_TABLES.has(table)) {
        writes.add(queryId);
        cache.invalidateAll();
      }
      return node;
    },
    async transformResult({ queryId, result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      if (writes.has(queryId)) cache.invalidateAll();
      return result;
    },
  };
}
