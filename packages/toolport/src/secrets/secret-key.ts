import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ToolportError } from '../core/errors.ts';
import type { ToolportLogger } from '../core/tool-types.ts';

export const SECRET_KEY_FILE_NAME = 'secret.key';

export interface LoadSecretKeyOptions {
  /** `TOOLPORT_SECRET_KEY`: 32 bytes as base64/base64url (44/43 characters) or hex (64 characters). */
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
    return { key: decodeKey(fromEnvironment, 'TOOLPORT_SECRET_KEY'), source: 'environment' };
  }
  const path = join(options.dataDirectory, SECRET_KEY_FILE_NAME);
  mkdirSync(options.dataDirectory, { recursive: true, mode: 0o700 });
  try {
    // 'wx' fails if the file exists, so two processes starting at once never overwrite each other's key.
    writeFileSync(path, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return { key: decodeKey(readFileSync(path, 'utf8').trim(), path), source: 'generated', path };
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
  return { key: decodeKey(readFileSync(path, 'utf8').trim(), path), source: 'file', path };
}

function decodeKey(text: string, origin: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32) {
    throw new ToolportError(
      'bad_request',
      `The secret key from ${origin} must be 32 bytes (base64 or 64 hex characters); it decodes to ${key.length} bytes. ` +
        'Generate one with: openssl rand -base64 32',
    );
  }
  return key;
}
