/**
 * Issue 11: keyed reads that arrive while one is running go to the database together, as one query, when it ends.
 * Nothing is cached or delayed: an idle lookup starts at once, and every lookup's query starts after the lookup was
 * asked for, so it sees every write committed before then (AUTH-1: a revoked token is refused on the next request).
 * Under load, ten concurrent requests pay for one or two round trips instead of ten — on PostgreSQL the server-side
 * cost of a statement (bind, execute, a snapshot) dwarfs that of a few more index probes in it.
 */
export function coalesceLookups<K, V>(
  loadMany: (keys: readonly K[]) => Promise<ReadonlyMap<K, V>>,
  maxKeys = 100,
): (key: K) => Promise<V | undefined> {
  interface Waiter {
    key: K;
    resolve: (value: V | undefined) => void;
    reject: (error: unknown) => void;
  }
  let queued: Waiter[] = [];
  let running = false;

  const run = (): void => {
    if (running || queued.length === 0) return;
    const batch = queued.slice(0, maxKeys);
    queued = queued.slice(batch.length);
    running = true;
    loadMany([...new Set(batch.map((waiter) => waiter.key))]).then(
      (found) => {
        running = false;
        for (const waiter of batch) waiter.resolve(found.get(waiter.key));
        run();
      },
      (error: unknown) => {
        running = false;
        for (const waiter of batch) waiter.reject(error);
        run();
      },
    );
  };

  return (key) =>
    new Promise<V | undefined>((resolve, reject) => {
      queued.push({ key, resolve, reject });
      run();
    });
}
