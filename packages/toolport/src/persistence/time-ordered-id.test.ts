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

describe('issue 11 timeOrderedUuid within one millisecond', () => {
  it('gives distinct ids with the same time prefix and the RFC 9562 variant', () => {
    const now = Date.UTC(2026, 5, 1, 12);
    const ids = Array.from({ length: 500 }, () => timeOrderedUuid(now));
    expect(new Set(ids).size).toBe(500);
    for (const id of ids) {
      expect(id.slice(0, 15)).toBe(ids[0]!.slice(0, 15));
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });
});
