import { describe, expect, it } from 'vitest';
import { countLineFeeds, countLineFeedsSwar, countLineFeedsWithSimd } from './count-line-feeds.ts';

function naiveCount(bytes: Uint8Array): number {
  let count = 0;
  for (const byte of bytes) if (byte === 0x0a) count += 1;
  return count;
}

describe('FS-1 countLineFeeds', () => {
  it('counts every 0x0A byte at any alignment, length and density', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (const density of [0, 0.01, 0.3, 1]) {
      const backing = new Uint8Array(5_000);
      for (let index = 0; index < backing.length; index += 1) {
        // Bytes next to 0x0A (0x0B, 0x8A, 0x09) catch a lane test that is off by a bit.
        backing[index] = random() < density ? 0x0a : [0x0b, 0x8a, 0x09, 0x41, 0xff, 0x00][index % 6]!;
      }
      for (const offset of [0, 1, 2, 3, 5]) {
        for (const length of [0, 1, 3, 4, 15, 16, 17, 255, 256, 257, 1_007, 1_008, 4_000, 4_080, 4_097]) {
          const view = backing.subarray(offset, offset + length);
          const label = `density ${density} offset ${offset} length ${length}`;
          expect(countLineFeeds(view), label).toBe(naiveCount(view));
          expect(countLineFeedsSwar(view), label).toBe(naiveCount(view));
          expect(countLineFeedsWithSimd(view), label).toBe(naiveCount(view));
        }
      }
    }
  });

  it('does not overflow a lane on long runs of line feeds, across WebAssembly blocks', () => {
    const bytes = new Uint8Array(200_003).fill(0x0a);
    for (const count of [countLineFeeds, countLineFeedsSwar, countLineFeedsWithSimd]) {
      expect(count(bytes)).toBe(200_003);
      expect(count(bytes.subarray(1))).toBe(200_002);
      expect(count(bytes.subarray(65_530, 65_550))).toBe(20);
    }
  });

  it('uses WebAssembly on this Node (the fast path is not silently the fallback)', () => {
    expect(countLineFeedsWithSimd(new Uint8Array([0x0a, 0x41, 0x0a]))).toBe(2);
  });
});
