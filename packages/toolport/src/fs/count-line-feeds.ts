const LINE_FEED = 0x0a;
const LINE_FEEDS = 0x0a0a0a0a;
const LOW_SEVEN_BITS = 0x7f7f7f7f;
const LANE_ONES = 0x01010101;
/** Words per block: 4 words a step, each adding at most 2 to a byte lane, so 63 steps stay under 256 per lane. */
const WORDS_PER_BLOCK = 252;

/** Below this a plain loop beats copying into WebAssembly memory. */
const SIMD_MIN_BYTES = 256;
/** One 64 KiB WebAssembly page: input is copied through it block by block. */
const SIMD_BLOCK_BYTES = 65_536;

/*
 * The SIMD counter, hand-assembled (186 bytes; re-derive with wat2wasm from this text if it ever changes):
 *
 * (module
 *   (memory (export "memory") 1 1)
 *   (func (export "count") (param $length i32) (result i32)   ;; $length: a multiple of 16, at most 65536
 *     (local $i i32) (local $blockEnd i32) (local $lanes v128) (local $total v128) (local $newlines v128)
 *     (local.set $newlines (i8x16.splat (i32.const 10)))
 *     (block $done (loop $blocks
 *       (br_if $done (i32.ge_u (local.get $i) (local.get $length)))
 *       ;; 255 vectors at most per block, so no byte lane of $lanes wraps
 *       (local.set $blockEnd (i32.add (local.get $i) (i32.const 4080)))
 *       (local.set $blockEnd (select (local.get $length) (local.get $blockEnd)
 *                                    (i32.gt_u (local.get $blockEnd) (local.get $length))))
 *       (local.set $lanes (v128.const i64x2 0 0))
 *       (loop $vectors   ;; a lane that equals 10 is -1: subtracting it adds one
 *         (local.set $lanes (i8x16.sub (local.get $lanes)
 *                                      (i8x16.eq (v128.load (local.get $i)) (local.get $newlines))))
 *         (br_if $vectors (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 16))) (local.get $blockEnd))))
 *       (local.set $total (i32x4.add (local.get $total)
 *                           (i32x4.extadd_pairwise_i16x8_u (i16x8.extadd_pairwise_i8x16_u (local.get $lanes)))))
 *       (br $blocks)))
 *     (i32.add (i32.add (i32x4.extract_lane 0 (local.get $total)) (i32x4.extract_lane 1 (local.get $total)))
 *              (i32.add (i32x4.extract_lane 2 (local.get $total)) (i32x4.extract_lane 3 (local.get $total))))))
 */
const SIMD_COUNTER_WASM =
  'AGFzbQEAAAABBgFgAX8BfwMCAQAFBAEBAQEHEgIGbWVtb3J5AgAFY291bnQAAAqJAQGGAQICfwN7QQr9DyEFAkADQCABIABPDQEgAUHwH2ohAi' +
  'AAIAIgAiAASxshAv0MAAAAAAAAAAAAAAAAAAAAACEDA0AgAyAB/QAEACAF/SP9cSEDIAFBEGoiASACSQ0ACyAEIAP9ff1//a4BIQQMAAsLIAT9' +
  'GwAgBP0bAWogBP0bAmogBP0bA2oL';

interface SimdCounter {
  memory: Uint8Array;
  count: (length: number) => number;
}
/** Undefined until first needed; null where WebAssembly is unavailable (e.g. --jitless). */
let simdCounter: SimdCounter | null | undefined;

/** The slice of the WebAssembly API used here (the project's lib is ES2024 without DOM, which declares it). */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => {
    exports: { memory: { buffer: ArrayBuffer }; count: (length: number) => number };
  };
}

function loadSimdCounter(): SimdCounter | null {
  const api = (globalThis as unknown as { WebAssembly?: WebAssemblyApi }).WebAssembly;
  if (api === undefined) return null;
  try {
    const { exports } = new api.Instance(new api.Module(Buffer.from(SIMD_COUNTER_WASM, 'base64')));
    // The memory cannot grow (its maximum is its size), so this view never detaches.
    return { memory: new Uint8Array(exports.memory.buffer), count: exports.count };
  } catch {
    return null;
  }
}

