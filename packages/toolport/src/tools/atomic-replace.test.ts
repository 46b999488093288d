import { link, mkdir, open, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFsHarness,
  makeTemporaryDirectory,
  removeDirectory,
  resultOf,
} from '../../test/support/fs-harness.ts';

let root: string;

beforeAll(async () => {
  root = await makeTemporaryDirectory('toolport-atomic-');
  await mkdir(join(root, 'w'));
});

afterAll(async () => {
  await removeDirectory(root);
});

/**
 * FS-2 "writes are atomic (temp file + rename)". A write in place would pass every content check, so this looks at
 * what only a rename does: the path gets a new inode, and whoever held the old one (an open descriptor, a hard link —
 * a reader mid-way, a crash-time view) still sees the complete old content, never a mix.
 */
describe.each([
  ['write_file', (path: string) => ({ path, content: 'new content, longer than the old one\n' })],
  ['edit_file', (path: string) => ({ path, oldString: 'old', newString: 'new content, longer than the' })],
] as const)('FS-2 %s replaces the file through a rename', (tool, argumentsFor) => {
  it('the path gets a new inode; an open descriptor and a hard link keep the old content whole', async () => {
    const work = join(root, 'w');
    const target = join(work, `${tool}.txt`);
    await writeFile(target, 'old one\n');
    await link(target, join(work, `${tool}.hardlink`));
    const before = await stat(target);
    const held = await open(target, 'r');
    try {
      const fs = createFsHarness({ workingDirectory: work, settings: { allowedPaths: [work] } });
      resultOf(await fs.run('read_file', { path: `${tool}.txt` }));
      resultOf(await fs.run(tool, argumentsFor(`${tool}.txt`)));

      expect(await readFile(target, 'utf8')).toContain('new content, longer than the');
      expect((await stat(target)).ino).not.toBe(before.ino);
      expect(await readFile(join(work, `${tool}.hardlink`), 'utf8')).toBe('old one\n');
      expect((await held.readFile()).toString('utf8')).toBe('old one\n');
    } finally {
      await held.close();
    }
  });
});
