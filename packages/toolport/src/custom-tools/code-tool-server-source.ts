import type { RegistryEntry } from '../core/tool-registry.ts';
import { operatorCodeToolFolders } from './code-tool-folders.ts';
import { openCodeToolSet } from './code-tool-registration.ts';
import type { CodeToolLoadError, CodeToolSet } from './code-tool-set.ts';

/**
 * `toolport serve`'s code tools (CODE-1 trust model): only the operator's roots, offered to every user subject to
 * their settings. Never a chat's bound folder and never the server account's own config folders — a user who binds
 * a directory with `.toolport/tools/` runs none of it. Reloaded (changed files only) on every listing, so the next
 * turn sees an edit.
 */
export interface ServerCodeTools {
  readonly roots: readonly string[];
  /** The current code tools (reloading what changed). */
  list(): Promise<readonly RegistryEntry[]>;
  /** Files that did not load, for `GET /api/settings/tools` and the web UI. */
  loadErrors(): Promise<readonly CodeToolLoadError[]>;
}

export function createServerCodeTools(roots: readonly string[]): ServerCodeTools {
  let set: Promise<CodeToolSet> | undefined;
  const refresh = async () => {
    set ??= openCodeToolSet({ folders: operatorCodeToolFolders(roots), workspace: roots[0] ?? '/' });
    return (await set).refresh();
  };
  if (roots.length === 0) {
    return { roots, list: async () => [], loadErrors: async () => [] };
  }
  return {
    roots,
    list: async () => (await refresh()).entries,
    loadErrors: async () => (await refresh()).loadErrors,
  };
}
