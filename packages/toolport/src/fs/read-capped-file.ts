import { createHash } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { ToolArgumentError, ToolportError } from '../core/errors.ts';
import { BINARY_DETECTION_WINDOW_BYTES, looksBinary } from './binary-detection.ts';
import { verifyOpenedPath, type PathPolicy } from './resolve-and-validate-path.ts';

/** First buffer for a file whose fstat says 0 bytes (empty, or a /proc file that does not know its size). */
const EMPTY_STAT_GUESS_BYTES = 8 * 1024;

export interface CappedFileContent {
  bytes: Buffer;
  /** sha256 (hex) of every byte the descriptor delivered: the whole file. */
  sha256: string;
  size: number;
  /** The descriptor's real path (from /proc on Linux). */
  realPath: string;
  mode: number;
}

export interface ReadCappedFileOptions {
  /** Refuse (never truncate) once the descriptor delivers more than this many bytes. */
  capBytes: number;
  /** How to name the cap in the refusal, e.g. "the 10 MiB cap of the text view". */
  capDescription: string;
  /** When set, a NUL byte in the first 8 KiB is refused with this message. */
  binaryRefusal?: string;
  policy: PathPolicy;
  /** The path as the model sent it, for messages. */
  displayPath: string;
  signal?: AbortSignal;
}

export function describeFileType(stats: Stats): string {
  if (stats.isFile()) return 'a regular file';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  return 'a special file';
}

function refuseNonRegular(stats: Stats, displayPath: string): never {
  const hint = stats.isDirectory() ? ' Use list_directory to see what it contains.' : '';
  throw new ToolArgumentError(
    'path',
    'a regular file',
    describeFileType(stats),
    `${displayPath} is ${describeFileType(stats)}, not a regular file; only regular files can be read.${hint}`,
  );
}

/**
 * SPEC FS-1: reads a regular file through one descriptor into one buffer, and refuses once the descriptor
 * delivers more than `capBytes` — whatever `stat` claimed (a /proc file declares 0 bytes; a log may grow while read).
 * FIFOs and devices are refused before they are opened, and the open uses O_NONBLOCK | O_NOFOLLOW so a FIFO or a
 * symlink swapped in after the check can neither block the call nor redirect it.
 */
export async function readCappedFile(
  realPath: string,
  options: ReadCappedFileOptions,
): Promise<CappedFileContent> {
  const before = await stat(realPath);
  if (!before.isFile()) refuseNonRegular(before, options.displayPath);
  const handle = await open(realPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const opened = await handle.stat();
    if (!opened.isFile()) refuseNonRegular(opened, options.displayPath);
    const openedPath = await verifyOpenedPath(handle, realPath, options.policy);
    // One buffer sized from the fstat, plus the byte that proves growth (or a cap overrun). A short read of a regular
    // file that delivered every byte fstat announced is its end; a file with no size (a /proc file) or one that
    // shrank is read until a read returns nothing, and a file that grew gets a larger buffer.
    const announced = opened.size;
    let buffer = Buffer.allocUnsafe(
      Math.min(options.capBytes, announced > 0 ? announced : EMPTY_STAT_GUESS_BYTES) + 1,
    );
    let total = 0;
    for (;;) {
      options.signal?.throwIfAborted();
      if (total === buffer.length) {
        const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, options.capBytes + 1));
        buffer.copy(grown, 0, 0, total);
        buffer = grown;
      }
      const want = buffer.length - total;
      const { bytesRead } = await handle.read(buffer, total, want, total);
      if (bytesRead === 0) break;
      if (
        options.binaryRefusal !== undefined &&
        total < BINARY_DETECTION_WINDOW_BYTES &&
        looksBinary(buffer.subarray(total), Math.min(bytesRead, BINARY_DETECTION_WINDOW_BYTES - total))
      ) {
        throw new ToolArgumentError(
          'view',
          'a text file for view "text"',
          'a binary file',
          options.binaryRefusal,
        );
      }
      total += bytesRead;
      if (total > options.capBytes) {
        throw new ToolportError(
          'execution_failed',
          `${options.displayPath} is larger than ${options.capDescription} (${options.capBytes} bytes; stat reported ` +
            `${opened.size}); it was refused, not truncated.`,
          { details: { reason: 'too_large', capBytes: options.capBytes } },
        );
      }
      if (bytesRead < want && announced > 0 && total >= announced) break;
    }
    const bytes = buffer.subarray(0, total);
    return {
      bytes,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      size: total,
      realPath: openedPath,
      mode: opened.mode,
    };
  } finally {
    await handle.close();
  }
}