/**
 * 0x0A bytes in `bytes`: 16 at a time in WebAssembly SIMD (about 8 GB/s with the copy into its memory, whatever the
 * line length), else four 32-bit words at a time in JavaScript. Buffer#indexOf is memchr but costs a call per line,
 * which loses on short lines (a file of empty lines would take 300 ms).
 */
export function countLineFeeds(bytes: Uint8Array): number {
  if (bytes.length < SIMD_MIN_BYTES) return countLineFeedsInLoop(bytes, 0);
  simdCounter ??= loadSimdCounter();
  return simdCounter === null ? countLineFeedsSwar(bytes) : countLineFeedsSimd(bytes, simdCounter);
}

function countLineFeedsInLoop(bytes: Uint8Array, from: number): number {
  let count = 0;
  for (let index = from; index < bytes.length; index += 1) if (bytes[index] === LINE_FEED) count += 1;
  return count;
}

/** The WebAssembly path alone (tests compare each path), or undefined where WebAssembly is unavailable. */
export function countLineFeedsWithSimd(bytes: Uint8Array): number | undefined {
  simdCounter ??= loadSimdCounter();
  return simdCounter === null ? undefined : countLineFeedsSimd(bytes, simdCounter);
}

function countLineFeedsSimd(bytes: Uint8Array, counter: SimdCounter): number {
  let count = 0;
  for (let offset = 0; offset < bytes.length; offset += SIMD_BLOCK_BYTES) {
    const block = bytes.subarray(offset, offset + SIMD_BLOCK_BYTES);
    counter.memory.set(block);
    const vectors = block.length & ~15;
    count += counter.count(vectors) + countLineFeedsInLoop(block, vectors);
  }
  return count;
}

/**
 * The fallback path alone: four 32-bit words per step (SWAR on an Int32Array view, two accumulators; Int32, not Uint32, so V8
 * keeps every value a small integer), about 3 GB/s.
 */
export function countLineFeedsSwar(bytes: Uint8Array): number {
  let count = 0;
  let index = 0;
  const alignedStart = Math.min(bytes.length, (4 - (bytes.byteOffset % 4)) % 4);
  for (; index < alignedStart; index += 1) if (bytes[index] === LINE_FEED) count += 1;
  if (index === bytes.length) return count;
  const words = new Int32Array(bytes.buffer, bytes.byteOffset + index, (bytes.length - index) >> 2);
  const stepped = words.length & ~3;
  for (let word = 0; word < stepped;) {
    const end = Math.min(stepped, word + WORDS_PER_BLOCK);
    let first = 0;
    let second = 0;
    for (; word < end; word += 4) {
      // A lane's high bit of ~(((x & 0x7f..) + 0x7f..) | x) is set exactly when that byte of x is zero, i.e. the
      // byte was a line feed before the XOR.
      const a = words[word]! ^ LINE_FEEDS;
      const b = words[word + 1]! ^ LINE_FEEDS;
      const c = words[word + 2]! ^ LINE_FEEDS;
      const d = words[word + 3]! ^ LINE_FEEDS;
      first =
        (first +
          ((~(((a & LOW_SEVEN_BITS) + LOW_SEVEN_BITS) | a) >>> 7) & LANE_ONES) +
          ((~(((b & LOW_SEVEN_BITS) + LOW_SEVEN_BITS) | b) >>> 7) & LANE_ONES)) |
        0;
      second =
        (second +
          ((~(((c & LOW_SEVEN_BITS) + LOW_SEVEN_BITS) | c) >>> 7) & LANE_ONES) +
          ((~(((d & LOW_SEVEN_BITS) + LOW_SEVEN_BITS) | d) >>> 7) & LANE_ONES)) |
        0;
    }
    // Four byte lanes of two accumulators into two 16-bit halves (each ≤ 4 × 126), then one sum.
    const halves =
      (first & 0x00ff00ff) +
      ((first >>> 8) & 0x00ff00ff) +
      (second & 0x00ff00ff) +
      ((second >>> 8) & 0x00ff00ff);
    count += (halves & 0xffff) + (halves >>> 16);
  }
  for (index += stepped * 4; index < bytes.length; index += 1) if (bytes[index] === LINE_FEED) count += 1;
  return count;
}
