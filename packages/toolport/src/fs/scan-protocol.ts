/** Messages and shared-memory layout between `scan-pool.ts` (main thread) and `scan-worker.ts`. */

/** Int32 slots of the SharedArrayBuffer every worker of one call shares. */
export const SHARED_STOP = 0;
export const SHARED_RESULT_COUNT = 1;
export const SHARED_SLOTS = 2;
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
  maxResults: number;
  shared: SharedArrayBuffer;
}

export interface GlobJob extends ScanJobBase {
  kind: 'glob';
  pattern: string;
}

export interface GrepJob extends ScanJobBase {
  kind: 'grep';
  /** `root` is one file; matches report `fileName` as its path. */
  isFile: boolean;
  fileName: string;
  regexSource: string;
  /** '' or 'i'. */
  regexFlags: string;
  fileGlob: string | undefined;
  maxFileSizeBytes: number;
  maxMatchesPerFile: number;
  partitionIndex: number;
  partitionCount: number;
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
