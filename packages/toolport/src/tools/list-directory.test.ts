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
import type { ListDirectoryResult } from './list-directory.ts';

let work: string;

beforeAll(async () => {
  work = await makeTemporaryDirectory('toolport-list-');
  await mkdir(join(work, 'src'));
  await mkdir(join(work, 'secret'));
  await writeFile(join(work, 'b.txt'), 'b');
  await writeFile(join(work, '.hidden'), 'h');
  await symlink('b.txt', join(work, 'link'));
});

afterAll(async () => {
  await removeDirectory(work);
});

describe('FS-3 list_directory', () => {
  it('lists entries with their type, sorted by name', async () => {
    const fs = createFsHarness({ workingDirectory: work });
    const result = resultOf<ListDirectoryResult>(await fs.run('list_directory', { path: '.' }));
    expect(result.path).toBe(work);
    expect(result.entries).toEqual([
      { name: '.hidden', type: 'file' },
      { name: 'b.txt', type: 'file' },
      { name: 'link', type: 'symlink' },
      { name: 'secret', type: 'directory' },
      { name: 'src', type: 'directory' },
    ]);
    expect(result.truncated).toBe(false);
  });

  it('hides a denied subtree and refuses listing inside it', async () => {
    const fs = createFsHarness({ workingDirectory: work, settings: { deniedPaths: [join(work, 'secret')] } });
    const result = resultOf<ListDirectoryResult>(await fs.run('list_directory', { path: '.' }));
    expect(result.entries.map((entry) => entry.name)).not.toContain('secret');
    expect(errorOf(await fs.run('list_directory', { path: 'secret' })).code).toBe('permission_denied');
  });

  it('refuses a file and a missing directory', async () => {
    const fs = createFsHarness({ workingDirectory: work });
    expect(errorOf(await fs.run('list_directory', { path: 'b.txt' })).code).toBe('validation_failed');
    expect(errorOf(await fs.run('list_directory', { path: 'nope' })).code).toBe('not_found');
  });
});

describe('PATH-1 list_directory modes', () => {
  it('lists the working directory when path is omitted in agent mode', async () => {
    const fs = createFsHarness({ workingDirectory: work, mode: 'agent' });
    expect(resultOf<ListDirectoryResult>(await fs.run('list_directory', {})).path).toBe(work);
  });

  it('requires an explicit path in chat mode, even when a working directory is bound', async () => {
    const fs = createFsHarness({ workingDirectory: work, mode: 'chat' });
    const error = errorOf(await fs.run('list_directory', {}));
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('required');
    expect(resultOf<ListDirectoryResult>(await fs.run('list_directory', { path: work })).path).toBe(work);
  });

  it('rejects a path of the wrong type instead of listing the working directory', async () => {
    const fs = createFsHarness({ workingDirectory: work, mode: 'agent' });
    expect(errorOf(await fs.run('list_directory', { path: 42 })).code).toBe('validation_failed');
  });
});
