import { chmod, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFsHarness,
  errorOf,
  makeTemporaryDirectory,
  removeDirectory,
  resultOf,
} from '../../test/support/fs-harness.ts';
import type { WriteFileResult } from './write-file.ts';

let root: string;
let work: string;

beforeAll(async () => {
  root = await makeTemporaryDirectory('toolport-write-');
  work = join(root, 'w');
  await mkdir(join(root, 'outside'), { recursive: true });
  await mkdir(work);
  await symlink(join(root, 'outside'), join(work, 'link-out'));
  await symlink(join(root, 'outside', 'planted.txt'), join(work, 'dangling'));
});

afterAll(async () => {
  await removeDirectory(root);
});

describe('FS-2 write_file', () => {
  const restricted = () => createFsHarness({ workingDirectory: work, settings: { allowedPaths: [work] } });

  it('creates a new file and its missing parent directories without a prior read', async () => {
    const fs = restricted();
    const result = resultOf<WriteFileResult>(
      await fs.run('write_file', { path: 'a/b/new.txt', content: 'hello\n' }),
    );
    expect(result).toMatchObject({ created: true, bytesWritten: 6, path: join(work, 'a', 'b', 'new.txt') });
    expect(await readFile(join(work, 'a', 'b', 'new.txt'), 'utf8')).toBe('hello\n');
    expect(await fs.ledger.getRecordedHash('chat:chat-1', result.path)).toBe(result.sha256);
  });

  it('refuses to overwrite a file this chat has not read, and allows it after a read', async () => {
    await writeFile(join(work, 'existing.txt'), 'original');
    const fs = restricted();
    const refused = errorOf(await fs.run('write_file', { path: 'existing.txt', content: 'new' }));
    expect(refused.code).toBe('conflict');
    expect(refused.message).toContain('read_file');
    expect(await readFile(join(work, 'existing.txt'), 'utf8')).toBe('original');
    resultOf(await fs.run('read_file', { path: 'existing.txt' }));
    const written = resultOf<WriteFileResult>(
      await fs.run('write_file', { path: 'existing.txt', content: 'new' }),
    );
    expect(written.created).toBe(false);
    expect(await readFile(join(work, 'existing.txt'), 'utf8')).toBe('new');
  });

  it('refuses a file that changed on disk since it was read (hash compared at write time)', async () => {
    await writeFile(join(work, 'changing.txt'), 'v1');
    const fs = restricted();
    resultOf(await fs.run('read_file', { path: 'changing.txt' }));
    await writeFile(join(work, 'changing.txt'), 'v2 by someone else');
    const refused = errorOf(await fs.run('write_file', { path: 'changing.txt', content: 'mine' }));
    expect(refused.code).toBe('conflict');
    expect(refused.message).toContain('changed on disk');
    expect(await readFile(join(work, 'changing.txt'), 'utf8')).toBe('v2 by someone else');
  });

  it('keeps the read scoped to the chat that read it', async () => {
    await writeFile(join(work, 'scoped.txt'), 'x');
    const fs = restricted();
    resultOf(await fs.run('read_file', { path: 'scoped.txt' }));
    expect(
      errorOf(await fs.run('write_file', { path: 'scoped.txt', content: 'y' }, { chatId: 'other' })).code,
    ).toBe('conflict');
  });

  it('lets consecutive writes proceed (the new hash is recorded)', async () => {
    const fs = restricted();
    resultOf(await fs.run('write_file', { path: 'twice.txt', content: 'one' }));
    resultOf(await fs.run('write_file', { path: 'twice.txt', content: 'two' }));
    expect(await readFile(join(work, 'twice.txt'), 'utf8')).toBe('two');
  });

  it('makes a binary file writable after a byte-view read', async () => {
    await writeFile(join(work, 'blob.bin'), Buffer.from([0, 1, 2, 3]));
    const fs = restricted();
    expect(errorOf(await fs.run('read_file', { path: 'blob.bin' })).code).toBe('validation_failed');
    expect(errorOf(await fs.run('write_file', { path: 'blob.bin', content: 'text' })).code).toBe('conflict');
    resultOf(await fs.run('read_file', { path: 'blob.bin', view: 'base64' }));
    resultOf(await fs.run('write_file', { path: 'blob.bin', content: 'text' }));
    expect(await readFile(join(work, 'blob.bin'), 'utf8')).toBe('text');
  });

  it.skipIf(process.platform === 'win32')('preserves the mode of an overwritten file', async () => {
    await writeFile(join(work, 'script.sh'), '#!/bin/sh\n');
    await chmod(join(work, 'script.sh'), 0o751);
    const fs = restricted();
    resultOf(await fs.run('read_file', { path: 'script.sh' }));
    resultOf(await fs.run('write_file', { path: 'script.sh', content: '#!/bin/sh\necho hi\n' }));
    expect((await stat(join(work, 'script.sh'))).mode & 0o7777).toBe(0o751);
  });

  it('writes atomically through a temporary file that never stays behind', async () => {
    const fs = restricted();
    resultOf(await fs.run('write_file', { path: 'atomic/file.txt', content: 'x'.repeat(100_000) }));
    expect(await readdir(join(work, 'atomic'))).toEqual(['file.txt']);
  });

  it('refuses to write through a symlink that points out, or a dangling one, creating nothing', async () => {
    const fs = restricted();
    expect(errorOf(await fs.run('write_file', { path: 'link-out/x/evil.txt', content: 'x' })).code).toBe(
      'permission_denied',
    );
    expect(errorOf(await fs.run('write_file', { path: 'dangling', content: 'x' })).code).toBe(
      'permission_denied',
    );
    expect(await readdir(join(root, 'outside'))).toEqual([]);
  });

  it('creates a file through a symlink inside the root at the link target', async () => {
    await mkdir(join(work, 'real-dir'), { recursive: true });
    await symlink('real-dir', join(work, 'link-in'));
    const result = resultOf<WriteFileResult>(
      await restricted().run('write_file', { path: 'link-in/through.txt', content: 'x' }),
    );
    expect(result.path).toBe(join(work, 'real-dir', 'through.txt'));
    expect(await readFile(join(work, 'real-dir', 'through.txt'), 'utf8')).toBe('x');
  });

  it('creates parent directories only inside the allowed roots', async () => {
    const fs = createFsHarness({
      workingDirectory: work,
      settings: { allowedPaths: [join(work, 'p', 'q')] },
    });
    // The allowed root p/q does not exist yet: creating p would create a directory outside it.
    expect(errorOf(await fs.run('write_file', { path: 'p/q/file.txt', content: 'x' })).code).toBe(
      'permission_denied',
    );
    await expect(stat(join(work, 'p'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses to write a directory', async () => {
    await mkdir(join(work, 'a-dir'), { recursive: true });
    expect(errorOf(await restricted().run('write_file', { path: 'a-dir', content: 'x' })).message).toContain(
      'directory',
    );
  });
});
