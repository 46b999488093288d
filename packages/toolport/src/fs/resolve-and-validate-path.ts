import { lstatSync, readlinkSync, realpathSync, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, parse, sep } from 'node:path';
import { ToolArgumentError, ToolportError } from '../core/errors.ts';
import type { ToolMode } from '../core/tool-types.ts';

/**
 * SPEC PATH-1/PATH-2. Every decision is taken on the real path: symlinks resolved the way the kernel resolves them
 * (`link/..` is the parent of the link's target, not of the link), and for a path that does not exist yet the real
 * path of its nearest existing ancestor plus the missing tail. Containment is on path-segment boundaries, and a
 * denied root wins over an allowed one. Tools then open the resolved real path, never the model's string, so what
 * was checked is what is opened (see `verifyOpenedPath` for the remaining race, and docs/path-policy.md).
 */

export interface PathPolicyOptions {
  /** The chat's bound working directory (a real path). Used for relative paths only in agent mode (PATH-1). */
  workingDirectory?: string | undefined;
  mode: ToolMode;
  /** When non-empty, a path must be inside one of these (absolute, `~`, or relative to the base directory). */
  allowedPaths?: readonly string[];
  /** A path inside one of these is refused, even when it is also inside an allowed path. */
  deniedPaths?: readonly string[];
  /**
   * Denied like `deniedPaths`, but set by the operator (the server's data directory), not by the user's settings:
   * the refusal says so, since no setting the model or user could change lifts it.
   */
  protectedPaths?: readonly string[];
  /** Agent mode with a working directory: the working directory becomes an allowed root (restriction enabled). */
  restrictToWorkingDirectory?: boolean;
  /**
   * The host's confinement (AUTH-2, the CLI's `--workdir`): a path must also be inside one of these, on top of
   * `allowedPaths`. `confinementSource` names it in refusals.
   */
  confinedTo?: readonly string[];
  confinementSource?: string;
  /** Refuse opened regular files with more than one hard link (`verifyOpenedPath`): their other names are unseen. */
  refuseHardLinks?: boolean;
  /** Defaults to `os.homedir()`; injectable for tests. */
  homeDirectory?: string;
  /** Defaults to `process.cwd()`: the base for relative paths in chat mode (PATH-1). */
  processDirectory?: string;
}

export interface ResolvedPath {
  /** What the caller sent. */
  input: string;
  /** The real path the decision was taken on, and the one tools must open. */
  realPath: string;
  /** False when the path (or a part of it) does not exist yet; `realPath` is then the nearest real ancestor + tail. */
  exists: boolean;
}

export interface PathPolicy {
  /** Directory relative paths are resolved from: the working directory in agent mode, else the process cwd. */
  readonly baseDirectory: string;
  /** The working directory results are re-anchored to (PATH-3): only in agent mode. */
  readonly anchorDirectory: string | undefined;
  resolve(input: string, argument?: string): Promise<ResolvedPath>;
  /** Re-checks a real path (e.g. one a directory walk found, or a descriptor's real path). */
  check(realPath: string, argument?: string, input?: string): void;
  /** True when `realPath` may be entered at all (used by walkers to prune denied subtrees). */
  isAllowed(realPath: string): boolean;
  readonly allowedRoots: readonly string[];
  readonly deniedRoots: readonly string[];
  /** The host's confinement roots (empty: none). */
  readonly confinedRoots: readonly string[];
  readonly refusesHardLinks: boolean;
}

const MAX_SYMLINK_HOPS = 40;

