import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ShellSandboxOptions, ToolServices } from '../../core/tool-types.ts';
import { findExecutableOnPath } from './find-executable-on-path.ts';
import { defaultShellStateDirectory } from './shell-call-records.ts';
import { detectShellCgroupSupport, type ShellCgroupLimits, type ShellCgroupSupport } from './shell-cgroup.ts';

/** FS-6 sandbox defaults (docs/shell-sandbox.md): enough for a build, far from enough to take the host down. */
export const DEFAULT_SHELL_PIDS_MAX = 1024;
export const DEFAULT_SHELL_MEMORY_MAX_BYTES = 2 * 1024 ** 3;
/** `nobody` on Debian, Ubuntu, Fedora and Alpine: who commands run as when the server is root. */
export const DEFAULT_SANDBOX_ID = 65534;
/** `TOOLPORT_SHELL_SANDBOX=off` turns the sandbox off (the fallback then applies, and serve says so). */
export const SHELL_SANDBOX_VARIABLE = 'TOOLPORT_SHELL_SANDBOX';

export interface AvailableShellSandbox {
  available: true;
  bwrap: string;
  perl: string;
  sh: string;
  /** Present when the server is root: drops to the sandbox identity before bubblewrap starts. */
  setpriv: string | undefined;
  cgroups: ShellCgroupSupport | undefined;
  /** Why there are no cgroup limits, when `cgroups` is undefined. */
  cgroupReason: string | undefined;
}

export type ShellSandboxStatus = AvailableShellSandbox | { available: false; reason: string };

/** One call's sandbox, resolved from the status, the host's options and the call's directories. */
export interface ShellSandboxPlan {
  support: AvailableShellSandbox;
  /** Writable bind mounts: the working directory first, then the operator's extra paths (all existing). */
  writablePaths: string[];
  /** Covered inside the sandbox: an empty tmpfs over a directory, /dev/null over a file. */
  hiddenPaths: { path: string; directory: boolean }[];
  /** Set when the server is root: the unprivileged uid/gid the command runs as. */
  identity: { uid: number; gid: number } | undefined;
  limits: ShellCgroupLimits;
  stateDirectory: string;
}

let detected: Promise<ShellSandboxStatus> | undefined;

/**
 * Whether shells can run sandboxed here (cached for the process): Linux, bubblewrap and perl on PATH (plus setpriv
 * when root), and a real trial run. The trial catches kernels or containers that forbid user namespaces.
 */
export function detectShellSandbox(env: NodeJS.ProcessEnv = process.env): Promise<ShellSandboxStatus> {
  detected ??= probe(env);
  return detected;
}

async function probe(env: NodeJS.ProcessEnv): Promise<ShellSandboxStatus> {
  if (process.platform !== 'linux')
    return { available: false, reason: 'only Linux has the namespaces it needs' };
  if ((env[SHELL_SANDBOX_VARIABLE] ?? '').toLowerCase() === 'off')
    return { available: false, reason: `turned off by ${SHELL_SANDBOX_VARIABLE}=off` };
  const searchPath = `${env.PATH ?? ''}:/usr/local/bin:/usr/bin:/bin`;
  const bwrap = findExecutableOnPath('bwrap', searchPath);
  if (bwrap === undefined)
    return { available: false, reason: 'bubblewrap (bwrap) is not installed: apt-get install bubblewrap' };
  const perl = findExecutableOnPath('perl', searchPath);
  if (perl === undefined)
    return { available: false, reason: 'perl is not installed (the sandbox init uses it)' };
  const sh = findExecutableOnPath('sh', searchPath) ?? '/bin/sh';
  const root = process.getuid?.() === 0;
  const setpriv = root ? findExecutableOnPath('setpriv', searchPath) : undefined;
  if (root && setpriv === undefined)
    return {
      available: false,
      reason: 'setpriv (util-linux) is not installed; it drops root before the sandbox',
    };
  const cgroups = await detectShellCgroupSupport();
  const support: AvailableShellSandbox = {
    available: true,
    bwrap,
    perl,
    sh,
    setpriv,
    cgroups: 'support' in cgroups ? cgroups.support : undefined,
    cgroupReason: 'reason' in cgroups ? cgroups.reason : undefined,
  };
  // A trial run through the real path: user namespaces may be forbidden (sysctl, AppArmor, a container's seccomp).
  const { runShellCommand } = await import('./run-shell-command.ts');
  try {
    const trial = await runShellCommand({
      interpreter: sh,
      args: ['-c', 'exit 0'],
      cwd: '/',
      env: { PATH: '/usr/bin:/bin' },
      timeoutMs: 10_000,
      maxOutputBytes: 4096,
      sandbox: {
        support,
        writablePaths: [],
        hiddenPaths: [],
        identity: root ? { uid: DEFAULT_SANDBOX_ID, gid: DEFAULT_SANDBOX_ID } : undefined,
        limits: { pidsMax: 16, memoryMaxBytes: 64 * 1024 ** 2 },
        stateDirectory: defaultShellStateDirectory(),
      },
    });
    if (trial.exitCode !== 0)
      return {
        available: false,
        reason: `bubblewrap failed a trial run: ${trial.stderr.trim() || trial.termination}`,
      };
  } catch (error) {
    return { available: false, reason: `bubblewrap failed a trial run: ${(error as Error).message}` };
  }
  return support;
}

