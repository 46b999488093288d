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
import type { GlobResult } from './glob.ts';

let root: string;
let work: string;

beforeAll(async () => {
  root = await makeTemporaryDirectory('toolport-glob-');
  work = join(root, 'w');
  for (const directory of ['src/deep', 'docs', '.github/workflows', 'secret']) {
    await mkdir(join(work, directory), { recursive: true });
  }
  await mkdir(join(root, 'outside'), { recursive: true });
  for (const file of [
    'src/a.ts',
    'src/b.js',
    'src/deep/c.ts',
    'docs/readme.md',
    '.github/workflows/ci.yml',
    'secret/k.ts',
    '.env',
    'x1.txt',
    'x2.txt',
  ]) {
    await writeFile(join(work, file), 'x');
  }
  await writeFile(join(root, 'outside', 'o.ts'), 'x');
  await symlink(join(root, 'outside'), join(work, 'link-out'));
});

afterAll(async () => {
  await closeScanWorkers();
  await removeDirectory(root);
});

const run = async (args: Record<string, unknown>, settings: Record<string, unknown> = {}) =>
  resultOf<GlobResult>(await createFsHarness({ workingDirectory: work, settings }).run('glob', args));

describe('FS-4 glob', () => {
  it('supports *, **, ?, [], {a,b}', async () => {
    expect((await run({ pattern: '**/*.ts' })).matches).toEqual(['secret/k.ts', 'src/a.ts', 'src/deep/c.ts']);
    expect((await run({ pattern: 'src/*' })).matches).toEqual(['src/a.ts', 'src/b.js', 'src/deep']);
    expect((await run({ pattern: 'x?.txt' })).matches).toEqual(['x1.txt', 'x2.txt']);
    expect((await run({ pattern: 'x[2].txt' })).matches).toEqual(['x2.txt']);
    expect((await run({ pattern: 'src/**/*.{js,ts}' })).matches).toEqual([
      'src/a.ts',
      'src/b.js',
      'src/deep/c.ts',
    ]);
  });

  it('supports ! negation', async () => {
    const result = await run({ pattern: '!**/*.ts', cwd: 'src' });
    expect(result.matches).toEqual(['src/b.js', 'src/deep']);
  });

  it('matches directories as well as files', async () => {
    expect((await run({ pattern: '**/deep' })).matches).toEqual(['src/deep']);
  });

  it('skips dotfiles unless includeDotfiles, but matches a dot segment the pattern names', async () => {
    expect((await run({ pattern: '**/*.yml' })).matches).toEqual([]);
    expect((await run({ pattern: '**/*.yml' }, { includeDotfiles: true })).matches).toEqual([
      '.github/workflows/ci.yml',
    ]);
    expect((await run({ pattern: '.github/**/*.yml' })).matches).toEqual(['.github/workflows/ci.yml']);
    expect((await run({ pattern: '**/.env' })).matches).toEqual(['.env']);
  });

  it('stops at maxResults and sets truncated', async () => {
    const result = await run({ pattern: '**/*' }, { maxResults: 2 });
    expect(result.matches).toHaveLength(2);
    expect(result.truncated).toBe(true);
  });

  it('does not walk through a symlink out of the root and never reports a denied subtree', async () => {
    const result = await run({ pattern: '**/*.ts' }, { deniedPaths: [join(work, 'secret')] });
    expect(result.matches).toEqual(['src/a.ts', 'src/deep/c.ts']);
    const escaped = await createFsHarness({ workingDirectory: work, settings: { allowedPaths: [work] } }).run(
      'glob',
      {
        pattern: 'link-out/*.ts',
      },
    );
    expect(errorOf(escaped).code).toBe('permission_denied');
  });
});

describe('PATH-3 glob paths', () => {
  it('re-anchors matches from cwd to the working directory and echoes cwd as received', async () => {
    const result = await run({ pattern: '*.ts', cwd: 'src/deep' });
    expect(result).toMatchObject({ cwd: 'src/deep', matches: ['src/deep/c.ts'] });
  });

  it('reports absolute paths with the absolute setting, outside the working directory, and without one', async () => {
    expect((await run({ pattern: '*.md', cwd: 'docs' }, { absolute: true })).matches).toEqual([
      join(work, 'docs', 'readme.md'),
    ]);
    expect((await run({ pattern: '*.ts', cwd: join(root, 'outside') })).matches).toEqual([
      join(root, 'outside', 'o.ts'),
    ]);
    const chat = resultOf<GlobResult>(
      await createFsHarness({ mode: 'chat' }).run('glob', { pattern: '*.md', cwd: join(work, 'docs') }),
    );
    expect(chat.matches).toEqual([join(work, 'docs', 'readme.md')]);
  });
});

describe('PATH-1 glob modes', () => {
  it('falls back to the process cwd in chat mode', async () => {
    const chat = resultOf<GlobResult>(
      await createFsHarness({ workingDirectory: work, mode: 'chat' }).run('glob', {
        pattern: 'package.json',
      }),
    );
    expect(chat.cwd).toBe(process.cwd());
    expect(chat.matches).toEqual([join(process.cwd(), 'package.json')]);
  });

  it('uses the working directory in agent mode', async () => {
    expect((await run({ pattern: '*.txt' })).cwd).toBe(work);
  });
});
