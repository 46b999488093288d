import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startModuleWorker, workerFileUrl } from '../core/module-worker.ts';
import {
  QUEUE_BUSY,
  QUEUE_CONTROL_BYTES,
  QUEUE_DATA_BYTES,
  SHARED_SLOTS,
  SHARED_STOP,
  STOP_LIMIT,
  STOP_REQUESTED,
  type GlobJob,
  type GrepJob,
  type ScanJob,
  type ScanStats,
  type WorkerMessage,
} from './scan-protocol.ts';

/**
 * Runs grep/glob scans in worker threads (SPEC FS-4/FS-5) and keeps a few warm workers between calls, so a small
 * search does not pay a worker start-up. A scan stops cooperatively (shared stop flag) at the result limit or the
 * deadline; a worker that does not stop within a short grace (a regex stuck in one exec) is terminated, and the call
 * returns what was found so far.
 */

const WORKER_URL = workerFileUrl(import.meta.url, 'scan-worker-thread');
const MAX_IDLE_WORKERS = 4;
const IDLE_WORKER_TTL_MS = 60_000;
/** How long a worker asked to stop may take before it is terminated. */
export const STOP_GRACE_MS = 150;

export type ScanStopReason = 'max_results' | 'time_budget' | 'aborted';

export interface ScanRunResult<TItem> {
  items: TItem[];
  stats: ScanStats;
  /** Why the scan stopped early, when it did. */
  stopReason: ScanStopReason | undefined;
  /** Workers that took part (helpers join only when the scan is not over quickly). */
  workers: number;
}

export interface ScanRunOptions {
  /** The scan returns what it found after this many milliseconds. */
  deadlineMs: number;
  signal?: AbortSignal;
  /** Workers a directory scan may use (a lead, then helpers if it is not over quickly). Default: cores, at most 4. */
  parallelism?: number;
  /** Overrides HELPER_DELAY_MS (tests force the split with 0). */
  helperDelayMs?: number;
  /** Overrides IN_THREAD_BUDGET_MS; 0 always uses workers. */
  inThreadBudgetMs?: number;
}

/**
 * With no warm worker (a one-shot CLI, a server's first scan), a worker costs more to boot than a small scan takes:
 * the scan first runs in the calling thread for at most this long, and only a scan still running then is thrown away
 * and run again in workers. Only for scans whose time is linear in the bytes read (glob, a grep regex without
 * quantifiers or back-references): a catastrophic regex could never be stopped in the calling thread.
 */
export const IN_THREAD_BUDGET_MS = 15;

