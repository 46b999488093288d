import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeadlineScheduler } from './deadline-scheduler.ts';

afterEach(() => vi.useRealTimers());

describe('CORE-6 deadline scheduler (time budgets)', () => {
  it('fires each deadline at its time, not before', async () => {
    vi.useFakeTimers();
    const scheduler = new DeadlineScheduler();
    const fired: string[] = [];
    scheduler.schedule(5_000, () => fired.push('five'));
    scheduler.schedule(1_000, () => fired.push('one'));
    scheduler.schedule(30_000, () => fired.push('thirty'));
    await vi.advanceTimersByTimeAsync(999);
    expect(fired).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(fired).toEqual(['one']);
    await vi.advanceTimersByTimeAsync(4_000);
    expect(fired).toEqual(['one', 'five']);
    await vi.advanceTimersByTimeAsync(25_000);
    expect(fired).toEqual(['one', 'five', 'thirty']);
    expect(scheduler.size).toBe(0);
  });

  it('never fires a cancelled deadline', async () => {
    vi.useFakeTimers();
    const scheduler = new DeadlineScheduler();
    const fire = vi.fn();
    const deadline = scheduler.schedule(1_000, fire);
    scheduler.cancel(deadline);
    scheduler.cancel(deadline);
    expect(scheduler.size).toBe(0);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(fire).not.toHaveBeenCalled();
  });

  it('re-arms for a later deadline after the earliest was cancelled', async () => {
    vi.useFakeTimers();
    const scheduler = new DeadlineScheduler();
    const fired: string[] = [];
    scheduler.cancel(scheduler.schedule(1_000, () => fired.push('cancelled')));
    scheduler.schedule(3_000, () => fired.push('later'));
    await vi.advanceTimersByTimeAsync(2_999);
    expect(fired).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(fired).toEqual(['later']);
  });

  it('keeps memory bounded when many calls finish before their deadline', () => {
    const scheduler = new DeadlineScheduler();
    for (let index = 0; index < 100_000; index += 1) scheduler.cancel(scheduler.schedule(30_000, () => {}));
    const live = scheduler.schedule(30_000, () => {});
    expect(scheduler.size).toBe(1);
    // Cancelled entries are swept once they outnumber the live ones: at most ~1,024 are ever held.
    expect(scheduler.trackedEntries).toBeLessThanOrEqual(1025);
    scheduler.cancel(live);
  });

  it('lets a firing callback schedule another deadline', async () => {
    vi.useFakeTimers();
    const scheduler = new DeadlineScheduler();
    const fired: string[] = [];
    scheduler.schedule(1_000, () => {
      fired.push('first');
      scheduler.schedule(1_000, () => fired.push('second'));
    });
    await vi.advanceTimersByTimeAsync(2_000);
    expect(fired).toEqual(['first', 'second']);
  });
});
