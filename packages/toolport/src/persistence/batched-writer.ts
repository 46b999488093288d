/**
 * Issue 11: rows written in batches off the request path. `add` only queues; a batch is written `delayMs` after its
 * first row, or as soon as `maxBatch` rows wait, one batch at a time. `flush()` writes everything queued and waits,
 * so a clean shutdown loses nothing; a crash loses at most what was queued (under `delayMs`, at most `maxBatch` rows).
 * A failed batch is retried row by row so one bad row costs only itself, and what still fails goes to `onError`.
 */
export interface BatchedWriterOptions<Row> {
  write(rows: readonly Row[]): Promise<void>;
  onError(rows: readonly Row[], error: unknown): void;
  maxBatch?: number;
  delayMs?: number;
}

export const DEFAULT_BATCH_DELAY_MS = 20;
export const DEFAULT_MAX_BATCH = 200;

export class BatchedWriter<Row> {
  readonly #options: BatchedWriterOptions<Row>;
  readonly #maxBatch: number;
  readonly #delayMs: number;
  #queued: Row[] = [];
  #timer: NodeJS.Timeout | undefined;
  /** The batch being written (batches never overlap, so rows land in the order they were added). */
  #writing: Promise<void> = Promise.resolve();

  constructor(options: BatchedWriterOptions<Row>) {
    this.#options = options;
    this.#maxBatch = Math.max(1, options.maxBatch ?? DEFAULT_MAX_BATCH);
    this.#delayMs = Math.max(0, options.delayMs ?? DEFAULT_BATCH_DELAY_MS);
  }

  /** Rows queued and not yet handed to `write`. */
  get pending(): number {
    return this.#queued.length;
  }

  add(row: Row): void {
    this.#queued.push(row);
    if (this.#queued.length >= this.#maxBatch) {
      this.#writeQueued();
    } else {
      // Not unref'd: a process that ends without `flush()` still writes its last batch before exiting.
      this.#timer ??= setTimeout(() => this.#writeQueued(), this.#delayMs);
    }
  }

  /** Writes everything queued so far and resolves once it is stored (or reported to `onError`). */
  async flush(): Promise<void> {
    this.#writeQueued();
    await this.#writing;
  }

  #writeQueued(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    while (this.#queued.length > 0) {
      const batch = this.#queued.splice(0, this.#maxBatch);
      this.#writing = this.#writing.then(() => this.#writeBatch(batch));
    }
  }

  async #writeBatch(batch: readonly Row[]): Promise<void> {
    try {
      await this.#options.write(batch);
      return;
    } catch (error) {
      if (batch.length === 1) {
        this.#options.onError(batch, error);
        return;
      }
    }
    for (const row of batch) {
      try {
        await this.#options.write([row]);
      } catch (error) {
        this.#options.onError([row], error);
      }
    }
  }
}
