import type { Worker } from 'node:worker_threads';
import { startModuleWorker, workerFileUrl } from '../core/module-worker.ts';
import type { OffThreadBatch, OffThreadReply } from './sqlite-off-thread-protocol.ts';

const WORKER_URL = workerFileUrl(import.meta.url, 'sqlite-write-worker');

/**
 * Issue 14/11: SQLite's own work for an audit row (~5 µs, 10–30 µs with the checkpoints' fsyncs on this kind of disk)
 * ran on the main thread, inside the request path of every tool call. This runs append-only batches on a worker
 * thread with its own connection to the same file instead, so the main thread only hands the rows over.
 *
 * The worker starts on the first batch and holds the process open only while a batch is in flight (a process that
 * ends without `close()` still finishes writing what it handed over). If the worker dies, the pending batches and
 * every later one reject with `OffThreadWriterUnavailable`, and callers write on their own connection instead.
 */
export class SqliteOffThreadWriter {
  readonly #path: string;
  #worker: Worker | undefined;
  #broken: Error | undefined;
  #nextId = 1;
  #committed = 0;
  readonly #pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  readonly #inFlight = new Set<Promise<void>>();

  constructor(path: string) {
    this.#path = path;
  }

  /** True until the worker has failed (or the writer was closed): then callers should write themselves. */
  get available(): boolean {
    return this.#broken === undefined;
  }

  /** Batches the worker has committed (for tests and diagnostics). */
  get committedBatches(): number {
    return this.#committed;
  }

  /** Runs `sql` once per entry of `rows`, in one transaction on the worker's connection; resolves once committed. */
  run(sql: string, rows: unknown[][]): Promise<void> {
    if (this.#broken !== undefined) return Promise.reject(new OffThreadWriterUnavailable(this.#broken));
    const worker = this.#ensureWorker();
    const id = this.#nextId++;
    const batch: OffThreadBatch = { id, sql, rows };
    const done = new Promise<void>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      if (this.#pending.size === 1) worker.ref();
      worker.postMessage(batch);
    });
    this.#inFlight.add(done);
    const forget = (): void => void this.#inFlight.delete(done);
    done.then(forget, forget);
    return done;
  }

  /** Waits for the batches in flight, then stops the worker. Later `run` calls reject. */
  async close(): Promise<void> {
    await Promise.allSettled(this.#inFlight);
    const worker = this.#worker;
    this.#fail(new Error('the off-thread SQLite writer was closed'));
    if (worker !== undefined) await worker.terminate();
  }

  #ensureWorker(): Worker {
    if (this.#worker !== undefined) return this.#worker;
    const worker = startModuleWorker(WORKER_URL, { workerData: { path: this.#path } });
    worker.on('message', (reply: OffThreadReply) => {
      const entry = this.#pending.get(reply.id);
      if (entry === undefined) return;
      this.#pending.delete(reply.id);
      if (this.#pending.size === 0) worker.unref();
      if (reply.error === undefined) {
        this.#committed += 1;
        entry.resolve();
      } else entry.reject(new Error(reply.error));
    });
    worker.on('error', (error) => this.#fail(error));
    worker.on('exit', (code) => this.#fail(new Error(`the SQLite write worker exited with code ${code}`)));
    // After the listeners: adding a 'message' listener refs the worker again, and an idle worker must not keep the
    // process alive (a CLI command that never closes its database would never exit).
    worker.unref();
    this.#worker = worker;
    return worker;
  }

  #fail(error: Error): void {
    this.#broken ??= error;
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const { reject } of pending) reject(new OffThreadWriterUnavailable(error));
  }
}

/** The worker is gone: the batch was not (or may not have been) stored; write it on the main connection. */
export class OffThreadWriterUnavailable extends Error {
  constructor(cause: Error) {
    super(`SQLite write worker unavailable: ${cause.message}`, { cause });
    this.name = 'OffThreadWriterUnavailable';
  }
}
