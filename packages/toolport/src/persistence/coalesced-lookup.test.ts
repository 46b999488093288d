import { describe, expect, it } from 'vitest';
import { coalesceLookups } from './coalesced-lookup.ts';

/** A loadMany whose calls the test answers by hand. */
function manualLoader() {
  const calls: Array<{
    keys: readonly string[];
    answer: (found: Map<string, number>) => void;
    fail: (error: Error) => void;
  }> = [];
  const loadMany = (keys: readonly string[]) =>
    new Promise<ReadonlyMap<string, number>>((resolve, reject) => {
      calls.push({ keys, answer: resolve, fail: reject });
    });
  return { calls, loadMany };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('issue 11 coalesceLookups', () => {
  it('starts an idle lookup at once; lookups asked for meanwhile share the next query, which starts after it', async () => {
    const { calls, loadMany } = manualLoader();
    const lookup = coalesceLookups(loadMany);
    const first = lookup('a');
    expect(calls.map((call) => call.keys)).toEqual([['a']]);
    const waiting = [lookup('b'), lookup('c'), lookup('b')];
    await settle();
    // Nothing more is sent while a query runs: what it finds could predate the later lookups.
    expect(calls).toHaveLength(1);
    calls[0]!.answer(new Map([['a', 1]]));
    expect(await first).toBe(1);
    expect(calls.map((call) => call.keys)).toEqual([['a'], ['b', 'c']]);
    calls[1]!.answer(new Map([['b', 2]]));
    expect(await Promise.all(waiting)).toEqual([2, undefined, 2]);
  });

  it('rejects every lookup of a failed query, then runs the next ones', async () => {
    const { calls, loadMany } = manualLoader();
    const lookup = coalesceLookups(loadMany);
    const first = lookup('a');
    const second = lookup('b');
    calls[0]!.fail(new Error('connection lost'));
    await expect(first).rejects.toThrow('connection lost');
    calls[1]!.fail(new Error('still down'));
    await expect(second).rejects.toThrow('still down');
    const third = lookup('c');
    calls[2]!.answer(new Map([['c', 3]]));
    expect(await third).toBe(3);
  });

  it('sends at most maxKeys keys in one query', async () => {
    const { calls, loadMany } = manualLoader();
    const lookup = coalesceLookups(loadMany, 2);
    const lookups = ['a', 'b', 'c', 'd', 'e'].map((key) => lookup(key));
    calls[0]!.answer(new Map());
    await settle();
    calls[1]!.answer(new Map());
    await settle();
    calls[2]!.answer(new Map([['e', 5]]));
    expect(await Promise.all(lookups)).toEqual([undefined, undefined, undefined, undefined, 5]);
    expect(calls.map((call) => call.keys)).toEqual([['a'], ['b', 'c'], ['d', 'e']]);
  });
});
