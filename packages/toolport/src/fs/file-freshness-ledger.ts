import { nodeCrypto, randomHex } from '../core/lazy-crypto.ts';
import { lstat, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import type { FreshnessLedger } from '../core/tool-types.ts';

const MAX_ENTRIES_PER_SCOPE = 10_000;

interface LedgerFile {
  scope: string;
  entries: Record<string, string>;
}

/**
 * A `FreshnessLedger` kept in small JSON files, one per scope, for the CLI: each `toolport tools run` is its own
 * process, so an in-memory ledger would forget the read before the write. Not for servers (no locking: two processes
 * recording into one scope at the same instant can lose one entry, which only makes the guard stricter).
 */
export class FileFreshnessLedger implements FreshnessLedger {
  readonly directory: string;

  constructor(directory: string) {
    this.directory = directory;
  }

  #fileFor(scope: string): string {
    return join(
      this.directory,
      `${nodeCrypto().createHash('sha256').update(scope).digest('hex').slice(0, 32)}.json`,
    );
  }

  async #load(scope: string): Promise<LedgerFile> {
    try {
      const parsed = JSON.parse(await readFile(this.#fileFor(scope), 'utf8')) as Partial<LedgerFile>;
      if (parsed.scope === scope && typeof parsed.entries === 'object' && parsed.entries !== null) {
        return { scope, entries: parsed.entries };
      }
    } catch {
      // Missing or corrupt: an empty ledger only means a file must be read again before it is overwritten.
    }
    return { scope, entries: {} };
  }

  async getRecordedHash(scope: string, realPath: string): Promise<string | undefined> {
    const value = (await this.#load(scope)).entries[realPath];
    return typeof value === 'string' ? value : undefined;
  }

  async recordHash(scope: string, realPath: string, sha256: string): Promise<void> {
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    const ledger = await this.#load(scope);
    delete ledger.entries[realPath];
    ledger.entries[realPath] = sha256;
    const paths = Object.keys(ledger.entries);
    for (const stale of paths.slice(0, Math.max(0, paths.length - MAX_ENTRIES_PER_SCOPE))) {
      delete ledger.entries[stale];
    }
    const file = this.#fileFor(scope);
    const temporary = `${file}.${randomHex(6)}.tmp`;
    await writeFile(temporary, JSON.stringify(ledger), { mode: 0o600 });
    await rename(temporary, file);
  }
}

/**
 * Where the CLI keeps its ledger: `$TOOLPORT_STATE_DIR/freshness`, else `$XDG_STATE_HOME/toolport/freshness`, else
 * `<os tmpdir>/toolport-<uid>/freshness`. A shared temp directory owned by someone else (or a symlink planted there) is
 * refused.
 */
export async function getCliFreshnessDirectory(env: NodeJS.ProcessEnv): Promise<string> {
  if (env.TOOLPORT_STATE_DIR) return join(env.TOOLPORT_STATE_DIR, 'freshness');
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'toolport', 'freshness');
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  const base = join(tmpdir(), `toolport-${uid ?? userInfo().username}`);
  await mkdir(base, { recursive: true, mode: 0o700 });
  const stats = await lstat(base);
  if (!stats.isDirectory() || (uid !== undefined && stats.uid !== uid)) {
    throw new Error(
      `${base} is not a directory owned by this user; set TOOLPORT_STATE_DIR to a private directory.`,
    );
  }
  return join(base, 'freshness');
}
