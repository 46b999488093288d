/**
 * The grep/glob scanner, run in a worker thread (SPEC FS-4/FS-5): a scan never blocks the server's event loop, and a
 * catastrophic regex stuck inside one `exec` can be stopped by terminating the worker at the time budget. The scan is
 * synchronous on purpose: it owns its thread, sync fs calls are the fastest way to walk and read a warm tree, and
 * cooperative stopping goes through a SharedArrayBuffer the main thread writes (no message can arrive mid-scan).
 *
 * A worker runs it through `scan-worker-thread.ts` (loaded by URL: `.ts` under src, `.js` in dist, AGENTS.md); the calling
 * thread imports it directly for a small in-thread scan, without loading worker_threads.
 */
import { closeSync, constants, fstatSync, openSync, readSync, readdirSync, type Dirent } from 'node:fs';
import picomatch from 'picomatch';
import { looksBinary } from './binary-detection.ts';
import { GitignoreRules } from './gitignore-rules.ts';
import { compileNameMatcher } from './glob-name-matcher.ts';
import { countLineFeeds } from './count-line-feeds.ts';
import { compileLiteralFinder, compileLiteralPrefilter } from './literal-search.ts';
import { literalAlternatives } from './required-literal.ts';
import { SharedDirectoryQueue } from './shared-directory-queue.ts';
import {
  SHARED_RESULT_COUNT,
  SHARED_STOP,
  STOP_LIMIT,
  type GlobJob,
  type GrepJob,
  type ScanJob,
  type ScanStats,
  type WorkerMessage,
} from './scan-protocol.ts';

/**
 * One read buffer per worker, grown to the largest file read. After a job a large one is kept for a moment, so
 * back-to-back scans of one tree do not grow (and page-fault) it again, then given back.
 */
const DEFAULT_BUFFER_BYTES = 1024 * 1024;
const KEEP_LARGE_BUFFER_MS = 1000;
let buffer = Buffer.allocUnsafe(DEFAULT_BUFFER_BYTES);
let shrinkTimer: NodeJS.Timeout | undefined;

function scheduleShrink(): void {
  clearTimeout(shrinkTimer);
  if (buffer.length <= 4 * DEFAULT_BUFFER_BYTES) return;
  shrinkTimer = setTimeout(() => {
    buffer = Buffer.allocUnsafe(DEFAULT_BUFFER_BYTES);
  }, KEEP_LARGE_BUFFER_MS);
  // Never what keeps a worker or the process alive.
  shrinkTimer.unref();
}

function reserveBuffer(bytes: number, keep: number): void {
  if (buffer.length >= bytes) return;
  const larger = Buffer.allocUnsafe(bytes);
  buffer.copy(larger, 0, 0, keep);
  buffer = larger;
}

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const FLUSH_EVERY_ITEMS = 256;
const FLUSH_EVERY_MS = 40;
/** A matched line longer than this is shown as a window around the match. */
const MAX_MATCH_TEXT_CHARACTERS = 500;

function compareDirents(left: Dirent, right: Dirent): number {
  return left.name < right.name ? -1 : left.name > right.name ? 1 : 0;
}

