import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSecretKey, SECRET_KEY_FILE_NAME } from './secret-key.ts';

describe('SEC-1 secret key', () => {
  const directories: string[] = [];
  const temp = () => {
    const directory = mkdtempSync(join(tmpdir(), 'toolport-key-'));
    directories.push(directory);
    return directory;
  };
  afterEach(() => {
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  it('prefers TOOLPORT_SECRET_KEY (base64 or hex) and writes no file', () => {
    const directory = temp();
    const key = randomBytes(32);
    expect(loadSecretKey({ environmentValue: key.toString('base64'), dataDirectory: directory }).key).toEqual(
      key,
    );
    expect(loadSecretKey({ environmentValue: key.toString('hex'), dataDirectory: directory }).key).toEqual(
      key,
    );
    expect(() => statSync(join(directory, SECRET_KEY_FILE_NAME))).toThrow();
    expect(() => loadSecretKey({ environmentValue: 'too-short', dataDirectory: directory })).toThrow(
      /32 bytes/,
    );
  });

  it('generates a 0600 key file once and reuses it', () => {
    const directory = join(temp(), 'nested');
    const first = loadSecretKey({ dataDirectory: directory });
    expect(first.source).toBe('generated');
    expect(statSync(first.path!).mode & 0o777).toBe(0o600);
    const second = loadSecretKey({ dataDirectory: directory });
    expect(second).toMatchObject({ source: 'file' });
    expect(second.key).toEqual(first.key);
  });

  it('warns about a key file other users can read', () => {
    const directory = temp();
    const path = join(directory, SECRET_KEY_FILE_NAME);
    writeFileSync(path, randomBytes(32).toString('base64'));
    chmodSync(path, 0o644);
    const warnings: string[] = [];
    const ignore = () => {};
    loadSecretKey({
      dataDirectory: directory,
      logger: {
        debug: ignore,
        info: ignore,
        error: ignore,
        warn: (_object, message) => warnings.push(message ?? ''),
      },
    });
    expect(warnings.join('')).toMatch(/chmod 600/);
    expect(readFileSync(path, 'utf8')).not.toBe('');
  });
});