function runsSafelyInThread(template: ScanJobTemplate): boolean {
  return template.kind === 'glob' || !/[*+?{]|\\[1-9k]/.test(template.regexSource);
}

async function runInThread<TItem>(
  template: ScanJobTemplate,
  budgetMs: number,
): Promise<ScanRunResult<TItem> | undefined> {
  const { runScanJob } = await import('./scan-worker.ts');
  const shared = new SharedArrayBuffer(SHARED_SLOTS * Int32Array.BYTES_PER_ELEMENT);
  const queue = new SharedArrayBuffer(QUEUE_CONTROL_BYTES);
  Atomics.store(new Int32Array(queue), QUEUE_BUSY, 1);
  const job = {
    ...template,
    shared,
    queue,
    queueData: new SharedArrayBuffer(QUEUE_DATA_BYTES),
    jobId: nextJobId++,
    role: 'lead',
  } as ScanJob;
  const items: TItem[] = [];
  let stats: ScanStats | undefined;
  let failure: string | undefined;
  const { abandoned } = runScanJob(
    job,
    (message) => {
      if (message.type === 'batch') for (const item of message.items) items.push(item as TItem);
      else if (message.type === 'done') stats = message.stats;
      else failure = message.message;
    },
    performance.now() + budgetMs,
  );
  if (abandoned) return undefined;
  if (failure !== undefined) throw new Error(`The scan failed: ${failure}`);
  const limited = Atomics.load(new Int32Array(shared), SHARED_STOP) === STOP_LIMIT;
  return { items, stats: stats!, stopReason: limited ? 'max_results' : undefined, workers: 0 };
}

/** A directory scan still running after this long gets helper workers. */
export const HELPER_DELAY_MS = 5;

type Injected = 'jobId' | 'shared' | 'queue' | 'queueData' | 'role';
export type GrepJobTemplate = Omit<GrepJob, Injected>;
export type ScanJobTemplate = Omit<GlobJob, Injected> | GrepJobTemplate;

interface IdleWorker {
  worker: Worker;
  timer: NodeJS.Timeout;
  onExit: () => void;
}

const idleWorkers: IdleWorker[] = [];
let nextJobId = 1;
/** Workers currently scanning, across every call: helpers only join while this is below the core count. */
let activeWorkers = 0;

function spawnWorker(): Worker {
  return startModuleWorker(WORKER_URL);
}

function acquireWorker(): Worker {
  activeWorkers += 1;
  const idle = idleWorkers.pop();
  if (idle !== undefined) {
    clearTimeout(idle.timer);
    idle.worker.off('exit', idle.onExit);
    idle.worker.ref();
    return idle.worker;
  }
  return spawnWorker();
}

function releaseWorker(worker: Worker): void {
  activeWorkers -= 1;
  if (idleWorkers.length >= MAX_IDLE_WORKERS) {
    void worker.terminate();
    return;
  }
  worker.unref();
  const forget = (): void => {
    const index = idleWorkers.findIndex((entry) => entry.worker === worker);
    if (index !== -1) idleWorkers.splice(index, 1);
  };
  const timer = setTimeout(() => {
    forget();
    void worker.terminate();
  }, IDLE_WORKER_TTL_MS);
  timer.unref();
  // A worker that dies while idle must not be handed the next scan.
  const onExit = (): void => {
    clearTimeout(timer);
    forget();
  };
  worker.once('exit', onExit);
  idleWorkers.push({ worker, timer, onExit });
}

/** Terminates the warm workers (tests, graceful shutdown). */
export async function closeScanWorkers(): Promise<void> {
  const workers = idleWorkers.splice(0);
  await Promise.all(
    workers.map(({ worker, timer, onExit }) => {
      clearTimeout(timer);
      worker.off('exit', onExit);
      return worker.terminate();
    }),
  );
}

/** How many workers a scan of a directory may use: the cores, at most 4. */
export function defaultScanParallelism(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

function emptyStats(): ScanStats {
  return {
    filesScanned: 0,
    filesMatched: 0,
    skippedBinary: 0,
    skippedTooLarge: 0,
    skippedUnreadable: 0,
    filesCappedPerFile: 0,
    directoriesWalked: 0,
  };
}

function addStats(total: ScanStats, part: ScanStats): void {
  for (const key of Object.keys(total) as (keyof ScanStats)[]) total[key] += part[key];
}

/**
 * Runs a scan on a lead worker, plus helpers sharing the walk when it is not over quickly (or, with no warm worker,
 * in the calling thread when it is small: IN_THREAD_BUDGET_MS).
 */
export async function runScan<TItem>(
  template: ScanJobTemplate,
  options: ScanRunOptions,
): Promise<ScanRunResult<TItem>> {
  const budgetMs = options.inThreadBudgetMs ?? IN_THREAD_BUDGET_MS;
  if (
    idleWorkers.length === 0 &&
    budgetMs > 0 &&
    budgetMs < options.deadlineMs &&
    options.signal?.aborted !== true &&
    runsSafelyInThread(template)
  ) {
    const result = await runInThread<TItem>(template, budgetMs);
    if (result !== undefined) return result;
  }
  return runInWorkers(template, options);
}

function runInWorkers<TItem>(
  template: ScanJobTemplate,
  options: ScanRunOptions,
): Promise<ScanRunResult<TItem>> {
  return new Promise((resolve, reject) => {
    const shared = new SharedArrayBuffer(SHARED_SLOTS * Int32Array.BYTES_PER_ELEMENT);
    const flags = new Int32Array(shared);
    const items: TItem[] = [];
    const stats = emptyStats();
    let stopReason: ScanStopReason | undefined;
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;
    let helperTimer: NodeJS.Timeout | undefined;
    const running = new Map<Worker, () => void>();

    const settle = (error?: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadlineTimer);
      clearTimeout(graceTimer);
      clearTimeout(helperTimer);
      options.signal?.removeEventListener('abort', onAbort);
      // Whatever has not finished by now is stuck or no longer wanted: it is terminated, not returned to the pool.
      for (const [worker, detach] of running) {
        detach();
        activeWorkers -= 1;
        void worker.terminate();
      }
      running.clear();
      if (error !== undefined) {
        reject(error);
        return;
      }
      if (stopReason === undefined && Atomics.load(flags, SHARED_STOP) === STOP_LIMIT)
        stopReason = 'max_results';
      resolve({ items, stats, stopReason, workers });
    };

    const requestStop = (reason: ScanStopReason): void => {
      stopReason ??= reason;
      Atomics.store(flags, SHARED_STOP, STOP_REQUESTED);
      graceTimer ??= setTimeout(() => settle(), STOP_GRACE_MS);
    };

    const onAbort = (): void => {
      stopReason = 'aborted';
      settle();
    };

    const deadlineTimer = setTimeout(() => requestStop('time_budget'), Math.max(0, options.deadlineMs));

    let workers = 0;
    const start = (job: ScanJob): void => {
      workers += 1;
      const worker = acquireWorker();
      const jobId = job.jobId;
      const onMessage = (message: WorkerMessage): void => {
        if (message.jobId !== jobId || settled) return;
        if (message.type === 'batch') {
          for (const item of message.items) items.push(item as TItem);
          return;
        }
        detach();
        running.delete(worker);
        if (message.type === 'error') {
          releaseWorker(worker);
          settle(new Error(`The scan failed: ${message.message}`));
          return;
        }
        addStats(stats, message.stats);
        releaseWorker(worker);
        if (running.size === 0) settle();
      };
      const onError = (error: Error): void => {
        detach();
        running.delete(worker);
        activeWorkers -= 1;
        settle(error);
      };
      const onExit = (code: number): void => {
        detach();
        running.delete(worker);
        activeWorkers -= 1;
        settle(new Error(`The scan worker exited unexpectedly (code ${code}).`));
      };
      const detach = (): void => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      running.set(worker, detach);
      worker.postMessage(job);
    };

    const queue = new SharedArrayBuffer(QUEUE_CONTROL_BYTES);
    const queueData = new SharedArrayBuffer(QUEUE_DATA_BYTES);
    // The lead starts with the root in hand: it counts as busy before it runs, so a fast helper cannot conclude early.
    Atomics.store(new Int32Array(queue), QUEUE_BUSY, 1);
    const parallelism = options.parallelism ?? defaultScanParallelism();
    const base = { shared, queue, queueData };
    start({ ...template, ...base, jobId: nextJobId++, role: 'lead' } as ScanJob);
    const walksTree = template.kind === 'glob' || !template.isFile;
    const helpers = walksTree ? parallelism - 1 : 0;
    const startHelpers = (): void => {
      if (settled || Atomics.load(flags, SHARED_STOP) !== 0) return;
      // Concurrent calls share the cores: a helper joins only while a core is free of scans.
      const free = Math.max(0, parallelism - activeWorkers);
      for (let helper = 0; helper < Math.min(helpers, free); helper += 1) {
        start({ ...template, ...base, jobId: nextJobId++, role: 'helper' } as ScanJob);
      }
    };
    const helperDelayMs = options.helperDelayMs ?? HELPER_DELAY_MS;
    if (helpers > 0 && helperDelayMs <= 0) startHelpers();
    else if (helpers > 0) helperTimer = setTimeout(startHelpers, helperDelayMs);

    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
  });
}
