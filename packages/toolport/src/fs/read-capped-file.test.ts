import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTemporaryDirectory, removeDirectory } from '../../test/support/fs-harness.ts';
import { useCappedFile, type ReadCappedFileOptions } from './read-capped-file.ts';
import { createPathPolicy, type PathPolicy } from './resolve-and-validate-path.ts';

// Issue 11 item 3: a large file is read into a buffer shared between calls, and its line feeds are counted chunk by
// chunk while it is read. Neither may leak one read's bytes into another's result.
let work: string;
let policy: PathPolicy;
const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');
const lineFeedsOf = (data: Buffer): number => data.toString('latin1').split('\n').length - 1;

/** A file whose every byte depends on its seed and position, with a line feed density of its own. */
function content(size: number, seed: number): Buffer {
  const bytes = Buffer.allocUnsafe(size);
  for (let index = 0; index < size; index += 1) {
    const value = (index * 31 + seed * 17) % 251;
    bytes[index] = value % (seed + 7) === 0 ? 0x0a : 0x20 + (value % 90);
  }
  return bytes;
}

const options = (): ReadCappedFileOptions => ({
  capBytes: 10 * 1024 * 1024,
  capDescription: 'the test cap',
  policy,
  displayPath: 'file',
  countLineFeeds: true,
});
const snapshot = (file: { bytes: Buffer; sha256: string; size: number; lineFeeds?: number }) => ({
  sha256: file.sha256,
  bytesHash: sha256(file.bytes),
  size: file.size,
  lineFeeds: file.lineFeeds,
});

beforeAll(async () => {
  work = await makeTemporaryDirectory('toolport-capped-');
  policy = await createPathPolicy({ mode: 'chat' });
});
afterAll(async () => {
  await removeDirectory(work);
});

describe('FS-1 useCappedFile', () => {
  it('gives each read exactly its own bytes, hash and line feeds, sequentially and concurrently', async () => {
    // Larger first, then smaller: a reused buffer longer than the file must not show the previous file's tail.
    const sizes = [
      3 * 1024 * 1024 + 5,
      2 * 1024 * 1024 + 1,
      1024 * 1024,
      1024 * 1024 + 77,
      9 * 1024 * 1024 + 3,
    ];
    const files = await Promise.all(
      sizes.map(async (size, seed) => {
        const data = content(size, seed);
        const path = join(work, `file-${seed}.txt`);
        await writeFile(path, data);
        return {
          path,
          expected: { sha256: sha256(data), bytesHash: sha256(data), size, lineFeeds: lineFeedsOf(data) },
        };
      }),
    );
    for (const file of files)
      expect(await useCappedFile(file.path, options(), snapshot)).toEqual(file.expected);
    const together = await Promise.all(files.map((file) => useCappedFile(file.path, options(), snapshot)));
    expect(together).toEqual(files.map((file) => file.expected));
  });

  it('still serves correct bytes after a refused read borrowed the buffer', async () => {
    const tooLarge = join(work, 'too-large.txt');
    await writeFile(tooLarge, content(3 * 1024 * 1024, 9));
    await expect(
      useCappedFile(tooLarge, { ...options(), capBytes: 2 * 1024 * 1024 }, snapshot),
    ).rejects.toMatchObject({ details: { reason: 'too_large' } });
    const data = content(2 * 1024 * 1024 - 3, 4);
    const path = join(work, 'after-refusal.txt');
    await writeFile(path, data);
    expect(await useCappedFile(path, options(), snapshot)).toEqual({
      sha256: sha256(data),
      bytesHash: sha256(data),
      size: data.length,
      lineFeeds: lineFeedsOf(data),
    });
  });
});
