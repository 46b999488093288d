import { nodeCrypto } from '../core/lazy-crypto.ts';
import { closeSync, constants, fstatSync, openSync, read, readSync, statSync, type Stats } from 'node:fs';
import { ToolArgumentError, ToolportError } from '../core/errors.ts';
import { BINARY_DETECTION_WINDOW_BYTES, looksBinary } from './binary-detection.ts';
import { countLineFeeds } from './count-line-feeds.ts';
import { HASH_READ_CHUNK_BYTES } from './hash-file.ts';
import { verifyOpenedDescriptor, type PathPolicy } from './resolve-and-validate-path.ts';

/** First buffer for a file whose fstat says 0 bytes (empty, or a /proc file that does not know its size). */
const EMPTY_STAT_GUESS_BYTES = 8 * 1024;
/** Files below this are read with one synchronous call (a page-cache copy of at most a few hundred µs). */
const SYNC_READ_MAX_BYTES = 1024 * 1024;
/** How long the spare large buffer of `useCappedFile` outlives its last use before the GC may take it. */
const SPARE_BUFFER_IDLE_MS = 10_000;

export interface CappedFileContent {
  bytes: Buffer;
  /** sha256 (hex) of every byte the descriptor delivered: the whole file. */
  sha256: string;
  size: number;
  /** The descriptor's real path (from /proc on Linux). */
  realPath: string;
  mode: number;
  /** 0x0A bytes in `bytes`, when `countLineFeeds` was asked for (counted chunk by chunk, while the next is read). */
  lineFeeds?: number;
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
  countLineFeeds?: boolean;
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
  return readCappedFileInto(realPath, options, (size) => Buffer.allocUnsafe(size));
}

/*
 * A 10 MiB read into a fresh buffer costs more than its hash: page faults while the kernel fills new pages, then a
 * full GC every few calls for the external memory (issue 11 item 3). `useCappedFile` reads a large file into one
 * spare buffer kept between calls (dropped after SPARE_BUFFER_IDLE_MS idle); two reads at once each get their own.
 */
let spareBuffer: Buffer | undefined;
let spareBufferExpiry: NodeJS.Timeout | undefined;

function keepSpareBuffer(buffer: Buffer): void {
  if (spareBuffer !== undefined && spareBuffer.length >= buffer.length) return;
  spareBuffer = buffer;
  if (spareBufferExpiry === undefined) {
    spareBufferExpiry = setTimeout(() => (spareBuffer = undefined), SPARE_BUFFER_IDLE_MS);
    spareBufferExpiry.unref();
  } else spareBufferExpiry.refresh();
}

/**
 * readCappedFile for a caller that needs the bytes only inside `use` (synchronous): a large file's buffer is reused
 * by the next call, so `use` must copy out (decode, encode) whatever it returns and keep no reference to `bytes`.
 */
export async function useCappedFile<T>(
  realPath: string,
  options: ReadCappedFileOptions,
  use: (file: CappedFileContent) => T,
): Promise<T> {
  let borrowed: Buffer | undefined;
  try {
    const file = await readCappedFileInto(realPath, options, (size) => {
      if (size < SYNC_READ_MAX_BYTES) return Buffer.allocUnsafe(size);
      borrowed =
        spareBuffer !== undefined && spareBuffer.length >= size ? spareBuffer : Buffer.allocUnsafeSlow(size);
      if (borrowed === spareBuffer) spareBuffer = undefined;
      return borrowed.subarray(0, size);
    });
    return use(file);
  } finally {
    // Also after a refusal (too large, binary, aborted): nothing else holds the buffer then either.
    if (borrowed !== undefined) keepSpareBuffer(borrowed);
  }
}

async function readCappedFileInto(
  realPath: string,
  options: ReadCappedFileOptions,
  allocate: (size: number) => Buffer,
): Promise<CappedFileContent> {
  // Metadata calls are synchronous: microseconds each, against 20-50 µs per async thread-pool round trip.
  const before = statSync(realPath);
  if (!before.isFile()) refuseNonRegular(before, options.displayPath);
  const descriptor = openSync(realPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const opened = fstatSync(descriptor);
    if (!opened.isFile()) refuseNonRegular(opened, options.displayPath);
    const openedPath = verifyOpenedDescriptor(descriptor, opened, realPath, options.policy);
    // One buffer sized from the fstat, plus the byte that proves growth (or a cap overrun). A short read of a regular
    // file that delivered every byte fstat announced is its end; a file with no size (a /proc file) or one that
    // shrank is read until a read returns nothing, and a file that grew gets a larger buffer.
    const announced = opened.size;
    let buffer = allocate(Math.min(options.capBytes, announced > 0 ? announced : EMPTY_STAT_GUESS_BYTES) + 1);
    // A small file is read synchronously in one call; a large one in chunks on the thread pool, each chunk hashed
    // (and its line feeds counted, while it is in the cache) while the next is read.
    const readChunk = announced < SYNC_READ_MAX_BYTES ? readSyncAt : readAsyncAt;
    const hash = nodeCrypto().createHash('sha256');
    let hashed = 0;
    let total = 0;
    let lineFeeds = 0;
    const digest = (end: number): void => {
      const chunk = buffer.subarray(hashed, end);
      hash.update(chunk);
      if (options.countLineFeeds === true) lineFeeds += countLineFeeds(chunk);
      hashed = end;
    };
    for (;;) {
      options.signal?.throwIfAborted();
      if (total === buffer.length) {
        const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, options.capBytes + 1));
        buffer.copy(grown, 0, 0, total);
        buffer = grown;
      }
      const want = Math.min(buffer.length - total, HASH_READ_CHUNK_BYTES);
      const reading = readChunk(descriptor, buffer, total, want);
      if (total > hashed) digest(total);
      const bytesRead = await reading;
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
    digest(total);
    return {
      bytes: buffer.subarray(0, total),
      sha256: hash.digest('hex'),
      size: total,
      realPath: openedPath,
      mode: opened.mode,
      ...(options.countLineFeeds === true ? { lineFeeds } : {}),
    };
  } finally {
    closeSync(descriptor);
  }
}

/** Bytes read at `position` (the file offset equals the buffer offset: the buffer holds the file from byte 0). */
async function readSyncAt(
  descriptor: number,
  buffer: Buffer,
  position: number,
  length: number,
): Promise<number> {
  return readSync(descriptor, buffer, position, length, position);
}

function readAsyncAt(descriptor: number, buffer: Buffer, position: number, length: number): Promise<number> {
  return new Promise((resolve, reject) => {
    read(descriptor, buffer, position, length, position, (error, bytesRead) =>
      error === null ? resolve(bytesRead) : reject(error),
    );
  });
}
