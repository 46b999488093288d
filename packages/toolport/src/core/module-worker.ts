import type { Worker, WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running one of our own modules, given as the URL of a file next to the caller: `.ts` when running
 * from `src/`, `.js` from `dist/` (AGENTS.md). Node 22 before 22.18 strips types only behind a flag; `dist/` needs none.
 */
export function workerFileUrl(callerUrl: string, baseName: string): URL {
  return new URL(callerUrl.endsWith('.ts') ? `./${baseName}.ts` : `./${baseName}.js`, callerUrl);
}

export function startModuleWorker(url: URL, options: WorkerOptions = {}): Worker {
  const typescript = (process.features as { typescript?: unknown }).typescript;
  const needsFlag = url.pathname.endsWith('.ts') && (typescript === undefined || typescript === false);
  // Loaded here, not imported: a process that never starts a worker (a small in-thread scan) skips worker_threads.
  const { Worker: WorkerThread } = process.getBuiltinModule('node:worker_threads');
  return new WorkerThread(
    url,
    needsFlag ? { ...options, execArgv: [...process.execArgv, '--experimental-strip-types'] } : options,
  );
}