/** `/a/b` contains `/a/b` and `/a/b/c`, never `/a/bc`. */
export function isPathInside(child: string, root: string): boolean {
  if (child === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return child.startsWith(prefix);
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** `~` and `~/x` expand to the home directory; `~user` is refused rather than guessed. */
function expandHome(input: string, home: string, argument: string): string {
  if (input === '~') return home;
  if (input.startsWith('~/') || (sep === '\\' && input.startsWith('~\\'))) return home + input.slice(1);
  if (input.startsWith('~')) {
    throw new ToolArgumentError(
      argument,
      'an absolute path, a path starting with ~/ or a relative path',
      JSON.stringify(input),
      `\`${argument}\` ${JSON.stringify(input)} uses the ~user form, which is not supported. ` +
        'Use ~/ for your home directory or an absolute path.',
    );
  }
  return input;
}

/**
 * The real path of `rawAbsolute` as the kernel would resolve it, without normalizing `..` lexically first. For a
 * path that does not exist, the nearest existing ancestor is resolved and the missing tail appended; a dangling
 * symlink is followed to where a create through it would land.
 *
 * Synchronous system calls on purpose (issue 11): realpath/lstat/readlink of a local path take a few microseconds,
 * while each thread-pool round trip of their async forms costs 20-50 µs, and a call resolves several roots. The
 * trade-off: a path on a hung network mount stalls the event loop instead of one thread-pool thread.
 */
export async function resolvePhysicalPath(
  rawAbsolute: string,
): Promise<{ realPath: string; exists: boolean }> {
  try {
    return { realPath: realpathSync.native(rawAbsolute), exists: true };
  } catch (error) {
    const code = errorCode(error);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
  }
  const root = parse(rawAbsolute).root;
  const queue = rawAbsolute
    .slice(root.length)
    .split(/[\\/]+/)
    .filter((segment) => segment !== '' && segment !== '.');
  let resolved = root;
  const missing: string[] = [];
  let hops = 0;
  while (queue.length > 0) {
    const segment = queue.shift()!;
    if (segment === '..') {
      if (missing.length > 0) missing.pop();
      else resolved = dirname(resolved);
      continue;
    }
    if (missing.length > 0) {
      missing.push(segment);
      continue;
    }
    const candidate = join(resolved, segment);
    let stats;
    try {
      // throwIfNoEntry: a missing component is the common case here, and an exception costs ~15 µs more.
      stats = lstatSync(candidate, { throwIfNoEntry: false });
    } catch (error) {
      const code = errorCode(error);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    }
    if (stats === undefined) {
      missing.push(segment);
      continue;
    }
    if (stats.isSymbolicLink()) {
      hops += 1;
      if (hops > MAX_SYMLINK_HOPS) {
        throw new ToolportError('execution_failed', `Too many levels of symbolic links in ${rawAbsolute}.`);
      }
      const target = readlinkSync(candidate);
      const targetRoot = parse(target).root;
      if (isAbsolute(target)) resolved = targetRoot;
      queue.unshift(
        ...target
          .slice(isAbsolute(target) ? targetRoot.length : 0)
          .split(/[\\/]+/)
          .filter((part) => part !== '' && part !== '.'),
      );
      continue;
    }
    resolved = candidate;
  }
  // The existing prefix was built from lstat'ed components; canonicalize it once more (case, bind mounts).
  let realPrefix = resolved;
  try {
    realPrefix = realpathSync.native(resolved);
  } catch {
    // resolved was just lstat'ed; a concurrent removal leaves the lexical value, which the open will then reject.
  }
  return { realPath: missing.length === 0 ? realPrefix : join(realPrefix, ...missing), exists: false };
}

async function resolveRoots(
  entries: readonly string[],
  base: string,
  home: string,
  setting: string,
): Promise<string[]> {
  const raws: string[] = [];
  for (const entry of entries) {
    const trimmed = entry.trim();
    if (trimmed === '') continue;
    const expanded = expandHome(trimmed, home, setting);
    raws.push(isAbsolute(expanded) ? expanded : `${base}${sep}${expanded}`);
  }
  return Promise.all(raws.map(async (raw) => (await resolvePhysicalPath(raw)).realPath));
}

function describeRoots(roots: readonly string[]): string {
  return roots.length <= 5
    ? roots.join(', ')
    : `${roots.slice(0, 5).join(', ')} and ${roots.length - 5} more`;
}

function shownPath(input: string | undefined, realPath: string): string {
  return input === undefined || input === realPath
    ? realPath
    : `${JSON.stringify(input)} (real path ${realPath})`;
}

/** Builds the policy once per call: roots are resolved to real paths up front. */
export async function createPathPolicy(options: PathPolicyOptions): Promise<PathPolicy> {
  const home = options.homeDirectory ?? homedir();
  const anchorDirectory =
    options.mode === 'agent' && options.workingDirectory !== undefined ? options.workingDirectory : undefined;
  const baseDirectory = anchorDirectory ?? options.processDirectory ?? process.cwd();
  const [allowedRoots, deniedRoots, protectedRoots, confinedRoots] = await Promise.all([
    resolveRoots(
      [
        ...(options.allowedPaths ?? []),
        ...(options.restrictToWorkingDirectory === true && anchorDirectory !== undefined
          ? [anchorDirectory]
          : []),
      ],
      baseDirectory,
      home,
      'allowedPaths',
    ),
    resolveRoots(options.deniedPaths ?? [], baseDirectory, home, 'deniedPaths'),
    resolveRoots(options.protectedPaths ?? [], baseDirectory, home, 'protectedPaths'),
    resolveRoots(options.confinedTo ?? [], baseDirectory, home, 'confinedTo'),
  ]);
  const confined = options.confinedTo !== undefined;

  const isAllowed = (realPath: string): boolean => {
    if (protectedRoots.some((root) => isPathInside(realPath, root))) return false;
    if (deniedRoots.some((root) => isPathInside(realPath, root))) return false;
    if (confined && !confinedRoots.some((root) => isPathInside(realPath, root))) return false;
    return allowedRoots.length === 0 || allowedRoots.some((root) => isPathInside(realPath, root));
  };

  const check = (realPath: string, argument = 'path', input?: string): void => {
    const protectedRoot = protectedRoots.find((root) => isPathInside(realPath, root));
    if (protectedRoot !== undefined) {
      throw new ToolportError(
        'permission_denied',
        `Access to ${shownPath(input, realPath)} is denied: it is inside ${protectedRoot}, which the operator ` +
          "protects (toolport's own data: database, secret key, tokens); no tool setting can allow it. Do not retry " +
          `this path (or a link to it); work with files outside ${protectedRoot}.`,
        { details: { argument, path: realPath, protectedPath: protectedRoot } },
      );
    }
    const denied = deniedRoots.find((root) => isPathInside(realPath, root));
    if (denied !== undefined) {
      throw new ToolportError(
        'permission_denied',
        `Access to ${shownPath(input, realPath)} is denied: it is inside ${denied}, which the deniedPaths setting ` +
          `excludes. Do not retry this path (or a link to it); work with files outside ${denied}.`,
        { details: { argument, path: realPath, deniedPath: denied } },
      );
    }
    if (confined && !confinedRoots.some((root) => isPathInside(realPath, root))) {
      throw new ToolportError(
        'permission_denied',
        `Access to ${shownPath(input, realPath)} is denied: filesystem tools are confined to ` +
          `${confinedRoots.length === 0 ? 'nothing' : describeRoots(confinedRoots)}` +
          `${options.confinementSource === undefined ? '' : ` (${options.confinementSource})`}. Use a path inside it.`,
        { details: { argument, path: realPath, confinedTo: confinedRoots } },
      );
    }
    if (allowedRoots.length > 0 && !allowedRoots.some((root) => isPathInside(realPath, root))) {
      throw new ToolportError(
        'permission_denied',
        `Access to ${shownPath(input, realPath)} is denied: it is outside the allowed paths ` +
          `(${describeRoots(allowedRoots)}). Use a path inside one of them.`,
        { details: { argument, path: realPath, allowedPaths: allowedRoots } },
      );
    }
  };

  const resolvePath = async (input: string, argument = 'path'): Promise<ResolvedPath> => {
    if (input.trim() === '') {
      throw new ToolArgumentError(
        argument,
        'a non-empty path',
        'an empty string',
        `\`${argument}\` is empty. Pass an absolute path, a path starting with ~/, or a path relative to ${baseDirectory}.`,
      );
    }
    if (input.includes('\0')) {
      throw new ToolArgumentError(argument, 'a path without NUL bytes', 'a string containing a NUL byte');
    }
    const expanded = expandHome(input, home, argument);
    // Joined, not path.resolve()d: `link/..` must be resolved through the link, as the kernel would.
    const raw = isAbsolute(expanded) ? expanded : `${baseDirectory}${sep}${expanded}`;
    const { realPath, exists } = await resolvePhysicalPath(raw);
    check(realPath, argument, input);
    return { input, realPath, exists };
  };

  return {
    baseDirectory,
    anchorDirectory,
    resolve: resolvePath,
    check,
    isAllowed,
    allowedRoots,
    deniedRoots,
    confinedRoots,
    refusesHardLinks: options.refuseHardLinks === true,
  };
}

/** SPEC PATH-2 in one call: resolves `input` under `options` and throws `permission_denied` when the policy refuses. */
export async function resolveAndValidatePath(
  input: string,
  options: PathPolicyOptions,
): Promise<ResolvedPath> {
  return (await createPathPolicy(options)).resolve(input);
}

/**
 * A hard link is a second name for one file: containment sees only the name that was opened, so `ws/hard` linked to
 * `ws/secret/key` (or to a file outside every allowed root) would pass. When the policy refuses hard links, a regular
 * file whose descriptor reports more than one link is refused (directories always have several and are not files).
 */
export function assertNotHardLinked(
  stats: { isFile(): boolean; nlink: number },
  realPath: string,
  argument = 'path',
): void {
  if (!stats.isFile() || stats.nlink <= 1) return;
  throw new ToolportError(
    'permission_denied',
    `Access to ${realPath} is denied: it has ${stats.nlink} hard links, and another name of the same file may be a ` +
      'denied or outside path. Files with more than one link are refused (policy "files.allowHardLinks"; on the CLI, ' +
      '--no-confine).',
    { details: { argument, path: realPath, policyKey: 'files.allowHardLinks', links: stats.nlink } },
  );
}

/**
 * Narrows the race between the check and the open: after opening, asks the kernel which file the descriptor really
 * is (`/proc/self/fd/N` on Linux) and re-applies the policy to that path. Where `/proc` is unavailable this is a
 * no-op; the open itself used the resolved real path with O_NOFOLLOW. When the policy refuses hard links, the
 * descriptor's own `fstat` decides (`assertNotHardLinked`), so a link swapped in after the check is caught too.
 */
export async function verifyOpenedPath(
  handle: FileHandle,
  expectedRealPath: string,
  policy: PathPolicy,
  argument = 'path',
): Promise<string> {
  return verifyOpenedDescriptor(
    handle.fd,
    policy.refusesHardLinks ? await handle.stat() : undefined,
    expectedRealPath,
    policy,
    argument,
  );
}

/** `verifyOpenedPath` for a raw descriptor whose `fstat` the caller already has (needed when hard links are refused). */
export function verifyOpenedDescriptor(
  descriptor: number,
  stats: Pick<Stats, 'isFile' | 'nlink'> | undefined,
  expectedRealPath: string,
  policy: PathPolicy,
  argument = 'path',
): string {
  if (policy.refusesHardLinks) {
    if (stats === undefined)
      throw new Error('verifyOpenedDescriptor needs the fstat when hard links are refused');
    assertNotHardLinked(stats, expectedRealPath, argument);
  }
  if (process.platform !== 'linux') return expectedRealPath;
  let actual: string;
  try {
    actual = readlinkSync(`/proc/self/fd/${descriptor}`);
  } catch {
    return expectedRealPath;
  }
  if (actual !== expectedRealPath) policy.check(actual, argument);
  return actual;
}
