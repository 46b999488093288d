import { describe, expect, it } from 'vitest';
import { BatchedWriter } from './batched-writer.ts';

describe('issue 11 BatchedWriter', () => {
  it('writes nothing on add, then whole batches in order; flush writes the rest', async () => {
    const batches: number[][] = [];
    const writer = new BatchedWriter<number>({
      write: async (rows) => void batches.push([...rows]),
      onError: () => {},
      maxBatch: 3,
      delayMs: 60_000,
    });
    writer.add(1);
    writer.add(2);
    expect(batches).toEqual([]);
    expect(writer.pending).toBe(2);
    writer.add(3);
    writer.add(4);
    await writer.flush();
    expect(batches).toEqual([[1, 2, 3], [4]]);
    expect(writer.pending).toBe(0);
  });

  it('writes a batch by itself after its delay, without a flush', async () => {
    let written: readonly string[] = [];
    let resolveWritten!: () => void;
    const done = new Promise<void>((resolve) => (resolveWritten = resolve));
    const writer = new BatchedWriter<string>({
      write: async (rows) => {
        written = rows;
        resolveWritten();
      },
      onError: () => {},
      delayMs: 1,
    });
    writer.add('a');
    writer.add('b');
    await done;
    expect(written).toEqual(['a', 'b']);
  });

  it('retries a failed batch row by row, so only the bad row is lost and reported', async () => {
    const stored: number[] = [];
    const failed: number[] = [];
    const writer = new BatchedWriter<number>({
      write: async (rows) => {
        if (rows.includes(13)) throw new Error('constraint failed');
        stored.push(...rows);
      },
      onError: (rows) => failed.push(...rows),
      delayMs: 60_000,
    });
    for (const row of [11, 12, 13, 14]) writer.add(row);
    await writer.flush();
    expect(stored).toEqual([11, 12, 14]);
    expect(failed).toEqual([13]);
  });
});
