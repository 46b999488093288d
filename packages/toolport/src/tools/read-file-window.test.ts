import { describe, expect, it } from 'vitest';
import { formatTextWindow, MAX_LINE_CHARACTERS, MAX_WINDOW_CHARACTERS } from './read-file.ts';

/** The window as the whole decoded text gives it: every line split out, the window formatted (the plain way). */
function referenceWindow(bytes: Uint8Array, startLine: number, maxLines: number) {
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
  const lines = text === '' ? [] : text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  const output: string[] = [];
  let characters = 0;
  let endLine = startLine - 1;
  let cutLines = 0;
  for (
    let lineNumber = startLine;
    lineNumber <= Math.min(lines.length, startLine + maxLines - 1);
    lineNumber += 1
  ) {
    let line = lines[lineNumber - 1]!.replace(/\r$/, '');
    if (line.length > MAX_LINE_CHARACTERS) {
      line = `${line.slice(0, MAX_LINE_CHARACTERS)}… [line cut at ${MAX_LINE_CHARACTERS} of ${line.length} characters]`;
      cutLines += 1;
    }
    const numbered = `${String(lineNumber).padStart(6, ' ')}\t${line}`;
    if (output.length > 0 && characters + numbered.length + 1 > MAX_WINDOW_CHARACTERS) break;
    output.push(numbered);
    characters += numbered.length + 1;
    endLine = lineNumber;
  }
  return {
    content: output.join('\n'),
    totalLines: lines.length,
    endLine,
    truncated: endLine < lines.length || cutLines > 0,
  };
}

function pseudoRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

// Pieces chosen to break a byte-level count or a window decode that does not restart cleanly at a line feed:
// multi-byte characters, their truncated and stray pieces, a BOM, CR, and long runs.
const PIECES: number[][] = [
  [0x61],
  [0x0a],
  [0x0a],
  [0x0d, 0x0a],
  [0x0d],
  [0xc3, 0xa9],
  [0xc3],
  [0xa9],
  [0xf0, 0x9f, 0x98, 0x80],
  [0xf0, 0x9f],
  [0xef, 0xbb, 0xbf],
  [0xe2, 0x82],
  [0x20],
];

function randomBytes(random: () => number, pieces: number): Buffer {
  const bytes: number[] = [];
  for (let index = 0; index < pieces; index += 1) {
    const roll = random();
    if (roll < 0.02) bytes.push(...new Array<number>(Math.floor(random() * 5000)).fill(0x78));
    else bytes.push(...PIECES[Math.floor(random() * PIECES.length)]!);
  }
  // At a random offset inside a larger buffer, so word-at-a-time counting meets every alignment.
  const padding = Math.floor(random() * 8);
  return Buffer.concat([Buffer.alloc(padding), Buffer.from(bytes), Buffer.alloc(3)]).subarray(
    padding,
    padding + bytes.length,
  );
}

describe('FS-1 read_file windows on bytes read as the whole decoded text does', () => {
  it('gives the same lines, count and content for awkward bytes at every alignment', () => {
    const random = pseudoRandom(7);
    let compared = 0;
    for (let round = 0; round < 400; round += 1) {
      const bytes = randomBytes(random, Math.floor(random() * 300));
      const reference = referenceWindow(bytes, 1, 1);
      if (reference.totalLines === 0) {
        expect(formatTextWindow(bytes, 1, 10)).toMatchObject({ totalLines: 0, content: '' });
        continue;
      }
      const startLine = 1 + Math.floor(random() * reference.totalLines);
      const maxLines = 1 + Math.floor(random() * 60);
      const expected = referenceWindow(bytes, startLine, maxLines);
      expect(formatTextWindow(bytes, startLine, maxLines), `round ${round}`).toMatchObject({
        ...expected,
        startLine,
      });
      compared += 1;
    }
    expect(compared).toBeGreaterThan(300);
  });

  it('counts the lines of a large file exactly and windows its end', () => {
    const line = 'const x = "é"; // 😀\r\n';
    const bytes = Buffer.from(line.repeat(100_000) + 'last');
    const window = formatTextWindow(bytes, 100_001, 5);
    expect(window).toMatchObject({
      totalLines: 100_001,
      endLine: 100_001,
      content: '100001\tlast',
      truncated: false,
    });
    expect(formatTextWindow(bytes, 50_000, 2)).toMatchObject(referenceWindow(bytes, 50_000, 2));
  });

  it('stops at the window character cap as before', () => {
    const bytes = Buffer.from(`${'y'.repeat(1999)}\n`.repeat(200));
    expect(formatTextWindow(bytes, 3, 100)).toMatchObject({
      ...referenceWindow(bytes, 3, 100),
      startLine: 3,
    });
  });
});
