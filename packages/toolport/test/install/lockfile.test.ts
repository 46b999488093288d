import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPOSITORY_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

interface LockEntry {
  hasInstallScript?: boolean;
  optional?: boolean;
}

/*
 * A fresh clone's `npm install` must leave package-lock.json byte-identical. npm records `hasInstallScript` for a
 * package with a binding.gyp (an implicit `node-gyp rebuild`, denied by `allowScripts` here) only when it extracts the
 * package; a lockfile last written from an existing node_modules (its hidden lockfile) or lock-only loses the flag,
 * and the next fresh install adds it back as a diff. This compares the lockfile with what a full install writes.
 */
describe('install: the lockfile is what a fresh npm install writes', () => {
  const lock = JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };

  it('marks every installed package with a binding.gyp as having an install script', () => {
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      if (!path.startsWith('node_modules/') && !path.includes('/node_modules/')) continue;
      const directory = join(REPOSITORY_ROOT, path);
      if (!existsSync(join(directory, 'binding.gyp'))) continue;
      if (entry.hasInstallScript !== true) missing.push(path);
    }
    expect(missing).toEqual([]);
  });

  it('finds better-sqlite3 (the native dependency this guards)', () => {
    expect(existsSync(join(REPOSITORY_ROOT, 'node_modules/better-sqlite3/binding.gyp'))).toBe(true);
    expect(lock.packages['node_modules/better-sqlite3']?.hasInstallScript).toBe(true);
  });
});
