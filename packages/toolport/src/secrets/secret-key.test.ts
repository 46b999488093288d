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

  it('accepts exact base64url (with or without =), and surrounding whitespace', () => {
    const directory = temp();
    const key = randomBytes(32);
    for (const text of [
      key.toString('base64url'),
      `${key.toString('base64url')}=`,
      ` ${key.toString('base64')}\n`,
    ]) {
      expect(loadSecretKey({ environmentValue: text, dataDirectory: directory }).key).toEqual(key);
    }
  });

  it('refuses junk inserted into valid Base64, whitespace inside, a wrong length or non-canonical padding bits', () => {
    const directory = temp();
    const base64 = randomBytes(32).toString('base64');
    const hex = randomBytes(32).toString('hex');
    // 32 bytes leave the 43rd character's two low bits unused: B (000001) sets one, which Node ignores.
    const lastBitsSet = `${base64.slice(0, 42)}B=`;
    for (const text of [
      `${base64.slice(0, 10)}!!${base64.slice(10)}`,
      `${base64.slice(0, 10)} ${base64.slice(10)}`,
      `${base64.slice(0, 20)}\n${base64.slice(20)}`,
      `${base64}${base64}`,
      base64.slice(0, 40),
      `${hex.slice(0, 30)}zz${hex.slice(32)}`,
      `${hex}00`,
      lastBitsSet,
    ]) {
      expect(() => loadSecretKey({ environmentValue: text, dataDirectory: directory }), text).toThrow(
        /Base64 \(44 characters ending in =\), base64url .* or hex \(64 characters\)/,
      );
    }
  });

  it('refuses a key file with junk in it, saying which file', () => {
    const directory = temp();
    const key = randomBytes(32).toString('base64');
    writeFileSync(join(directory, SECRET_KEY_FILE_NAME), `${key.slice(0, 5)}#${key.slice(5)}\n`, {
      mode: 0o600,
    });
    expect(() => loadSecretKey({ dataDirectory: directory })).toThrow(new RegExp(SECRET_KEY_FILE_NAME));
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
