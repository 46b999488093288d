import { execFileSync } from 'node:child_process';
import { mkdir, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import {
  createFsHarness,
  errorOf,
  makeTemporaryDirectory,
  removeDirectory,
  resultOf,
} from '../../test/support/fs-harness.ts';
import { readCappedFile } from '../fs/read-capped-file.ts';
import { createPathPolicy } from '../fs/resolve-and-validate-path.ts';
import {
  BYTE_VIEW_CAP_BYTES,
  MAX_LINE_CHARACTERS,
  TEXT_VIEW_CAP_BYTES,
  formatTextWindow,
  type ReadFileResult,
} from './read-file.ts';

let work: string;
const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

beforeAll(async () => {
  work = await makeTemporaryDirectory('toolport-read-');
  await writeFile(
    join(work, 'lines.txt'),
    Array.from({ length: 30 }, (_, index) => `line ${index + 1}`).join('\n') + '\n',
  );
  await writeFile(join(work, 'binary.bin'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]));
  await writeFile(join(work, 'late-nul.txt'), Buffer.concat([Buffer.alloc(9000, 'a'), Buffer.from([0])]));
  await writeFile(join(work, 'big.bin'), Buffer.alloc(BYTE_VIEW_CAP_BYTES + 1, 1));
  await writeFile(join(work, 'long-line.txt'), 'x'.repeat(MAX_LINE_CHARACTERS + 500) + '\nshort\n');
  await writeFile(join(work, 'crlf.txt'), 'a\r\nb\r\n');
  await writeFile(join(work, 'empty.txt'), '');
  await mkdir(join(work, 'dir'));
});

afterAll(async () => {
  await removeDirectory(work);
});

describe('FS-1 read_file text window', () => {
  it('counts lines with and without a final newline, keeps empty lines, and windows the end', () => {
    expect(formatTextWindow(Buffer.from('a\nb'), 1, 10)).toMatchObject({
      totalLines: 2,
      content: '     1\ta\n     2\tb',
    });
    expect(formatTextWindow(Buffer.from('a\n\nc\n'), 2, 10)).toMatchObject({
      totalLines: 3,
      startLine: 2,
      endLine: 3,
      content: '     2\t\n     3\tc',
      truncated: false,
    });
    expect(formatTextWindow(Buffer.from('\n'), 1, 1)).toMatchObject({ totalLines: 1, content: '     1\t' });
    expect(formatTextWindow(Buffer.from('x\ny\nz'), 3, 5)).toMatchObject({
      endLine: 3,
      content: '     3\tz',
    });
  });
});

