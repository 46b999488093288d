/**
 * A stack of directories (relative paths) in shared memory, so the workers of one scan can share a walk: a worker
 * keeps only the directory it walks next and publishes the rest, so no work sits out of reach while it is blocked in
 * one long `readdir` (a 40,000-entry directory) — an idle worker takes it. The walk ends when no worker is busy and
 * the stack is empty. Workers run synchronous loops, so this is Atomics, not messages. A worker that
 * joins late (the helper of a scan that was not over quickly) simply starts by taking work.
 */
import {
  QUEUE_BUSY,
  QUEUE_BYTES_USED,
  QUEUE_COUNT,
  QUEUE_ENTRIES_OFFSET,
  QUEUE_LOCK,
  QUEUE_MAX_ENTRIES,
  QUEUE_SEQUENCE,
  QUEUE_WAITING,
  SHARED_STOP,
} from './scan-protocol.ts';

const WAIT_SLICE_MS = 20;

export class SharedDirectoryQueue {
  readonly #control: Int32Array;
  readonly #data: Buffer;
  readonly #flags: Int32Array;
  #busy: boolean;

  /** `busy`: whether this worker starts with work (the lead starts with the root; main counted it as busy). */
  constructor(queue: SharedArrayBuffer, data: SharedArrayBuffer, flags: Int32Array, busy: boolean) {
    this.#control = new Int32Array(queue);
    this.#data = Buffer.from(data);
    this.#flags = flags;
    this.#busy = busy;
  }

  #lock(): void {
    while (Atomics.compareExchange(this.#control, QUEUE_LOCK, 0, 1) !== 0) {
      // Critical sections are a few instructions long: spin.
    }
  }

  #unlock(): void {
    Atomics.store(this.#control, QUEUE_LOCK, 0);
  }

  #wake(): void {
    Atomics.add(this.#control, QUEUE_SEQUENCE, 1);
    Atomics.notify(this.#control, QUEUE_SEQUENCE);
  }

  /** True when another worker is waiting for work: worth sharing some. */
  hungry(): boolean {
    return Atomics.load(this.#control, QUEUE_WAITING) > 0;
  }

  /**
   * Moves all but the last `keep` entries of `local` (a stack: the last entry is popped next) to the shared stack, in
   * order, so that the shared stack continues the local one: a worker walking alone visits directories in the same
   * order either way. What does not fit stays local.
   */
  publish(local: string[], keep: number): void {
    const give = local.length - keep;
    if (give <= 0) return;
    let given = 0;
    this.#lock();
    try {
      for (; given < give; given += 1) {
        const count = this.#control[QUEUE_COUNT]!;
        const used = this.#control[QUEUE_BYTES_USED]!;
        const path = local[given]!;
        if (count >= QUEUE_MAX_ENTRIES || used + path.length * 3 > this.#data.length) break;
        const length = this.#data.write(path, used, 'utf8');
        this.#control[QUEUE_ENTRIES_OFFSET + count] = length;
        this.#control[QUEUE_COUNT] = count + 1;
        this.#control[QUEUE_BYTES_USED] = used + length;
      }
    } finally {
      this.#unlock();
    }
    if (given === 0) return;
    local.splice(0, given);
    if (this.hungry()) this.#wake();
  }

  #popLocked(): string | undefined {
    const count = this.#control[QUEUE_COUNT]!;
    if (count === 0) return undefined;
    const length = this.#control[QUEUE_ENTRIES_OFFSET + count - 1]!;
    const used = this.#control[QUEUE_BYTES_USED]! - length;
    this.#control[QUEUE_COUNT] = count - 1;
    this.#control[QUEUE_BYTES_USED] = used;
    return this.#data.toString('utf8', used, used + length);
  }

  /** A queued directory if there is one, without waiting (the caller stays busy either way). */
  takeNow(): string | undefined {
    if (Atomics.load(this.#control, QUEUE_COUNT) === 0) return undefined;
    this.#lock();
    const path = this.#popLocked();
    if (path !== undefined && !this.#busy) {
      this.#busy = true;
      Atomics.add(this.#control, QUEUE_BUSY, 1);
    }
    this.#unlock();
    return path;
  }

  /**
   * Called when this worker's own stack is empty: returns a directory to walk, or undefined when the whole walk is
   * over (nobody busy, nothing queued) or the scan was asked to stop.
   */
  take(): string | undefined {
    let waiting = false;
    for (;;) {
      this.#lock();
      const path = this.#popLocked();
      if (path !== undefined) {
        if (!this.#busy) Atomics.add(this.#control, QUEUE_BUSY, 1);
        if (waiting) Atomics.sub(this.#control, QUEUE_WAITING, 1);
        this.#busy = true;
        this.#unlock();
        return path;
      }
      if (this.#busy) {
        this.#busy = false;
        Atomics.sub(this.#control, QUEUE_BUSY, 1);
      }
      const done = Atomics.load(this.#control, QUEUE_BUSY) === 0;
      if (done || Atomics.load(this.#flags, SHARED_STOP) !== 0) {
        if (waiting) Atomics.sub(this.#control, QUEUE_WAITING, 1);
        this.#unlock();
        // Wake the others: they may be waiting to learn the walk is over.
        this.#wake();
        return undefined;
      }
      if (!waiting) {
        waiting = true;
        Atomics.add(this.#control, QUEUE_WAITING, 1);
      }
      const sequence = Atomics.load(this.#control, QUEUE_SEQUENCE);
      this.#unlock();
      Atomics.wait(this.#control, QUEUE_SEQUENCE, sequence, WAIT_SLICE_MS);
    }
  }
}
