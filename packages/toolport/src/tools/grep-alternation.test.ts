import { readdir, readFile, mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFsHarness,
  makeTemporaryDirectory,
  removeDirectory,
  resultOf,
} from '../../test/support/fs-harness.ts';
import { literalAlternatives, requiredLiterals } from '../fs/required-literal.ts';
import { closeScanWorkers } from '../fs/scan-pool.ts';
import type { GrepMatch, GrepResult } from './grep.ts';

// Files built so a wrong prefilter (a literal some match lacks) would drop a file that matches.
const FILES: Record<string, string | Buffer> = {
  'program.ts': 'import ts from "typescript";\nconst p = ts.createProgram(files);\n',
  'reader.ts': 'const text = readFileSync(path);\nconst none = 1;\n',
  'neither.ts': 'createProgra m\nreadFile Sync\n',
  'group-foo.txt': 'foobazz here\nbarbazz there\nbaz alone\n',
  'qux.txt': 'a qux_thing\n',
  'escaped.txt': 'left foo|bar right\njust foo\njust bar\n',
  'class.txt': 'a-xyz\n|xyz\nbxyz\nzzz\n',
  'pipe-class.txt': '|pipe\nxpipe\nother thing\n',
  'hex.txt': 'ABCD upper\nabcd lower\n41BCD digits\n',
  'unicode-escape.txt': 'Apple pie\n0041pple\n',
  'backref.txt': 'ababxyz\nab1xyz\n',
  'named.txt': 'abcabcxyz\n<word>xyz\n',
  'lookahead.txt': 'foobar1\nfoobaz1\nbaz11\n',
  'accents.txt': 'café au lait\nnaïve\ncafe\n',
  'astral.txt': '😀smile\nsmile\nfrown 😀\n',
  'invalid-utf8.txt': Buffer.concat([Buffer.from('x'), Buffer.from([0xff]), Buffer.from('badbytes\nok\n')]),
  'cases.txt': 'ALPHA\nbeta\nGamma 123\n456 seen\n',
  'anchors.txt': 'export const a = 1;\n  export not at start\nimport x from "y";\n',
  'sub/deep.ts': 'deep createProgram\nnothing\n',
  'empty-alt.txt': 'every line\nmatches\n',
};

interface PatternCase {
  pattern: string;
  caseInsensitive?: boolean;
  /** What requiredLiterals must extract: proves the prefilter runs (or does not) for this case. */
  literals: string[] | undefined;
}

const CASES: PatternCase[] = [
  { pattern: 'createProgram|readFileSync', literals: ['createProgram', 'readFileSync'] },
  { pattern: '(foo|bar)bazz|qux_thing', literals: ['bazz', 'qux_thing'] },
  { pattern: 'foo\\|bar', literals: ['foo|bar'] },
  { pattern: '[a|b]xyz|zzz_never', literals: ['xyz', 'zzz_never'] },
  { pattern: '[|]pipe|other', literals: ['pipe', 'other'] },
  { pattern: '\\x41BCD|nothing_here', literals: ['BCD', 'nothing_here'] },
  { pattern: '\\u0041pple|kiwi_fruit', literals: ['pple', 'kiwi_fruit'] },
  { pattern: '(ab)\\1xyz|no_such', literals: ['xyz', 'no_such'] },
  { pattern: '(?<word>abc)\\k<word>xyz|no_such', literals: ['xyz', 'no_such'] },
  { pattern: 'foo(?=bar)|baz11', literals: ['foo', 'baz11'] },
  { pattern: 'café|naïve', literals: ['café', 'naïve'] },
  { pattern: '😀smile|frown', literals: ['smile', 'frown'] },
  { pattern: '\uFFFDbadbytes|no_such', literals: ['badbytes', 'no_such'] },
  { pattern: '^export|^import', literals: ['export', 'import'] },
  { pattern: '123|456', caseInsensitive: true, literals: ['123', '456'] },
  // Letters with caseInsensitive: the byte prefilter is off (as for a single literal).
  { pattern: 'alpha|BETA', caseInsensitive: true, literals: ['alpha', 'BETA'] },
  // Empty or uncertain alternatives: no prefilter at all.
  { pattern: 'createProgram|', literals: undefined },
  { pattern: '|createProgram', literals: undefined },
  { pattern: 'every||never_seen', literals: undefined },
  { pattern: 'matches|\\w+', literals: undefined },
];

let root: string;

beforeAll(async () => {
  root = await makeTemporaryDirectory('toolport-grep-alternation-');
  await mkdir(join(root, 'sub'));
  for (const [name, content] of Object.entries(FILES)) await writeFile(join(root, name), content);
});

afterAll(async () => {
  await closeScanWorkers();
  await removeDirectory(root);
});

/** The reference: every file decoded and every line tested against the regex, no prefilter. */
async function fullRegexScan(pattern: string, caseInsensitive: boolean): Promise<GrepMatch[]> {
  const regex = new RegExp(pattern, caseInsensitive ? 'i' : '');
  const matches: GrepMatch[] = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const absolute = join(entry.parentPath, entry.name);
    const text = (await readFile(absolute)).toString('utf8');
    const lines = text.split('\n');
    if (text.endsWith('\n')) lines.pop();
    lines.forEach((line, index) => {
      if (regex.test(line)) matches.push({ file: relative(root, absolute), line: index + 1, text: line });
    });
  }
  return matches.sort((left, right) =>
    left.file < right.file ? -1 : left.file > right.file ? 1 : left.line - right.line,
  );
}

