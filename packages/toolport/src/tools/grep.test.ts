import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFsHarness,
  errorOf,
  makeTemporaryDirectory,
  removeDirectory,
  resultOf,
} from '../../test/support/fs-harness.ts';
import { closeScanWorkers } from '../fs/scan-pool.ts';
import type { GrepResult } from './grep.ts';
import type { ReadFileResult } from './read-file.ts';

let root: string;
let work: string;

beforeAll(async () => {
  root = await makeTemporaryDirectory('toolport-grep-');
  work = join(root, 'w');
  await mkdir(join(work, 'src', 'deep'), { recursive: true });
  await mkdir(join(work, '.hidden'), { recursive: true });
  await mkdir(join(work, 'secret'), { recursive: true });
  await mkdir(join(root, 'outside'), { recursive: true });
  await writeFile(join(work, 'src', 'a.ts'), 'const needle = 1;\nconst other = 2;\nneedle();\n');
  await writeFile(join(work, 'src', 'deep', 'b.js'), 'no match\n// NEEDLE upper\n');
  await writeFile(join(work, 'src', 'bin.dat'), Buffer.concat([Buffer.from('needle'), Buffer.from([0, 1])]));
  await writeFile(join(work, 'src', 'big.txt'), `needle\n${'x'.repeat(5000)}\n`);
  await writeFile(join(work, 'src', 'many.txt'), Array.from({ length: 50 }, () => 'needle').join('\n'));
  await writeFile(join(work, '.hidden', 'h.ts'), 'needle\n');
  await writeFile(join(work, 'secret', 's.ts'), 'needle\n');
  await writeFile(join(root, 'outside', 'o.ts'), 'needle outside\n');
  await writeFile(join(work, 'src', 'anchors.txt'), 'start middle end\nend start\n');
  await symlink(join(root, 'outside'), join(work, 'src', 'link-out'));
});

afterAll(async () => {
  await closeScanWorkers();
  await removeDirectory(root);
});

const files = (result: GrepResult): string[] => [...new Set(result.matches.map((match) => match.file))];

describe('FS-5 grep', () => {
  const harness = (settings: Record<string, unknown> = {}) =>
    createFsHarness({ workingDirectory: work, settings: { allowedPaths: [work], ...settings } });

  it('finds matching lines with file, line number and text', async () => {
    const result = resultOf<GrepResult>(
      await harness().run('grep', { pattern: 'needle', path: 'src', glob: '*.ts' }),
    );
    expect(result.matches).toEqual([
      { file: 'src/a.ts', line: 1, text: 'const needle = 1;' },
      { file: 'src/a.ts', line: 3, text: 'needle();' },
    ]);
    expect(result.truncated).toBe(false);
  });

  it('honours caseInsensitive', async () => {
    const sensitive = resultOf<GrepResult>(
      await harness().run('grep', { pattern: 'NEEDLE', path: 'src/deep' }),
    );
    expect(sensitive.matches).toHaveLength(1);
    const insensitive = resultOf<GrepResult>(
      await harness().run('grep', { pattern: 'NEEDLE', path: 'src', glob: '*.ts', caseInsensitive: true }),
    );
    expect(insensitive.matches).toHaveLength(2);
  });

  it('rejects a non-boolean caseInsensitive instead of ignoring it', async () => {
    expect(
      errorOf(await harness().run('grep', { pattern: 'x', path: 'src', caseInsensitive: 'true' })).code,
    ).toBe('validation_failed');
  });

  it('matches ^ and $ per line', async () => {
    const result = resultOf<GrepResult>(
      await harness().run('grep', { pattern: '^end|end$', path: 'src/anchors.txt' }),
    );
    expect(result.matches.map((match) => match.line)).toEqual([1, 2]);
  });

  it('skips binary files (NUL in the first 8 KiB), the same files read_file refuses', async () => {
    const fs = harness();
    const result = resultOf<GrepResult>(await fs.run('grep', { pattern: 'needle', path: 'src' }));
    expect(files(result)).not.toContain('src/bin.dat');
    expect(result.skipped.binary).toBe(1);
    expect(errorOf(await fs.run('read_file', { path: 'src/bin.dat' })).message).toContain('hex');
  });

  it('skips files over maxFileSizeBytes', async () => {
    const result = resultOf<GrepResult>(
      await harness({ maxFileSizeBytes: 1024 }).run('grep', { pattern: 'needle', path: 'src' }),
    );
    expect(files(result)).not.toContain('src/big.txt');
    expect(result.skipped.tooLarge).toBeGreaterThanOrEqual(1);
  });

  it('reads a file larger than its default read buffer whole (match at the end of 3 MiB)', async () => {
    await mkdir(join(root, 'large'), { recursive: true });
    await writeFile(join(root, 'large', 'big.txt'), `${'x'.repeat(3 * 1024 * 1024)}\nneedle at the end\n`);
    const result = resultOf<GrepResult>(
      await createFsHarness({ settings: { maxFileSizeBytes: 4 * 1024 * 1024 } }).run('grep', {
        pattern: 'needle',
        path: join(root, 'large'),
      }),
    );
    expect(result.matches).toEqual([
      { file: join(root, 'large', 'big.txt'), line: 2, text: 'needle at the end' },
    ]);
  });

  it('caps matches per file and in total, and says so', async () => {
    const perFile = resultOf<GrepResult>(
      await harness({ maxMatchesPerFile: 3 }).run('grep', { pattern: 'needle', path: 'src/many.txt' }),
    );
    expect(perFile.matches).toHaveLength(3);
    expect(perFile.truncated).toBe(true);
    const total = resultOf<GrepResult>(
      await harness({ maxResults: 5 }).run('grep', { pattern: 'needle', path: 'src' }),
    );
    expect(total.matches).toHaveLength(5);
    expect(total.truncated).toBe(true);
    expect(total.notice).toContain('limit of 5');
  });

  it('skips dotfiles unless includeDotfiles', async () => {
    const without = resultOf<GrepResult>(
      await harness().run('grep', { pattern: 'needle', path: '.', glob: '*.ts' }),
    );
    expect(files(without)).not.toContain('.hidden/h.ts');
    const withDots = resultOf<GrepResult>(
      await harness({ includeDotfiles: true }).run('grep', { pattern: 'needle', path: '.', glob: '*.ts' }),
    );
    expect(files(withDots)).toContain('.hidden/h.ts');
  });

  it('does not follow a symlink out of the root, and never searches a denied subtree', async () => {
    const result = resultOf<GrepResult>(
      await harness({ deniedPaths: [join(work, 'secret')] }).run('grep', { pattern: 'needle', path: '.' }),
    );
    expect(files(result).some((file) => file.includes('outside') || file.includes('link-out'))).toBe(false);
    expect(files(result)).not.toContain('secret/s.ts');
    expect(errorOf(await harness().run('grep', { pattern: 'needle', path: 'src/link-out' })).code).toBe(
      'permission_denied',
    );
  });

  it('raises GrepPatternError (validation_failed) for an invalid regex', async () => {
    const error = errorOf(await harness().run('grep', { pattern: 'foo(', path: 'src' }));
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('pattern');
  });
});

