import { randomHex } from '../core/lazy-crypto.ts';
import { constants } from 'node:fs';
import { lstat, mkdir, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ToolportError } from '../core/errors.ts';
import { sha256OfHandle } from './hash-file.ts';
import { verifyOpenedPath, type PathPolicy } from './resolve-and-validate-path.ts';

export interface AtomicWriteOptions {
  policy: PathPolicy;
  /** When the target exists: the sha256 it must still have right before the rename (the freshness guard). */
  expectedSha256?: string;
  /** Permission bits to give the new file (an overwritten file keeps its own). */
  mode?: number;
  displayPath: string;
}

/**
 * Creates the missing parent directories of `realPath`, refusing — before creating anything — when one of them would
 * fall outside the allowed roots (an allowed root that does not exist yet may be created, its parents not).
 */
export async function createParentDirectories(
  realPath: string,
  policy: PathPolicy,
  displayPath: string,
): Promise<void> {
  const parent = dirname(realPath);
  for (let directory = parent; ; directory = dirname(directory)) {
    if (await exists(directory)) break;
    if (!policy.isAllowed(directory)) {
      throw new ToolportError(
        'permission_denied',
        `Writing ${displayPath} would create the directory ${directory}, which is outside the allowed paths.`,
        { details: { argument: 'path', path: directory } },
      );
    }
    if (dirname(directory) === directory) break;
  }
  await mkdir(parent, { recursive: true });
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

export function staleFileError(displayPath: string, realPath: string): ToolportError {
  return new ToolportError(
    'conflict',
    `${displayPath} changed on disk since this chat last read it. Read it again with read_file, then redo the change ` +
      'against the current content.',
    { details: { argument: 'path', path: realPath, reason: 'stale' } },
  );
}

async function syncDirectory(directory: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(directory, constants.O_RDONLY);
    await handle.sync();
  } catch {
    // Best effort: some filesystems refuse fsync on a directory; the rename itself is still atomic.
  } finally {
    await handle?.close();
  }
}

/**
 * SPEC FS-2: writes `bytes` to a temporary file in the target's directory, fsyncs it, re-checks the target's hash
 * against `expectedSha256` at the last moment, then renames it over the target — a crash leaves the old file or the
 * new one, never half of either. The temporary file's descriptor is verified against the policy like any open.
 */
export async function writeFileAtomically(
  realPath: string,
  bytes: Uint8Array,
  options: AtomicWriteOptions,
): Promise<void> {
  const directory = dirname(realPath);
  const temporaryPath = join(directory, `.${basename(realPath)}.toolport-${randomHex(6)}.tmp`);
  const mode = options.mode ?? 0o666;
  const handle = await open(
    temporaryPath,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    mode,
  );
  let renamed = false;
  try {
    await verifyOpenedPath(handle, temporaryPath, options.policy);
    // The umask may have narrowed the mode of a file that is replacing an existing one: restore it exactly.
    if (options.mode !== undefined) await handle.chmod(options.mode);
    await handle.writeFile(bytes);
    await handle.sync();
    await handle.close();
    if (options.expectedSha256 !== undefined) {
      const current = await open(realPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      try {
        if ((await sha256OfHandle(current)) !== options.expectedSha256) {
          throw staleFileError(options.displayPath, realPath);
        }
      } finally {
        await current.close();
      }
    }
    await rename(temporaryPath, realPath);
    renamed = true;
    await syncDirectory(directory);
  } finally {
    if (!renamed) {
      await handle.close().catch(() => {});
      await unlink(temporaryPath).catch(() => {});
    }
  }
}
