import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFsHarness,
  makeTemporaryDirectory,
  removeDirectory,
  resultOf,
} from '../../test/support/fs-harness.ts';
import type { GlobResult } from '../tools/glob.ts';
import type { GrepResult } from '../tools/grep.ts';
import { closeScanWorkers } from './scan-pool.ts';

let repository: string;

beforeAll(async () => {
  repository = await makeTemporaryDirectory('toolport-gitignore-');
  for (const directory of ['.git', 'build', 'logs', 'pkg/src/generated', 'pkg/sub', 'node_modules/dep']) {
    await mkdir(join(repository, directory), { recursive: true });
  }
  await writeFile(
    join(repository, '.gitignore'),
    'build/\n*.log\n!keep.log\nnode_modules/\npkg/src/generated/\n',
  );
  await writeFile(join(repository, 'pkg', 'sub', '.gitignore'), 'local-secret.txt\n');
  const files = [
    'a.txt',
    'build/out.txt',
    'logs/drop.log',
    'logs/keep.log',
    'pkg/src/main.txt',
    'pkg/src/generated/gen.txt',
    'pkg/sub/local-secret.txt',
    'pkg/sub/fine.txt',
    'node_modules/dep/index.txt',
    '.git/config.txt',
  ];
  for (const file of files) await writeFile(join(repository, file), 'needle\n');
});

afterAll(async () => {
  await closeScanWorkers();
  await removeDirectory(repository);
});

const grepFiles = async (path: string, settings: Record<string, unknown>): Promise<string[]> =>
  resultOf<GrepResult>(
    await createFsHarness({ workingDirectory: repository, settings }).run('grep', {
      pattern: 'needle',
      path,
    }),
  ).matches.map((match) => match.file);

describe('FS-5 grep respectGitignore', () => {
  it('searches everything but dotfiles by default (the seed walk reads no ignore files)', async () => {
    expect(await grepFiles('.', {})).toContain('build/out.txt');
  });

  it('skips what the .gitignore files ignore, with negation and nested files, and never enters .git', async () => {
    const files = await grepFiles('.', { respectGitignore: true, includeDotfiles: true });
    expect(files).toEqual(['a.txt', 'logs/keep.log', 'pkg/src/main.txt', 'pkg/sub/fine.txt']);
  });

  it('applies the repository rules above the search root', async () => {
    expect(await grepFiles('pkg/src', { respectGitignore: true })).toEqual(['pkg/src/main.txt']);
  });

  it('searches a root the repository ignores when it is named explicitly', async () => {
    expect(await grepFiles('node_modules/dep', { respectGitignore: true })).toEqual([
      'node_modules/dep/index.txt',
    ]);
  });
});

describe('FS-4 glob respectGitignore', () => {
  it('skips ignored paths', async () => {
    const result = resultOf<GlobResult>(
      await createFsHarness({ workingDirectory: repository, settings: { respectGitignore: true } }).run(
        'glob',
        {
          pattern: '**/*.txt',
        },
      ),
    );
    expect(result.matches).toEqual(['a.txt', 'pkg/src/main.txt', 'pkg/sub/fine.txt']);
  });
});
