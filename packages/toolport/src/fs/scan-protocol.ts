/** Messages and shared-memory layout between `scan-pool.ts` (main thread) and `scan-worker.ts`. */

/** Int32 slots of the SharedArrayBuffer every worker of one call shares. */
export const SHARED_STOP = 0;
export const SHARED_RESULT_COUNT = 1;
/** Set to 1 by a grep helper once it is ready to take half of the remaining files. */
export const SHARED_HELPER_READY = 2;
/** File index from which the lead and the helper alternate files; NO_SPLIT until the lead decides. */
export const SHARED_SPLIT_INDEX = 3;
export const SHARED_SLOTS = 4;
export const NO_SPLIT = -1;
/** Written by a lead that finished before any helper was ready: the helper has nothing to do. */
export const SPLIT_NEVER = 0x7fffffff;
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
  /** A literal every match contains (see required-literal.ts): files without it are not decoded. */
  requiredLiteral: string | undefined;
  fileGlob: string | undefined;
  maxFileSizeBytes: number;
  maxMatchesPerFile: number;
  /**
   * A grep starts as one `lead` worker. If it is still running after a few milliseconds a `helper` joins: the lead
   * publishes the file index it has reached, and from there the two alternate files (both walk the same sorted tree).
   * Small trees never pay for a second worker; large ones use both cores.
   */
  role: 'lead' | 'helper' | 'single';
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
