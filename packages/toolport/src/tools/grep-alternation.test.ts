import { readdir, readFile, mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFsHarness,
  makeTemporaryDirectory,
  removeDirectory,
  resultOf,
} from '../../test/support/fs-harness.ts';
import { requiredLiterals } from '../fs/required-literal.ts';
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
