/** Messages and shared-memory layout between `scan-pool.ts` (main thread) and `scan-worker.ts`. */

/** Int32 slots of the SharedArrayBuffer every worker of one call shares. */
export const SHARED_STOP = 0;
export const SHARED_RESULT_COUNT = 1;
export const SHARED_SLOTS = 2;

/** Int32 slots of the shared directory queue (shared-directory-queue.ts). */
export const QUEUE_LOCK = 0;
/** Workers holding directories to walk. Main counts the lead as busy before it starts. */
export const QUEUE_BUSY = 1;
export const QUEUE_WAITING = 2;
export const QUEUE_COUNT = 3;
export const QUEUE_BYTES_USED = 4;
export const QUEUE_SEQUENCE = 5;
export const QUEUE_ENTRIES_OFFSET = 8;
export const QUEUE_MAX_ENTRIES = 16_384;
export const QUEUE_CONTROL_BYTES = (QUEUE_ENTRIES_OFFSET + QUEUE_MAX_ENTRIES) * Int32Array.BYTES_PER_ELEMENT;
export const QUEUE_DATA_BYTES = 1024 * 1024;
/** Values of the stop slot. */
export const STOP_LIMIT = 1;
export const STOP_REQUESTED = 2;

interface ScanJobBase {
  jobId: number;
  /** Real path of the directory to walk (or, for a grep of one file, of the file). */
  root: string;
  includeDotfiles: boolean;
  /** Walk into dot entries even without includeDotfiles (the glob names a dot segment explicitly). */
  keepDotEntries: boolean;
  /** Real paths never entered nor reported. */
  deniedRoots: string[];
  /** Skip what the repository's .gitignore files ignore (and .git itself). */
  respectGitignore: boolean;
  maxResults: number;
  shared: SharedArrayBuffer;
  queue: SharedArrayBuffer;
  queueData: SharedArrayBuffer;
  /**
   * A scan starts as one `lead` worker walking from the root. If it is still running after a few milliseconds a
   * `helper` joins and takes directories the lead shares through the queue: small trees never pay for a second
   * worker, large ones use both cores.
   */
  role: 'lead' | 'helper';
}

export interface GlobJob extends ScanJobBase {
  kind: 'glob';
  pattern: string;
}

export interface GrepJob extends ScanJobBase {
  kind: 'grep';
  /** AUTH-2 (`files.allowHardLinks` false): a regular file with more than one link is skipped as unreadable. */
  refuseHardLinks: boolean;
  /** `root` is one file; matches report `fileName` as its path. */
  isFile: boolean;
  fileName: string;
  regexSource: string;
  /** '' or 'i'. */
  regexFlags: string;
  /** Every match contains one of these literals (see required-literal.ts): files with none are not decoded. */
  requiredLiterals: string[] | undefined;
  fileGlob: string | undefined;
  maxFileSizeBytes: number;
  maxMatchesPerFile: number;
}

export type ScanJob = GlobJob | GrepJob;

export interface ScanStats {
  filesScanned: number;
  filesMatched: number;
  skippedBinary: number;
  skippedTooLarge: number;
  skippedUnreadable: number;
  /** Files that had more matches than maxMatchesPerFile. */
  filesCappedPerFile: number;
  directoriesWalked: number;
}

export type WorkerMessage =
  | { type: 'batch'; jobId: number; items: unknown[] }
  | { type: 'done'; jobId: number; stats: ScanStats }
  | { type: 'error'; jobId: number; message: string };