describe('FS-1 read_file', () => {
  const harness = () => createFsHarness({ workingDirectory: work });

  it('returns cat -n numbered lines with size, whole-file sha256 and the window', async () => {
    const result = resultOf<ReadFileResult>(await harness().run('read_file', { path: 'lines.txt' }));
    expect(result.content.split('\n')[0]).toBe('     1\tline 1');
    expect(result).toMatchObject({
      totalLines: 30,
      startLine: 1,
      endLine: 30,
      truncated: false,
      path: join(work, 'lines.txt'),
    });
    expect(result.view).toBeUndefined();
  });

  it('reads a window and records the sha256 of the whole file, with a notice to continue', async () => {
    const fs = harness();
    const result = resultOf<ReadFileResult>(
      await fs.run('read_file', { path: 'lines.txt', startLine: 5, maxLines: 3 }),
    );
    expect(result.content).toBe('     5\tline 5\n     6\tline 6\n     7\tline 7');
    expect(result).toMatchObject({ startLine: 5, endLine: 7, totalLines: 30, truncated: true });
    expect(result.notice).toContain('startLine: 8');
    const whole = sha256(Array.from({ length: 30 }, (_, index) => `line ${index + 1}`).join('\n') + '\n');
    expect(result.sha256).toBe(whole);
    expect(await fs.ledger.getRecordedHash('chat:chat-1', join(work, 'lines.txt'))).toBe(whole);
  });

  it('rejects maxLines above 5000 and startLine past the end', async () => {
    expect(errorOf(await harness().run('read_file', { path: 'lines.txt', maxLines: 5001 })).code).toBe(
      'validation_failed',
    );
    const past = errorOf(await harness().run('read_file', { path: 'lines.txt', startLine: 31 }));
    expect(past.message).toContain('30 line');
  });

  it('cuts very long lines and says so', async () => {
    const result = resultOf<ReadFileResult>(await harness().run('read_file', { path: 'long-line.txt' }));
    expect(result.truncated).toBe(true);
    expect(result.notice).toContain('cut');
    expect(result.content).toContain('     2\tshort');
  });

  it('strips the CR of CRLF line endings from the display only', async () => {
    const result = resultOf<ReadFileResult>(await harness().run('read_file', { path: 'crlf.txt' }));
    expect(result.content).toBe('     1\ta\n     2\tb');
    expect(result.sha256).toBe(sha256('a\r\nb\r\n'));
  });

  it('reads an empty file', async () => {
    const result = resultOf<ReadFileResult>(await harness().run('read_file', { path: 'empty.txt' }));
    expect(result).toMatchObject({ content: '', totalLines: 0, size: 0, truncated: false });
  });

  it('refuses a file with a NUL byte in its first 8 KiB and names the byte views', async () => {
    const error = errorOf(await harness().run('read_file', { path: 'binary.bin' }));
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('"hex"');
    expect(error.message).toContain('"base64"');
  });

  it('uses the 8 KiB window: a NUL byte after it does not make the file binary', async () => {
    const result = resultOf<ReadFileResult>(await harness().run('read_file', { path: 'late-nul.txt' }));
    expect(result.totalLines).toBe(1);
  });

  it('returns the whole file in the hex and base64 views, with no line structure', async () => {
    const hex = resultOf<ReadFileResult>(
      await harness().run('read_file', { path: 'binary.bin', view: 'hex' }),
    );
    expect(hex).toMatchObject({
      content: '89504e47000102',
      totalLines: 0,
      view: 'hex',
      size: 7,
      truncated: false,
    });
    const base64 = resultOf<ReadFileResult>(
      await harness().run('read_file', { path: 'binary.bin', view: 'base64' }),
    );
    expect(Buffer.from(base64.content, 'base64')).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]),
    );
  });

  it('rejects startLine and maxLines with a byte view instead of dropping them', async () => {
    for (const extra of [{ startLine: 1 }, { maxLines: 10 }]) {
      const error = errorOf(await harness().run('read_file', { path: 'binary.bin', view: 'hex', ...extra }));
      expect(error.code).toBe('validation_failed');
      expect(error.message).toContain(Object.keys(extra)[0]!);
    }
  });

  it('delivers a byte view of a file at the cap whole, past the default result cap of CORE-7', async () => {
    await writeFile(join(work, 'at-cap.bin'), Buffer.alloc(BYTE_VIEW_CAP_BYTES, 0xab));
    const outcome = await harness().run('read_file', { path: 'at-cap.bin', view: 'hex' });
    const result = resultOf<ReadFileResult>(outcome);
    expect(result.content).toHaveLength(2 * BYTE_VIEW_CAP_BYTES);
    expect(outcome.ok && outcome.truncated).toBe(false);
    expect(outcome.output).toContain(result.content);
  });

  it('refuses a file over the 10 MiB text cap instead of truncating it, even for a small window', async () => {
    await writeFile(join(work, 'huge.txt'), Buffer.alloc(TEXT_VIEW_CAP_BYTES + 1, 'a'));
    const error = errorOf(await harness().run('read_file', { path: 'huge.txt', maxLines: 1 }));
    expect(error.message).toContain('10 MiB');
    expect(error.message).toContain('grep');
  });

  it('refuses a file over the 256 KiB byte-view cap instead of truncating it', async () => {
    const error = errorOf(await harness().run('read_file', { path: 'big.bin', view: 'base64' }));
    expect(error.code).toBe('execution_failed');
    expect(error.message).toContain('256 KiB');
  });

  it('records freshness for a byte view exactly like a text read', async () => {
    const fs = harness();
    const result = resultOf<ReadFileResult>(await fs.run('read_file', { path: 'binary.bin', view: 'hex' }));
    expect(await fs.ledger.getRecordedHash('chat:chat-1', join(work, 'binary.bin'))).toBe(result.sha256);
  });

  it('refuses a directory, a missing file and a path outside the allowed paths', async () => {
    expect(errorOf(await harness().run('read_file', { path: 'dir' })).message).toContain('list_directory');
    expect(errorOf(await harness().run('read_file', { path: 'nope.txt' })).code).toBe('not_found');
    const denied = createFsHarness({
      workingDirectory: work,
      settings: { allowedPaths: [join(work, 'dir')] },
    });
    expect(errorOf(await denied.run('read_file', { path: 'lines.txt' })).code).toBe('permission_denied');
  });

  it.skipIf(process.platform === 'win32')('refuses a FIFO without blocking on it', async () => {
    execFileSync('mkfifo', [join(work, 'pipe')]);
    const error = errorOf(await harness().run('read_file', { path: 'pipe' }));
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('FIFO');
  });

  it.skipIf(process.platform !== 'linux')('refuses a character device (an endless /dev/zero)', async () => {
    await symlink('/dev/zero', join(work, 'zero'));
    const error = errorOf(await harness().run('read_file', { path: 'zero', view: 'hex' }));
    expect(error.message).toContain('character device');
  });

  it.skipIf(process.platform !== 'linux')(
    'caps the bytes the descriptor delivers, not the size stat declares (/proc under-declares)',
    async () => {
      const policy = await createPathPolicy({ mode: 'chat' });
      // /proc/self/maps is a regular file whose stat size is 0 while it delivers kilobytes.
      await expect(
        readCappedFile('/proc/self/maps', {
          capBytes: 64,
          capDescription: 'the test cap',
          policy,
          displayPath: 'maps',
        }),
      ).rejects.toMatchObject({ code: 'execution_failed', details: { reason: 'too_large', capBytes: 64 } });
      const whole = await readCappedFile('/proc/self/maps', {
        capBytes: 10 * 1024 * 1024,
        capDescription: 'the test cap',
        policy,
        displayPath: 'maps',
      });
      expect(whole.size).toBeGreaterThan(64);
    },
  );

  it.skipIf(process.platform !== 'linux')(
    'refuses a file that a writer keeps growing, at the cap, not past it',
    async () => {
      // A writer appends continuously; whatever stat said at the start, the read stops one byte past the cap.
      const growing = join(work, 'growing.log');
      await writeFile(growing, 'start\n');
      const { spawn } = await import('node:child_process');
      const writer = spawn('sh', ['-c', `while :; do printf '%01024d\\n' 0 >> "${growing}"; done`], {
        stdio: 'ignore',
      });
      try {
        const policy = await createPathPolicy({ mode: 'chat' });
        // Wait until the writer is surely past the cap (polling, not sleeping a guessed time).
        while ((await stat(growing)).size < 8192) await new Promise((resolve) => setTimeout(resolve, 20));
        await expect(
          readCappedFile(growing, {
            capBytes: 4096,
            capDescription: 'the test cap',
            policy,
            displayPath: 'growing.log',
          }),
        ).rejects.toMatchObject({ details: { reason: 'too_large' } });
      } finally {
        writer.kill('SIGKILL');
      }
    },
  );
});
