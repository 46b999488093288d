/**
 * One timer for every call's time budget (CORE-6). A `setTimeout` + `clearTimeout` pair per call was a fifth of
 * executeTool's own overhead; budgets are seconds long and nearly every call ends long before its deadline, so the
 * scheduler keeps the in-flight deadlines in a set and arms a single unref'd timer for the earliest one. A call that
 * finishes only removes its entry; the timer re-arms lazily when it fires.
 */
export interface ScheduledDeadline {
  readonly at: number;
  readonly fire: () => void;
  /** Set when the deadline fired or was cancelled. */
  done: boolean;
}

// Cancelled entries stay in the array (cancel is a flag: a Set.delete per call cost more than the timer it replaced)
// and are swept when the array is mostly dead.
const COMPACT_MIN_LENGTH = 1024;

export class DeadlineScheduler {
  #entries: ScheduledDeadline[] = [];
  #live = 0;
  #armedAt = Number.POSITIVE_INFINITY;
  #timer: ReturnType<typeof setTimeout> | undefined;
  // The setTimeout the timer was armed with: when it changes (test fake timers), the next schedule re-arms.
  #armedWith: typeof setTimeout | undefined;

  schedule(delayMs: number, fire: () => void): ScheduledDeadline {
    const deadline: ScheduledDeadline = { at: Date.now() + delayMs, fire, done: false };
    if (this.#entries.length >= COMPACT_MIN_LENGTH && this.#entries.length > 4 * this.#live) {
      this.#entries = this.#entries.filter((entry) => !entry.done);
    }
    this.#entries.push(deadline);
    this.#live += 1;
    if (deadline.at < this.#armedAt || this.#armedWith !== globalThis.setTimeout) this.#arm(deadline.at);
    return deadline;
  }

  cancel(deadline: ScheduledDeadline): void {
    if (deadline.done) return;
    deadline.done = true;
    this.#live -= 1;
  }

  /** In-flight deadlines (for tests and diagnostics). */
  get size(): number {
    return this.#live;
  }

  /** Entries held, cancelled ones not yet swept included (bounded: swept when mostly dead). */
  get trackedEntries(): number {
    return this.#entries.length;
  }

  #arm(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#armedAt = at;
    this.#armedWith = globalThis.setTimeout;
    this.#timer = setTimeout(() => this.#fireDue(), Math.max(1, at - Date.now()));
    // Never keeps the process alive on its own: a finished CLI call must not wait out a 30 s budget.
    this.#timer.unref?.();
  }

  #fireDue(): void {
    this.#timer = undefined;
    this.#armedAt = Number.POSITIVE_INFINITY;
    const now = Date.now();
    const due: ScheduledDeadline[] = [];
    const pending: ScheduledDeadline[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const deadline of this.#entries) {
      if (deadline.done) continue;
      if (deadline.at <= now) due.push(deadline);
      else {
        pending.push(deadline);
        if (deadline.at < next) next = deadline.at;
      }
    }
    this.#entries = pending;
    for (const deadline of due) {
      deadline.done = true;
      this.#live -= 1;
    }
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next);
    // Fired last, with the state consistent: a callback may schedule or cancel.
    for (const deadline of due) deadline.fire();
  }
}

/** The process-wide scheduler executeTool uses. */
export const toolDeadlines = new DeadlineScheduler();