class Scanner {
  readonly #job: ScanJob;
  readonly #shared: Int32Array;
  readonly #stats: ScanStats = {
    filesScanned: 0,
    filesMatched: 0,
    skippedBinary: 0,
    skippedTooLarge: 0,
    skippedUnreadable: 0,
    filesCappedPerFile: 0,
    directoriesWalked: 0,
  };
  #pending: unknown[] = [];
  #lastFlush = performance.now();

  readonly #queue: SharedDirectoryQueue;
  readonly #gitignore: GitignoreRules | undefined;

  readonly #post: (message: WorkerMessage) => void;
  readonly #abandonAt: number;
  /** Set when an in-thread run passed its budget: its results are incomplete and are thrown away. */
  abandoned = false;

  constructor(job: ScanJob, post: (message: WorkerMessage) => void, abandonAt: number) {
    this.#job = job;
    this.#post = post;
    this.#abandonAt = abandonAt;
    this.#shared = new Int32Array(job.shared);
    this.#queue = new SharedDirectoryQueue(job.queue, job.queueData, this.#shared, job.role === 'lead');
    this.#gitignore =
      job.respectGitignore && (job.kind === 'glob' || !job.isFile) ? new GitignoreRules(job.root) : undefined;
  }

  get pendingCount(): number {
    return this.#pending.length;
  }

  get stats(): ScanStats {
    return this.#stats;
  }

  stopped(): boolean {
    if (Atomics.load(this.#shared, SHARED_STOP) !== 0 || this.abandoned) return true;
    if (this.#abandonAt !== Infinity && performance.now() > this.#abandonAt) this.abandoned = true;
    return this.abandoned;
  }

  /** Reserves one result slot across every worker of the call; false (and a global stop) once the limit is hit. */
  reserve(): boolean {
    if (Atomics.add(this.#shared, SHARED_RESULT_COUNT, 1) >= this.#job.maxResults) {
      Atomics.compareExchange(this.#shared, SHARED_STOP, 0, STOP_LIMIT);
      return false;
    }
    return true;
  }

  emit(item: unknown): void {
    this.#pending.push(item);
    if (this.#pending.length >= FLUSH_EVERY_ITEMS) this.flush();
  }

  maybeFlush(): void {
    if (this.#pending.length > 0 && performance.now() - this.#lastFlush >= FLUSH_EVERY_MS) this.flush();
  }

  flush(): void {
    this.#lastFlush = performance.now();
    if (this.#pending.length === 0) return;
    const message: WorkerMessage = { type: 'batch', jobId: this.#job.jobId, items: this.#pending };
    this.#post(message);
    this.#pending = [];
  }

  isDenied(absolutePath: string): boolean {
    for (const root of this.#job.deniedRoots) {
      if (absolutePath === root || absolutePath.startsWith(root.endsWith('/') ? root : `${root}/`))
        return true;
    }
    return false;
  }

  /**
   * Depth-first walk below `root` without following symlinks, shared with the other workers of the scan through the
   * directory queue. Calls `onEntry` for each entry with the relative path of its directory as a prefix (`''` at the
   * root, else ending in `/`, with `/` separators) and its name: the entry's relative path is `prefix + name`, built
   * only by the callers that need it (most entries of a glob are never reported).
   */
  walk(root: string, onEntry: (directoryPrefix: string, name: string, dirent: Dirent) => void): void {
    const rootPrefix = root.endsWith('/') ? root : `${root}/`;
    const skipDotEntries = !this.#job.includeDotfiles && !this.#job.keepDotEntries;
    const checkDenied = this.#job.deniedRoots.length > 0;
    const stack: string[] = this.#job.role === 'lead' ? [''] : [];
    for (;;) {
      if (this.stopped()) return;
      let relativeDirectory = stack.pop() ?? this.#queue.takeNow();
      if (relativeDirectory === undefined) {
        // About to wait for work: what was found so far goes out first.
        this.flush();
        relativeDirectory = this.#queue.take();
        if (relativeDirectory === undefined) return;
      }
      const absoluteDirectory = relativeDirectory === '' ? root : rootPrefix + relativeDirectory;
      let entries: Dirent[];
      try {
        entries = readdirSync(absoluteDirectory, { withFileTypes: true });
      } catch {
        this.#stats.skippedUnreadable += 1;
        continue;
      }
      this.#stats.directoriesWalked += 1;
      const ignoreChain = this.#gitignore?.chainFor(relativeDirectory);
      // Sorted walk: a single worker returns the same first N results every time. libuv already returns names in
      // strcmp order on Unix; checking that costs a tenth of re-sorting a 40,000-entry directory.
      if (!sortedByName(entries)) entries.sort(compareDirents);
      const prefix = relativeDirectory === '' ? '' : `${relativeDirectory}/`;
      const subdirectories: string[] = [];
      for (const dirent of entries) {
        const name = dirent.name;
        if (skipDotEntries && name.charCodeAt(0) === 46 /* . */) continue;
        if (checkDenied && this.isDenied(rootPrefix + prefix + name)) continue;
        if (ignoreChain !== undefined) {
          if (name === '.git') continue;
          if (
            ignoreChain.length > 0 &&
            GitignoreRules.ignores(ignoreChain, prefix + name, dirent.isDirectory())
          )
            continue;
        }
        onEntry(prefix, name, dirent);
        if (this.stopped()) return;
        if (dirent.isDirectory()) subdirectories.push(prefix + name);
      }
      // Reverse so the walk visits subdirectories in sorted order (the stack pops the last one first).
      for (let index = subdirectories.length - 1; index >= 0; index -= 1) stack.push(subdirectories[index]!);
      if (stack.length >= 2) this.#queue.publish(stack, 1);
      this.maybeFlush();
    }
  }
}

function sortedByName(entries: Dirent[]): boolean {
  for (let index = 1; index < entries.length; index += 1) {
    if (entries[index - 1]!.name > entries[index]!.name) return false;
  }
  return true;
}

/** picomatch's `**` never crosses a segment holding a line terminator (its regex `.` stops there). */
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;

function runGlob(job: GlobJob, scanner: Scanner): void {
  // "**/<name pattern>" (the common case) only needs the entry's name: the walk already skips dot directories that
  // `**` must not cross, so matching the short name is equivalent and cheaper than matching the whole path, and the
  // common name patterns (`*.ts`) skip picomatch altogether (glob-name-matcher.ts).
  const rest = job.pattern.startsWith('**/') ? job.pattern.slice(3) : undefined;
  if (rest !== undefined && !rest.includes('/') && (job.includeDotfiles || !job.keepDotEntries)) {
    const matchesName = compileNameMatcher(rest, job.includeDotfiles);
    // The prefix is one string per directory: remember the last verdict instead of re-testing it per entry.
    let lastPrefix = '';
    let prefixCrossable = true;
    scanner.walk(job.root, (prefix, name) => {
      // (A path whose text is the pattern itself matches too, as picomatch's whole-path test has it.)
      if (!matchesName(name) && !(prefix === '**/' && name === rest)) return;
      if (prefix !== lastPrefix) {
        lastPrefix = prefix;
        prefixCrossable = !LINE_TERMINATOR.test(prefix);
      }
      if (prefixCrossable && scanner.reserve()) scanner.emit(prefix + name);
    });
    return;
  }
  const matcher = picomatch(job.pattern, { dot: job.includeDotfiles });
  scanner.walk(job.root, (prefix, name) => {
    const relativePath = prefix + name;
    if (matcher(relativePath) && scanner.reserve()) scanner.emit(relativePath);
  });
}

function clipLine(line: string, matchOffset: number): string {
  if (line.length <= MAX_MATCH_TEXT_CHARACTERS) return line;
  const start = Math.max(0, Math.min(matchOffset - 100, line.length - MAX_MATCH_TEXT_CHARACTERS));
  const clipped = line.slice(start, start + MAX_MATCH_TEXT_CHARACTERS);
  return `${start > 0 ? '…' : ''}${clipped}${start + MAX_MATCH_TEXT_CHARACTERS < line.length ? '…' : ''}`;
}

function runGrep(job: GrepJob, scanner: Scanner): void {
  // The whole-file test (flag m, so ^ and $ work per line) rejects most files in one pass; lines are only split in
  // files that match somewhere, and a match spanning lines is confirmed against its line alone (grep is per line).
  const wholeFile = new RegExp(job.regexSource, `${job.regexFlags}m`);
  const global = new RegExp(job.regexSource, `${job.regexFlags}gm`);
  const perLine = new RegExp(job.regexSource, job.regexFlags);
  const fileFilter =
    job.fileGlob === undefined
      ? undefined
      : picomatch(job.fileGlob, { dot: job.includeDotfiles, basename: !job.fileGlob.includes('/') });
  const limit = job.maxFileSizeBytes + 1;
  const stats = scanner.stats;
  // A pattern of literals only (`a|b`) is matched on the bytes: no file is decoded, only the lines reported.
  const literals =
    job.regexFlags === '' ? literalAlternatives(job.regexSource)?.map(compileLiteralFinder) : undefined;
  // Only the regex path needs the prefilter: the literal search is its own.
  const prefilter =
    literals !== undefined || job.requiredLiterals === undefined
      ? undefined
      : compileLiteralPrefilter(job.requiredLiterals);
  // Per literal, where it next occurs in the current file (-2: not searched yet, -1: nowhere after this point).
  const nextOccurrence = literals === undefined ? undefined : new Int32Array(literals.length);

  /**
   * The regex path's results for a literal-only pattern, from the bytes: each line holding a literal once, in order,
   * clipped around its leftmost occurrence. A literal is whole UTF-8 characters and never holds a line feed, so its
   * byte occurrences are its text occurrences, and a line decoded alone is that line of the decoded file.
   */
  const searchLiterals = (length: number, relativePath: string): void => {
    const bytes = buffer.subarray(0, length);
    const next = nextOccurrence!;
    for (let literal = 0; literal < next.length; literal += 1) next[literal] = -2;
    let matchesInFile = 0;
    let lineNumber = 1;
    let counted = 0;
    for (let from = 0; from < length;) {
      let index = -1;
      for (let literal = 0; literal < next.length; literal += 1) {
        // Each literal's next occurrence is searched again only once the scan has passed it.
        if (next[literal]! !== -1 && next[literal]! < from) next[literal] = literals![literal]!(bytes, from);
        const at = next[literal]!;
        if (at !== -1 && (index === -1 || at < index)) index = at;
      }
      if (index === -1) return;
      const lineStart = index === 0 ? 0 : bytes.lastIndexOf(10, index - 1) + 1;
      let lineEnd = bytes.indexOf(10, index);
      if (lineEnd === -1) lineEnd = length;
      if (matchesInFile === job.maxMatchesPerFile) {
        stats.filesCappedPerFile += 1;
        return;
      }
      lineNumber += countLineFeeds(bytes.subarray(counted, lineStart));
      counted = lineStart;
      const contentEnd = lineEnd > lineStart && bytes[lineEnd - 1] === 13 ? lineEnd - 1 : lineEnd;
      const line = bytes.toString('utf8', lineStart, contentEnd);
      // The clip window is in characters: only a long line needs the match's character offset.
      const offset =
        line.length <= MAX_MATCH_TEXT_CHARACTERS ? 0 : bytes.toString('utf8', lineStart, index).length;
      if (!scanner.reserve()) return;
      if (matchesInFile === 0) stats.filesMatched += 1;
      matchesInFile += 1;
      scanner.emit([relativePath, lineNumber, clipLine(line, offset)]);
      from = lineEnd + 1;
    }
  };

  const searchFile = (absolutePath: string, relativePath: string): void => {
    let descriptor: number;
    try {
      // O_NOFOLLOW/O_NONBLOCK: a file swapped for a symlink or a FIFO after the readdir neither escapes nor blocks.
      descriptor = openSync(absolutePath, OPEN_FLAGS);
    } catch {
      stats.skippedUnreadable += 1;
      return;
    }
    let length = 0;
    try {
      // A hard link is another name of a file that may be denied or outside the root: only its descriptor knows.
      if (job.refuseHardLinks && fstatSync(descriptor).nlink > 1) {
        stats.skippedUnreadable += 1;
        return;
      }
      // No fstat otherwise: it costs more than the read of a small file. The walk's dirent said "regular file"; a FIFO or a
      // directory swapped in since fails the read (O_NONBLOCK: EAGAIN; EISDIR), and a file over the cap is detected
      // by what the descriptor delivers, as in read_file — a file growing while read is skipped too. A short read of
      // a regular file is its end, which saves the extra read that would return 0.
      for (;;) {
        if (length === buffer.length) {
          // Larger than the buffer: one fstat sizes it for the rest and the byte that shows the end, instead of
          // doubling (and copying) it step by step. A file that grew since still makes progress.
          const size = fstatSync(descriptor).size;
          reserveBuffer(Math.min(limit, Math.max(size + 1, length + DEFAULT_BUFFER_BYTES)), length);
        }
        // Never more than one byte past the cap, whatever the buffer's size.
        const wanted = Math.min(buffer.length, limit) - length;
        const bytesRead = readSync(descriptor, buffer, length, wanted, length);
        length += bytesRead;
        if (length > job.maxFileSizeBytes) {
          stats.skippedTooLarge += 1;
          return;
        }
        if (bytesRead < wanted) break;
      }
    } catch {
      stats.skippedUnreadable += 1;
      return;
    } finally {
      closeSync(descriptor);
    }
    if (looksBinary(buffer, length)) {
      stats.skippedBinary += 1;
      return;
    }
    stats.filesScanned += 1;
    if (literals !== undefined) {
      searchLiterals(length, relativePath);
      return;
    }
    if (prefilter !== undefined && !prefilter(buffer.subarray(0, length))) return;
    const text = buffer.toString('utf8', 0, length);
    if (!wholeFile.test(text)) return;
    let matchesInFile = 0;
    let lineNumber = 1;
    let counted = 0;
    global.lastIndex = 0;
    for (let match = global.exec(text); match !== null; match = global.exec(text)) {
      const index = match.index;
      // With flag m, ^ also matches after the file's final newline: that empty "line" does not exist.
      if (index === text.length && index > 0 && text.charCodeAt(index - 1) === 10) break;
      const lineStart = index === 0 ? 0 : text.lastIndexOf('\n', index - 1) + 1;
      let lineEnd = text.indexOf('\n', index);
      if (lineEnd === -1) lineEnd = text.length;
      let line = text.slice(lineStart, lineEnd);
      if (index + match[0].length > lineEnd && !perLine.test(line)) {
        global.lastIndex = index + 1;
        continue;
      }
      if (matchesInFile === job.maxMatchesPerFile) {
        stats.filesCappedPerFile += 1;
        break;
      }
      for (let position = text.indexOf('\n', counted); position !== -1 && position < lineStart;) {
        lineNumber += 1;
        position = text.indexOf('\n', position + 1);
      }
      counted = lineStart;
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (!scanner.reserve()) return;
      if (matchesInFile === 0) stats.filesMatched += 1;
      matchesInFile += 1;
      scanner.emit([relativePath, lineNumber, clipLine(line, index - lineStart)]);
      global.lastIndex = lineEnd + 1;
      if (lineEnd >= text.length) break;
    }
  };

  if (job.isFile) {
    searchFile(job.root, job.fileName);
    return;
  }
  const rootPrefix = job.root.endsWith('/') ? job.root : `${job.root}/`;
  scanner.walk(job.root, (prefix, name, dirent) => {
    if (!dirent.isFile()) return;
    const relativePath = prefix + name;
    if (fileFilter !== undefined && !fileFilter(relativePath)) return;
    const before = scanner.pendingCount;
    searchFile(rootPrefix + relativePath, relativePath);
    // A file's matches go out at once: if the next file hangs the regex, they survive the worker's termination.
    if (scanner.pendingCount > before) scanner.flush();
  });
}

/**
 * Runs one job, posting batches and a final done/error message. In a worker `abandonAt` is Infinity; the calling
 * thread (scan-pool's in-thread run of a small scan) passes a time after which the scan gives up and reports
 * `abandoned`, so the job is run again in workers.
 */
export function runScanJob(
  job: ScanJob,
  post: (message: WorkerMessage) => void,
  abandonAt = Infinity,
): { abandoned: boolean } {
  clearTimeout(shrinkTimer);
  const scanner = new Scanner(job, post, abandonAt);
  try {
    if (job.kind === 'glob') runGlob(job, scanner);
    else runGrep(job, scanner);
    scanner.flush();
    post({ type: 'done', jobId: job.jobId, stats: scanner.stats });
  } catch (error) {
    scanner.flush();
    post({
      type: 'error',
      jobId: job.jobId,
      message: error instanceof Error ? error.message : String(error),
    });
  } finally {
    scheduleShrink();
  }
  return { abandoned: scanner.abandoned };
}
