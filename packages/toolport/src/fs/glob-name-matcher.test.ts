import { mkdir, writeFile } from 'node:fs/promises';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import picomatch from 'picomatch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTemporaryDirectory, removeDirectory } from '../../test/support/fs-harness.ts';
import { fastNameMatcher } from './glob-name-matcher.ts';
import { closeScanWorkers, runScan } from './scan-pool.ts';

/** Names that trip a naive suffix test: dots, line terminators, the pattern's own text, case, near-misses. */
const TRICKY_NAMES = [
  'a.d.ts',
  '.d.ts',
  'd.ts',
  '..d.ts',
  '.a.d.ts',
  'a.d.tsx',
  'a.D.TS',
  'a.d.ts.map',
  '\n.d.ts',
  '\r.d.ts',
  '\u2028.d.ts',
  'x\n.d.ts',
  ' .d.ts',
  '-.d.ts',
  'é.d.ts',
  '🎉.d.ts',
  '*.d.ts',
  '*.{js,ts}',
  '*',
  '{js,ts}',
  'a.ts',
  'a.js',
  '.ts',
  'ts',
  'a.jsts',
  'package.json',
  '.package.json',
  'package.json5',
  '.env',
  'deep',
  'Deep',
  'a',
  '.',
  '..',
  '.hidden',
];

/** Every shape the fast path takes, plus its edges (empty suffix, empty prefix, a dot literal). */
const FAST_PATTERNS = [
  '*.d.ts',
  '*.ts',
  '*',
  '*ts',
  '*.',
  '*.{js,ts}',
  '*{js,ts}',
  '*.{d.ts,js}',
  'package.json',
  '.env',
  'deep',
  '.',
  '..',
];

describe('FS-4 glob name fast path', () => {
  it("answers exactly what picomatch's regex answers, with and without dot", () => {
    for (const pattern of FAST_PATTERNS) {
      for (const dot of [false, true]) {
        const fast = fastNameMatcher(pattern, dot);
        expect(fast, pattern).toBeDefined();
        const general = picomatch.makeRe(pattern, { dot });
        for (const name of TRICKY_NAMES) {
          expect(fast!(name), `${JSON.stringify(pattern)} dot=${dot} on ${JSON.stringify(name)}`).toBe(
            general.test(name),
          );
        }
      }
    }
  });

  it('leaves glob syntax it does not model to picomatch', () => {
    for (const pattern of [
      '*.[jt]s',
      '?.ts',
      'a*.ts',
      '*.ts*',
      '*.{js}',
      '*.{a,{b,c}}',
      '!(*.ts)',
      '*.t\\s',
      '@(a)',
    ]) {
      expect(fastNameMatcher(pattern, false), pattern).toBeUndefined();
    }
  });
});

describe('FS-4 glob fast path on a tree', () => {
  let root: string;

  beforeAll(async () => {
    root = await makeTemporaryDirectory('toolport-glob-fast-');
    // Directories whose names match, a dot directory, one a line terminator keeps `**` out of, and `**` itself.
    const directories = [
      'src/deep',
      '.dotdir/inner',
      'src/.hidden',
      'dir.d.ts',
      'src/x.d.ts',
      '\n.d.ts-dir',
      '**',
    ];
    for (const directory of directories) await mkdir(join(root, directory), { recursive: true });
    for (const directory of ['', ...directories]) {
      for (const name of TRICKY_NAMES) {
        if (name === '.' || name === '..' || directories.includes(name)) continue;
        const path = join(root, directory, name);
        if (directories.some((candidate) => join(root, candidate) === path)) continue;
        await writeFile(path, 'x');
      }
    }
  });

  afterAll(async () => {
    await closeScanWorkers();
    await removeDirectory(root);
  });

  /** Every entry of the tree (dot directories included), matched on its whole relative path by picomatch. */
  function reference(pattern: string, dot: boolean): string[] {
    const matcher = picomatch(pattern, { dot });
    const found: string[] = [];
    const visit = (relativeDirectory: string): void => {
      for (const dirent of readdirSync(join(root, relativeDirectory), { withFileTypes: true })) {
        const relativePath = relativeDirectory === '' ? dirent.name : `${relativeDirectory}/${dirent.name}`;
        if (matcher(relativePath)) found.push(relativePath);
        if (dirent.isDirectory()) visit(relativePath);
      }
    };
    visit('');
    return found.sort();
  }

  it('finds what picomatch finds on whole paths, for fast and general name patterns, with and without dotfiles', async () => {
    for (const namePattern of ['*.d.ts', '*', '*.{js,ts}', 'package.json', 'deep', '*.[jt]s', '?.d.ts']) {
      for (const includeDotfiles of [false, true]) {
        const pattern = `**/${namePattern}`;
        const scan = await runScan<string>(
          {
            kind: 'glob',
            root,
            pattern,
            includeDotfiles,
            keepDotEntries: false,
            deniedRoots: [],
            respectGitignore: false,
            maxResults: 100_000,
          },
          { deadlineMs: 60_000, parallelism: 2, helperDelayMs: 0 },
        );
        const expected = reference(pattern, includeDotfiles);
        expect(expected.length, pattern).toBeGreaterThan(0);
        expect([...scan.items].sort(), `${pattern} includeDotfiles=${includeDotfiles}`).toEqual(expected);
      }
    }
  });
});