describe('FS-5 grep alternation prefilter gives the matches of a full regex scan', () => {
  const harness = () =>
    createFsHarness({
      workingDirectory: root,
      settings: { allowedPaths: [root], maxResults: 5000, maxMatchesPerFile: 1000 },
    });

  it.each(CASES)(
    '$pattern (caseInsensitive: $caseInsensitive)',
    async ({ pattern, caseInsensitive, literals }) => {
      expect(requiredLiterals(pattern)).toEqual(literals);
      const expected = await fullRegexScan(pattern, caseInsensitive === true);
      const result = resultOf<GrepResult>(
        await harness().run('grep', { pattern, path: '.', caseInsensitive: caseInsensitive === true }),
      );
      expect(result.matches).toEqual(expected);
      // Every case here matches somewhere, so identical results are not identical emptiness.
      expect(expected.length).toBeGreaterThan(0);
    },
  );
});

// Issue 11 item 4: a pattern of literals only is matched on the bytes, never decoded nor run as a regex. The same
// pattern wrapped in a group `(?:…)` has no literal to extract and goes the regex way over every decoded file: the two
// must give the very same result, clipping, line numbers and counts included.
const LONG_PREFIX = 'é'.repeat(400) + ' x'.repeat(150);
const BYTE_FILES: Record<string, string | Buffer> = {
  'crlf.txt': 'first needle\r\nsecond\r\nthird needle and haystack\r\n',
  'no-final-newline.txt': 'alpha\nneedle at the end',
  'long-line.txt': `${LONG_PREFIX}needle${'y'.repeat(700)}\nshort haystack\n${'z'.repeat(900)}haystack\n`,
  'overlap.txt': 'xfoo then foo\nfoo then xfoo\nnothing\nxfo\n',
  'many.txt': Array.from({ length: 30 }, (_, index) => `line ${index} needle`).join('\n') + '\n',
  'invalid-before.txt': Buffer.concat([
    Buffer.from('a'),
    Buffer.from([0xe2, 0x82]),
    Buffer.from('needle\n'),
    Buffer.from([0xf0, 0x9f]),
    Buffer.from('\nthen haystack\n'),
  ]),
  'multibyte.txt': 'naïve café\n日本語 needle 日本語\n😀😀 haystack\n',
  'first-byte.txt': 'needle',
  // Large files (over 256 KiB): a literal far in, and one only at the very end.
  'deep.txt': `${'a'.repeat(256 * 1024 - 3)}needle${'b'.repeat(300 * 1024)}\n`,
  'late.txt': `${'c\n'.repeat(300 * 1024)}haystack at the end\n`,
};

const BYTE_CASES: { pattern: string; literals: string[] }[] = [
  { pattern: 'needle|haystack', literals: ['needle', 'haystack'] },
  { pattern: 'foo|xfoo', literals: ['foo', 'xfoo'] },
  { pattern: 'café|日本語|😀', literals: ['café', '日本語', '😀'] },
  { pattern: 'needle', literals: ['needle'] },
  // Not literal-only (a class), so it goes the regex way behind the chunked prefilter for ['needl', 'haystac'].
  { pattern: 'needl[e]|haystac[k]', literals: undefined as unknown as string[] },
  { pattern: 'x\\.y|then|line 1', literals: ['x.y', 'then', 'line 1'] },
];

describe("FS-5 grep of a literal-only pattern works on bytes and gives the regex scan's result", () => {
  let byteRoot: string;
  beforeAll(async () => {
    byteRoot = await makeTemporaryDirectory('toolport-grep-bytes-');
    for (const [name, content] of Object.entries(BYTE_FILES)) await writeFile(join(byteRoot, name), content);
  });
  afterAll(async () => {
    await removeDirectory(byteRoot);
  });
  const run = async (pattern: string, maxMatchesPerFile: number): Promise<GrepResult> =>
    resultOf<GrepResult>(
      await createFsHarness({
        workingDirectory: byteRoot,
        settings: { allowedPaths: [byteRoot], maxResults: 5000, maxMatchesPerFile },
      }).run('grep', { pattern, path: '.' }),
    );

  it.each(BYTE_CASES)('$pattern', async ({ pattern, literals }) => {
    expect(literalAlternatives(pattern)).toEqual(literals);
    expect(literalAlternatives(`(?:${pattern})`)).toBeUndefined();
    for (const maxMatchesPerFile of [1000, 3]) {
      const bytes = await run(pattern, maxMatchesPerFile);
      const regex = await run(`(?:${pattern})`, maxMatchesPerFile);
      expect(bytes.matches.length).toBeGreaterThan(0);
      expect({ ...bytes, pattern: '' }).toEqual({ ...regex, pattern: '' });
    }
  });

  it('finds a literal deep in a large file and one only at its end', async () => {
    for (const pattern of ['needle|haystack', 'needl[e]|haystac[k]']) {
      const files = (await run(pattern, 1000)).matches.map((match) => `${match.file}:${match.line}`);
      expect(files).toContain('deep.txt:1');
      expect(files).toContain(`late.txt:${300 * 1024 + 1}`);
    }
  });

  it('clips a long line around the leftmost literal, counted in characters', async () => {
    const result = await run('needle|haystack', 1000);
    const long = result.matches.find((match) => match.file === 'long-line.txt' && match.line === 1)!;
    expect(long.text.startsWith('…')).toBe(true);
    expect(long.text.indexOf('needle')).toBe(101);
    expect(result.matches.filter((match) => match.file === 'crlf.txt').map((match) => match.text)).toEqual([
      'first needle',
      'third needle and haystack',
    ]);
  });
});
