/**
 * A fast "does this file contain literal L" for grep's prefilter. `Buffer.indexOf` runs a memchr on the needle's first
 * byte when the needle is shorter than 8 bytes, and a much slower Boyer-Moore-Horspool otherwise; and a memchr on a
 * common byte (`c` of `createProgram`) stops at every other word. So, as ripgrep does, we look for a window of at
 * most 7 bytes that starts at the literal's rarest byte, and confirm the whole literal around each hit.
 */

/** Bytes of source code and text from the most to the least frequent (measured on a node_modules tree). */
const BYTES_BY_FREQUENCY =
  ' etaorsinlc\npud"m.h,/*:gfbAy{}C;S)1v(-kIR=T0xw\t2P`_\'$OE9q35D4M68BjL7G][N|?FU>W\\Vz<@HKQ+Y&!JXZ#';
/** UTF-8 lead and continuation bytes are common in non-English text: ranked like a mid-frequency letter. */
const NON_ASCII_RANK = BYTES_BY_FREQUENCY.indexOf('k');
/** Any other byte (control characters, rare punctuation) is rarer than everything listed. */
const UNLISTED_RANK = BYTES_BY_FREQUENCY.length;
const MAX_WINDOW_BYTES = 7;

const BYTE_RANK = new Uint8Array(256).fill(UNLISTED_RANK);
for (let byte = 0x80; byte < 256; byte += 1) BYTE_RANK[byte] = NON_ASCII_RANK;
for (let index = 0; index < BYTES_BY_FREQUENCY.length; index += 1)
  BYTE_RANK[BYTES_BY_FREQUENCY.charCodeAt(index)] = index;

export type LiteralTest = (bytes: Buffer) => boolean;

/** True when `bytes` contains at least one of `literals` (none given: nothing can be ruled out). */
export function compileLiteralPrefilter(literals: readonly string[]): LiteralTest {
  const tests = literals.map(compileLiteralSearch);
  if (tests.length === 1) return tests[0]!;
  return (bytes) => {
    for (const test of tests) if (test(bytes)) return true;
    return false;
  };
}

/** Answers exactly `bytes.indexOf(literal) !== -1`, faster. */
export function compileLiteralSearch(literal: string): LiteralTest {
  const find = compileLiteralFinder(literal);
  return (bytes) => find(bytes, 0) !== -1;
}

/** Where `literal` (UTF-8) first occurs in `bytes` at or after `from`, or -1: exactly `bytes.indexOf(literal, from)`, faster. */
export type LiteralFinder = (bytes: Buffer, from: number) => number;

export function compileLiteralFinder(literal: string): LiteralFinder {
  const whole = Buffer.from(literal, 'utf8');
  if (whole.length <= 1) return (bytes, from) => bytes.indexOf(whole, from);
  let offset = 0;
  for (let index = 1; index < whole.length; index += 1) {
    // The most frequent bytes have the lowest rank: keep the leftmost of the rarest.
    if (BYTE_RANK[whole[index]!]! > BYTE_RANK[whole[offset]!]!) offset = index;
  }
  const window = whole.subarray(offset, Math.min(whole.length, offset + MAX_WINDOW_BYTES));
  if (window.length === whole.length) return (bytes, from) => bytes.indexOf(whole, from);
  return (bytes, from) => {
    for (let at = from + offset; ;) {
      const hit = bytes.indexOf(window, at);
      if (hit === -1) return -1;
      const start = hit - offset;
      if (start + whole.length > bytes.length) return -1;
      if (bytes.compare(whole, 0, whole.length, start, start + whole.length) === 0) return start;
      at = hit + 1;
    }
  };
}
