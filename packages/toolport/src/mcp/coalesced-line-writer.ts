import type { Writable } from 'node:stream';

export interface CoalescedLineWriter {
  /** Queues `text` (one or more complete lines); it reaches the stream at the end of this event-loop turn. */
  write(text: string): void;
  /** Writes whatever is queued now (before the session closes, so no answer given is lost). */
  flush(): void;
}

/**
 * With many tool calls in flight, answers finish in bursts: one `write` per turn of the event loop carries all of them,
 * instead of a stream write (and a pipe write on the other side) per answer. Order is kept: everything goes through
 * the one queue.
 */
export function createCoalescedLineWriter(output: Writable): CoalescedLineWriter {
  let pending: string[] = [];
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (pending.length === 0) return;
    const text = pending.length === 1 ? pending[0]! : pending.join('');
    pending = [];
    output.write(text);
  };
  return {
    write(text) {
      pending.push(text);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}