describe('PATH-3 grep paths', () => {
  it('reports files relative to the working directory, not to the search root, and they round-trip', async () => {
    const fs = createFsHarness({ workingDirectory: work });
    const result = resultOf<GrepResult>(await fs.run('grep', { pattern: 'NEEDLE', path: 'src/deep' }));
    expect(result.matches[0]!.file).toBe('src/deep/b.js');
    expect(result.path).toBe('src/deep');
    const read = resultOf<ReadFileResult>(await fs.run('read_file', { path: result.matches[0]!.file }));
    expect(read.path).toBe(join(work, 'src', 'deep', 'b.js'));
  });

  it('re-anchors a single-file search too', async () => {
    const result = resultOf<GrepResult>(
      await createFsHarness({ workingDirectory: work }).run('grep', {
        pattern: 'needle',
        path: join(work, 'src', 'a.ts'),
      }),
    );
    expect(files(result)).toEqual(['src/a.ts']);
  });

  it('reports absolute paths outside the working directory and in a chat without one', async () => {
    const outsideResult = resultOf<GrepResult>(
      await createFsHarness({ workingDirectory: work }).run('grep', {
        pattern: 'needle',
        path: join(root, 'outside'),
      }),
    );
    expect(files(outsideResult)).toEqual([join(root, 'outside', 'o.ts')]);
    const chat = resultOf<GrepResult>(
      await createFsHarness({}).run('grep', { pattern: 'NEEDLE', path: join(work, 'src', 'deep') }),
    );
    expect(files(chat)).toEqual([join(work, 'src', 'deep', 'b.js')]);
  });
});

describe('PATH-1 grep modes', () => {
  it('searches the working directory when path is omitted in agent mode', async () => {
    const result = resultOf<GrepResult>(
      await createFsHarness({ workingDirectory: work, mode: 'agent' }).run('grep', { pattern: 'NEEDLE' }),
    );
    expect(files(result)).toEqual(['src/deep/b.js']);
  });

  it('requires an explicit path in chat mode', async () => {
    const error = errorOf(
      await createFsHarness({ workingDirectory: work, mode: 'chat' }).run('grep', { pattern: 'x' }),
    );
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('required');
  });
});
