import { describe, expect, it } from 'vitest';
import { timeOrderedUuid } from './time-ordered-id.ts';

describe('issue 11 timeOrderedUuid', () => {
  it('is a version-7 UUID whose text order follows time, and unique', () => {
    const earlier = timeOrderedUuid(Date.UTC(2026, 0, 1));
    const later = timeOrderedUuid(Date.UTC(2026, 0, 1) + 1);
    expect(earlier).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(earlier < later).toBe(true);
    expect(earlier.slice(0, 13)).toBe('019b76da-a800');
    const ids = new Set(Array.from({ length: 1000 }, () => timeOrderedUuid()));
    expect(ids.size).toBe(1000);
  });
});
