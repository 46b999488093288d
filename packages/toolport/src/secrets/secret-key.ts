import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ToolportError } from '../core/errors.ts';
import type { ToolportLogger } from '../core/tool-types.ts';

export const SECRET_KEY_FILE_NAME = 'secret.key';

export interface LoadSecretKeyOptions {
  /** `TOOLPORT_SECRET_KEY`: 32 bytes as exact Base64, base64url or hex (SECRET_KEY_FORMATS_HELP). */
  environmentValue?: string | undefined;
  dataDirectory: string;
  logger?: ToolportLogger;
}

export interface LoadedSecretKey {
  key: Buffer;
  source: 'environment' | 'file' | 'generated';
  path?: string;
}

/**
 * SEC-1: the key comes from `TOOLPORT_SECRET_KEY`, else from `<data dir>/secret.key`, created on first start with mode
 * 0600. Several instances on one PostgreSQL database must share the key: set the variable on each.
 */
export function loadSecretKey(options: LoadSecretKeyOptions): LoadedSecretKey {
  const fromEnvironment = options.environmentValue?.trim();
  if (fromEnvironment !== undefined && fromEnvironment !== '') {
    return { key: decodeSecretKey(fromEnvironment, 'TOOLPORT_SECRET_KEY'), source: 'environment' };
  }
  const path = join(options.dataDirectory, SECRET_KEY_FILE_NAME);
  mkdirSync(options.dataDirectory, { recursive: true, mode: 0o700 });
  try {
    // 'wx' fails if the file exists, so two processes starting at once never overwrite each other's key.
    writeFileSync(path, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return { key: decodeSecretKey(readFileSync(path, 'utf8').trim(), path), source: 'generated', path };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const mode = statSync(path).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    options.logger?.warn(
      { path, mode: mode.toString(8) },
      'secret key file is readable by other users; chmod 600 it',
    );
  }
  return { key: decodeSecretKey(readFileSync(path, 'utf8').trim(), path), source: 'file', path };
}

const KEY_BYTES = 32;
/** What a key may look like, exactly: no junk, no whitespace inside (the ends are trimmed). */
const KEY_FORMATS: { name: string; pattern: RegExp; encoding: 'base64' | 'base64url' | 'hex' }[] = [
  { name: 'hex', pattern: /^[0-9a-fA-F]{64}$/, encoding: 'hex' },
  { name: 'base64', pattern: /^[A-Za-z0-9+/]{43}=$/, encoding: 'base64' },
  { name: 'base64url', pattern: /^[A-Za-z0-9_-]{43}=?$/, encoding: 'base64url' },
];
export const SECRET_KEY_FORMATS_HELP =
  '32 bytes as Base64 (44 characters ending in =), base64url (43 characters, = optional) or hex (64 characters), ' +
  'nothing else — generate one with: openssl rand -base64 32';

/**
 * SEC-1: strict decoding. Node's Base64 decoder skips characters it does not know, so a key with junk inserted
 * would decode to *some* 32 bytes; only an exact encoding whose re-encoding matches is accepted.
 */
export function decodeSecretKey(text: string, origin: string): Buffer {
  for (const format of KEY_FORMATS) {
    if (!format.pattern.test(text)) continue;
    const key = Buffer.from(text, format.encoding);
    const canonical = key.toString(format.encoding);
    const normalized =
      format.encoding === 'hex'
        ? text.toLowerCase()
        : format.encoding === 'base64url'
          ? text.replace(/=$/, '')
          : text;
    if (key.length === KEY_BYTES && canonical === normalized) return key;
  }
  throw new ToolportError(
    'bad_request',
    `The secret key from ${origin} is not a valid key (received ${text.length} characters). It must be ${SECRET_KEY_FORMATS_HELP}.`,
  );
}
