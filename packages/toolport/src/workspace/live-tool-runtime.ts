import type { ToolRuntime } from '../core/tool-runtime.ts';
import type { ToolListChanges } from '../mcp/tool-list-changes.ts';

/**
 * A runtime whose tool list can be rebuilt (a workspace's tools.json reloaded) while an MCP session uses it; the
 * session's server subscribes to `changes` and re-lists.
 */
export interface LiveToolRuntime extends ToolRuntime {
  readonly changes: ToolListChanges;
  /** Swaps in a rebuilt runtime and tells the subscribers. */
  replace(next: ToolRuntime): void;
}

export function createLiveToolRuntime(initial: ToolRuntime): LiveToolRuntime {
  let current = initial;
  const listeners = new Set<() => void>();
  return {
    get userId() {
      return current.userId;
    },
    get chatId() {
      return current.chatId;
    },
    get agentId() {
      return current.agentId;
    },
    get mode() {
      return current.mode;
    },
    get workingDirectory() {
      return current.workingDirectory;
    },
    get tools() {
      return current.tools;
    },
    execute: (call, options) => current.execute(call, options),
    changes: {
      subscribe(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
    replace(next) {
      current = next;
      for (const listener of listeners) listener();
    },
  };
}
