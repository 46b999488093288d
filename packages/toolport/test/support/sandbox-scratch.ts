import { chownSync, mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SANDBOX_ID } from '../../src/tools/shell/shell-sandbox.ts';

/**
 * A scratch directory a sandboxed shell command may work in: as root the sandbox runs commands as `nobody` (FS-6), so
 * the directory and the listed subdirectories are chowned to it. Real path, so path rules and results agree.
 */
export function makeSandboxScratch(prefix: string, subdirectories: readonly string[] = []): string {
  const directory = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const created = [directory];
  for (const name of subdirectories) {
    mkdirSync(join(directory, name), { recursive: true });
    created.push(join(directory, name));
  }
  if (process.getuid?.() === 0)
    for (const path of created) chownSync(path, DEFAULT_SANDBOX_ID, DEFAULT_SANDBOX_ID);
  return directory;
}