/** The line `toolport serve` prints at start-up about shells. */
export function describeShellSandboxStatus(status: ShellSandboxStatus): string {
  if (!status.available) {
    return (
      `shell sandbox: UNAVAILABLE (${status.reason}); bash/zsh calls run unsandboxed as this server's user ` +
      '(process-group kill and /proc sweep only)'
    );
  }
  const limits =
    status.cgroups === undefined
      ? `no cgroup limits (${status.cgroupReason ?? 'unavailable'})`
      : `cgroup v${status.cgroups.version} limits`;
  const identity =
    status.setpriv === undefined ? 'as this user' : `as uid ${DEFAULT_SANDBOX_ID} or the workspace owner`;
  return `shell sandbox: bubblewrap (PID namespace, read-only root, ${limits}), commands run ${identity}`;
}

/** The paths that exist, and whether each is a directory. Synchronous: a few stats, microseconds each. */
function existing(paths: readonly string[]): { path: string; directory: boolean }[] {
  const found: { path: string; directory: boolean }[] = [];
  for (const path of paths) {
    const stats = statSync(path, { throwIfNoEntry: false });
    if (stats !== undefined) found.push({ path, directory: stats.isDirectory() });
  }
  return found;
}

/**
 * Whether `identity` (no supplementary groups: `setpriv --clear-groups`) may search every directory above `path`, as
 * the kernel checks it: the owner's bits for the owner, else the group's for the group, else the others'.
 */
function isReachableBy(path: string, identity: { uid: number; gid: number }): boolean {
  for (let directory = dirname(path); ; directory = dirname(directory)) {
    const stats = statSync(directory, { throwIfNoEntry: false });
    if (stats === undefined) return false;
    const bit = stats.uid === identity.uid ? 0o100 : stats.gid === identity.gid ? 0o010 : 0o001;
    if ((stats.mode & bit) === 0) return false;
    if (directory === dirname(directory)) return true;
  }
}

function sandboxIdentity(
  options: ShellSandboxOptions,
  workingDirectory: string | undefined,
): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const configured = options.uid !== undefined && options.uid !== 0 ? options.uid : undefined;
  if (configured !== undefined) return { uid: configured, gid: options.gid ?? configured };
  if (workingDirectory !== undefined) {
    try {
      const owner = statSync(workingDirectory);
      // A workspace handed to an account: commands run as that account and can write it.
      if (owner.uid !== 0) return { uid: owner.uid, gid: owner.gid };
    } catch {
      // gone: fall through to nobody
    }
  }
  return { uid: DEFAULT_SANDBOX_ID, gid: DEFAULT_SANDBOX_ID };
}

/**
 * The sandbox for one call: writable are the chat's bound working directory (else the server's own directory,
 * where chat mode runs by default — never a `cwd` the model picked) and the operator's `writablePaths`; the host's
 * protected paths are hidden. Undefined when no sandbox is available.
 */
/**
 * /proc and /dev inside the sandbox are its own (a fresh procfs of its PID namespace, a minimal /dev), not the host's:
 * the operator policy denies the host's to file tools, and hiding the sandbox's would only break every command
 * (`/dev/null`). Nothing below them is hidden either, for the same reason.
 */
const SANDBOX_OWN_MOUNTS = ['/proc', '/dev'];

function isSandboxOwnMount(path: string): boolean {
  return SANDBOX_OWN_MOUNTS.some((mount) => path === mount || path.startsWith(`${mount}/`));
}

export async function planShellSandbox(input: {
  status: ShellSandboxStatus;
  workingDirectory: string | undefined;
  services: ToolServices;
  /** The server's directory (chat mode's default cwd). */
  processDirectory?: string;
}): Promise<ShellSandboxPlan | undefined> {
  const { status, services } = input;
  if (!status.available) return undefined;
  const options = services.shellSandbox ?? {};
  const writable = existing([
    input.workingDirectory ?? input.processDirectory ?? process.cwd(),
    ...(options.writablePaths ?? []),
  ]);
  const identity = sandboxIdentity(options, input.workingDirectory);
  const protectedPaths = (services.protectedPaths ?? []).filter((path) => !isSandboxOwnMount(path));
  return {
    support: status,
    writablePaths: writable.map((entry) => entry.path),
    // A path the sandbox's uid cannot reach is hidden already, and bubblewrap (running as that uid) could not mount
    // over it: root's default data directory under /root (0700) made every sandboxed call fail.
    hiddenPaths: existing(protectedPaths).filter(
      (entry) => identity === undefined || isReachableBy(entry.path, identity),
    ),
    identity,
    limits: {
      pidsMax: options.pidsMax ?? DEFAULT_SHELL_PIDS_MAX,
      memoryMaxBytes: options.memoryMaxBytes ?? DEFAULT_SHELL_MEMORY_MAX_BYTES,
    },
    stateDirectory: options.stateDirectory ?? defaultShellStateDirectory(),
  };
}
