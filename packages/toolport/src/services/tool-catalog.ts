import type { RegistryEntry, ToolRegistry } from '../core/tool-registry.ts';

/**
 * Per-user tools that are not in the process registry: MCP tools from the user's servers, HTTP and agent tools from
 * their configuration rows. Later issues plug their loaders in here; a source shadows registry tools of one name.
 */
export type UserToolSource = (userId: string, signal?: AbortSignal) => Promise<readonly RegistryEntry[]>;

export interface ToolCatalog {
  readonly registry: ToolRegistry;
  /** Process-wide tools (built-ins and file-based custom tools). */
  listRegistered(): readonly RegistryEntry[];
  /** The user's extra tools from every source. */
  listExtra(userId: string, signal?: AbortSignal): Promise<RegistryEntry[]>;
  /** Both, extras shadowing registered tools of the same name, sorted by name. */
  listForUser(userId: string, signal?: AbortSignal): Promise<RegistryEntry[]>;
}

export function createToolCatalog(
  registry: ToolRegistry,
  sources: readonly UserToolSource[] = [],
): ToolCatalog {
  const listExtra = async (userId: string, signal?: AbortSignal): Promise<RegistryEntry[]> => {
    const lists = await Promise.all(sources.map((source) => source(userId, signal)));
    return lists.flat();
  };
  return {
    registry,
    listRegistered: () => registry.listEntries(),
    listExtra,
    listForUser: async (userId, signal) => {
      const extra = await listExtra(userId, signal);
      // The registry's listing is sorted by the same order already.
      if (extra.length === 0) return registry.listEntries();
      const byName = new Map<string, RegistryEntry>();
      for (const entry of registry.listEntries()) byName.set(entry.tool.definition.name, entry);
      for (const entry of extra) byName.set(entry.tool.definition.name, entry);
      return [...byName.values()].sort((a, b) =>
        a.tool.definition.name.localeCompare(b.tool.definition.name),
      );
    },
  };
}
