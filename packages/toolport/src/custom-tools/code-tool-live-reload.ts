import { hasCodeToolFiles } from './code-tool-discovery.ts';
import type { CodeToolFolder } from './code-tool-folders.ts';
import { EMPTY_CODE_TOOL_SNAPSHOT, openCodeToolSet } from './code-tool-registration.ts';
import type { CodeToolSet, CodeToolSnapshot } from './code-tool-set.ts';
import { watchCodeToolPaths } from './code-tool-watcher.ts';

export interface LiveCodeToolsOptions {
  folders: readonly CodeToolFolder[];
  workspace: string;
  /** Called after a reload that loaded a file again or dropped one (not when nothing changed on disk). */
  onChange: (snapshot: CodeToolSnapshot) => void;
  /** A reload that failed as a whole (a bug, not a bad tool file: those are load errors in the snapshot). */
  onError?: (error: unknown) => void;
  debounceMs?: number;
}

export interface LiveCodeTools {
  readonly snapshot: CodeToolSnapshot;
  close(): void;
}

/**
 * `toolport mcp`'s code tools (CODE-1): loaded once, then reloaded when a file in a tool folder (or a source file a
 * tool imports) changes, so the MCP client is told `tools/list_changed` without a restart. The loader itself is
 * imported only once a tool file exists.
 */
export async function startLiveCodeTools(options: LiveCodeToolsOptions): Promise<LiveCodeTools> {
  const { folders, workspace } = options;
  let set: CodeToolSet | undefined;
  let snapshot = EMPTY_CODE_TOOL_SNAPSHOT;
  if (hasCodeToolFiles(folders)) {
    set = await openCodeToolSet({ folders, workspace });
    snapshot = await set.refresh();
  }
  const paths = (): string[] => set?.watchedPaths() ?? folders.map((folder) => folder.path);
  const reload = async (): Promise<void> => {
    set ??= await openCodeToolSet({ folders, workspace });
    const next = await set.refresh();
    watcher.rearm(paths());
    if (next.generation === snapshot.generation) return;
    snapshot = next;
    options.onChange(next);
  };
  const watcher = watchCodeToolPaths(
    paths(),
    () => void reload().catch((error: unknown) => options.onError?.(error)),
    options.debounceMs,
  );
  return {
    get snapshot() {
      return snapshot;
    },
    close: () => watcher.close(),
  };
}
