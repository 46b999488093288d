import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFsHarness,
  errorOf,
  makeTemporaryDirectory,
  removeDirectory,
  resultOf,
} from '../../test/support/fs-harness.ts';
import type { EditFileResult } from './edit-file.ts';

let work: string;

beforeAll(async () => {
  work = await makeTemporaryDirectory('toolport-edit-');
});

afterAll(async () => {
  await removeDirectory(work);
});

async function prepared(name: string, content: string) {
  await writeFile(join(work, name), content);
  const fs = createFsHarness({ workingDirectory: work });
  resultOf(await fs.run('read_file', { path: name }));
  return fs;
}

describe('FS-2b edit_file', () => {
  it('replaces a unique occurrence and records the new hash', async () => {
    const fs = await prepared('a.ts', 'const a = 1;\nconst b = 2;\n');
    const result = resultOf<EditFileResult>(
      await fs.run('edit_file', { path: 'a.ts', oldString: 'const b = 2;', newString: 'const b = 3;' }),
    );
    expect(result.replacements).toBe(1);
    expect(await readFile(join(work, 'a.ts'), 'utf8')).toBe('const a = 1;\nconst b = 3;\n');
    expect(await fs.ledger.getRecordedHash('chat:chat-1', join(work, 'a.ts'))).toBe(result.sha256);
    // A second edit needs no new read: the edit recorded the hash it wrote.
    resultOf(await fs.run('edit_file', { path: 'a.ts', oldString: 'const a', newString: 'let a' }));
  });

  it('fails clearly when oldString is absent', async () => {
    const fs = await prepared('b.ts', 'hello\n');
    const error = errorOf(await fs.run('edit_file', { path: 'b.ts', oldString: 'bye', newString: 'x' }));
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('not found');
  });

  it('fails clearly when oldString is ambiguous, and replaces all with replaceAll', async () => {
    const fs = await prepared('c.ts', 'x x x\n');
    const error = errorOf(await fs.run('edit_file', { path: 'c.ts', oldString: 'x', newString: 'y' }));
    expect(error.message).toContain('3 times');
    expect(await readFile(join(work, 'c.ts'), 'utf8')).toBe('x x x\n');
    const result = resultOf<EditFileResult>(
      await fs.run('edit_file', { path: 'c.ts', oldString: 'x', newString: 'y', replaceAll: true }),
    );
    expect(result.replacements).toBe(3);
    expect(await readFile(join(work, 'c.ts'), 'utf8')).toBe('y y y\n');
  });

  it('keeps $ patterns in newString literal', async () => {
    const fs = await prepared('d.ts', 'price\n');
    resultOf(await fs.run('edit_file', { path: 'd.ts', oldString: 'price', newString: "$& $1 $$'" }));
    expect(await readFile(join(work, 'd.ts'), 'utf8')).toBe("$& $1 $$'\n");
  });

  it('applies the same freshness guard as write_file', async () => {
    await writeFile(join(work, 'e.ts'), 'one\n');
    const fs = createFsHarness({ workingDirectory: work });
    expect(
      errorOf(await fs.run('edit_file', { path: 'e.ts', oldString: 'one', newString: 'two' })).code,
    ).toBe('conflict');
    resultOf(await fs.run('read_file', { path: 'e.ts' }));
    await writeFile(join(work, 'e.ts'), 'one changed\n');
    const stale = errorOf(await fs.run('edit_file', { path: 'e.ts', oldString: 'one', newString: 'two' }));
    expect(stale.code).toBe('conflict');
    expect(await readFile(join(work, 'e.ts'), 'utf8')).toBe('one changed\n');
  });

  it('refuses an empty oldString, a no-op edit, and a missing file', async () => {
    const fs = await prepared('f.ts', 'z\n');
    expect(errorOf(await fs.run('edit_file', { path: 'f.ts', oldString: '', newString: 'x' })).code).toBe(
      'validation_failed',
    );
    expect(errorOf(await fs.run('edit_file', { path: 'f.ts', oldString: 'z', newString: 'z' })).code).toBe(
      'validation_failed',
    );
    expect(errorOf(await fs.run('edit_file', { path: 'nope.ts', oldString: 'a', newString: 'b' })).code).toBe(
      'not_found',
    );
  });
});
