import { existsSync, watch, type FSWatcher } from 'node:fs';
import { dirname } from 'node:path';

export interface CodeToolWatcher {
  /**
   * Watches these paths from now on (the set of folders and source directories changes as files come and go).
   * When a new directory is watched, one more change is signalled: files created in it before its watcher existed
   * would otherwise go unseen.
   */
  rearm(paths: readonly string[]): void;
  close(): void;
}

/** The path itself when it exists, else its nearest existing ancestor (to see `.toolport/tools` being created). */
function watchablePath(path: string): string | undefined {
  let current = path;
  while (!existsSync(current)) {
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
  return current;
}

/**
 * `fs.watch` on every folder (non-recursive) with one debounced callback: an editor's save is often several events
 * (write, rename, chmod), and a `git checkout` touches many files at once. Watchers do not keep the process alive.
 */
export function watchCodeToolPaths(
  paths: readonly string[],
  onChange: () => void,
  debounceMs = 100,
): CodeToolWatcher {
  let watchers = new Map<string, FSWatcher>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const schedule = (): void => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(onChange, debounceMs);
  };
  const rearm = (next: readonly string[]): boolean => {
    if (closed) return false;
    const wanted = new Set<string>();
    for (const path of next) {
      const watchable = watchablePath(path);
      if (watchable !== undefined) wanted.add(watchable);
    }
    const kept = new Map<string, FSWatcher>();
    for (const [path, watcher] of watchers) {
      if (wanted.has(path)) kept.set(path, watcher);
      else watcher.close();
    }
    let added = false;
    for (const path of wanted) {
      if (kept.has(path)) continue;
      added = true;
      try {
        const watcher = watch(path, { persistent: false }, schedule);
        // A watched folder that is removed reports an error: the next rearm finds its ancestor instead.
        watcher.on('error', () => {
          watcher.close();
          watchers.delete(path);
          schedule();
        });
        kept.set(path, watcher);
      } catch {
        // Not watchable (permissions, inotify limit): edits there are still seen by the next listing or turn.
      }
    }
    watchers = kept;
    return added;
  };
  rearm(paths);
  return {
    rearm: (next) => {
      if (rearm(next)) schedule();
    },
    close: () => {
      closed = true;
      clearTimeout(timer);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}
