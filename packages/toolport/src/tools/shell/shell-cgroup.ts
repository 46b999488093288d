import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync as writeFileNow } from 'node:fs';
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

const CGROUP_ROOT = '/sys/fs/cgroup';
/** Every call's cgroup is a child of `<the server's own cgroup>/toolport-shell`, so we never touch anyone else's. */
export const SHELL_CGROUP_PARENT_NAME = 'toolport-shell';

/** Where per-call cgroups can be made: one unified (v2) directory, or one directory per v1 controller. */
export type ShellCgroupSupport =
  { version: 2; parent: string } | { version: 1; pidsParent: string; memoryParent: string };

export interface ShellCgroupLimits {
  pidsMax: number;
  memoryMaxBytes: number;
}

/** One call's cgroup: a directory per hierarchy (one on v2, pids + memory on v1). */
export interface ShellCallCgroup {
  directories: string[];
  /** The `cgroup.procs` files a process writes its pid to, to join. */
  procsFiles: string[];
}

/** The server's own path in hierarchy `key` (`0::` for v2, a controller name for v1) from /proc/self/cgroup. */
function ownCgroupPath(key: string): string | undefined {
  const lines = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  for (const line of lines) {
    const [, controllers, path] = line.match(/^\d+:([^:]*):(.*)$/) ?? [];
    if (controllers === undefined || path === undefined) continue;
    if (key === '' ? controllers === '' && line.startsWith('0:') : controllers.split(',').includes(key))
      return path;
  }
  return undefined;
}

/**
 * Finds where this process may create per-call cgroups with pids and memory limits: a pure cgroup v2 mount with
 * both controllers delegated to our subtree, or the v1 `pids` and `memory` hierarchies (a hybrid machine). Returns
 * a reason instead when neither works (no permission, controllers missing): the call then runs without limits.
 */
export async function detectShellCgroupSupport(): Promise<
  { support: ShellCgroupSupport } | { reason: string }
> {
  try {
    if (existsSync(join(CGROUP_ROOT, 'cgroup.controllers'))) {
      const own = ownCgroupPath('') ?? '/';
      const ownDirectory = join(CGROUP_ROOT, own);
      const available = (await readFile(join(ownDirectory, 'cgroup.controllers'), 'utf8')).split(/\s+/);
      if (!available.includes('pids') || !available.includes('memory'))
        return { reason: `cgroup v2 at ${ownDirectory} lacks the pids or memory controller` };
      // The "no internal processes" rule: controllers can be enabled below our cgroup only if it is the root or
      // holds no process itself (systemd's Delegate=yes with the server in a leaf is the usual way).
      await writeFile(join(ownDirectory, 'cgroup.subtree_control'), '+pids +memory');
      const parent = join(ownDirectory, SHELL_CGROUP_PARENT_NAME);
      await mkdir(parent, { recursive: true });
      await writeFile(join(parent, 'cgroup.subtree_control'), '+pids +memory');
      return verified({ version: 2, parent });
    }
    const pidsOwn = ownCgroupPath('pids');
    const memoryOwn = ownCgroupPath('memory');
    if (pidsOwn === undefined || memoryOwn === undefined)
      return { reason: 'no cgroup v2 mount and no v1 pids/memory hierarchy' };
    const pidsParent = join(CGROUP_ROOT, 'pids', pidsOwn, SHELL_CGROUP_PARENT_NAME);
    const memoryParent = join(CGROUP_ROOT, 'memory', memoryOwn, SHELL_CGROUP_PARENT_NAME);
    await mkdir(pidsParent, { recursive: true });
    await mkdir(memoryParent, { recursive: true });
    return verified({ version: 1, pidsParent, memoryParent });
  } catch (error) {
    return { reason: `cannot create cgroups (${(error as Error).message})` };
  }
}

/** The parent may exist (made by root on an earlier start) yet refuse us a child: try one, with its limits. */
function verified(support: ShellCgroupSupport): { support: ShellCgroupSupport } {
  const probe = createShellCallCgroup(support, `probe-${process.pid}-${Date.now()}`, {
    pidsMax: 16,
    memoryMaxBytes: 64 * 1024 ** 2,
  });
  if (!removeEmptyShellCallCgroup(probe.directories)) throw new Error('cannot remove a probe cgroup');
  return { support };
}

/**
 * Creates the call's cgroup(s) named `id` with both limits set. Synchronous on purpose: cgroupfs operations are
 * in-kernel and take microseconds, while a trip through libuv's thread pool per file cost milliseconds under load.
 */
export function createShellCallCgroup(
  support: ShellCgroupSupport,
  id: string,
  limits: ShellCgroupLimits,
): ShellCallCgroup {
  if (support.version === 2) {
    const directory = join(support.parent, id);
    mkdirSync(directory);
    writeFileNow(join(directory, 'pids.max'), String(limits.pidsMax));
    writeFileNow(join(directory, 'memory.max'), String(limits.memoryMaxBytes));
    try {
      // Without swap the memory limit is the whole bound; a missing swap controller is fine.
      writeFileNow(join(directory, 'memory.swap.max'), '0');
    } catch {
      // no swap accounting
    }
    return { directories: [directory], procsFiles: [join(directory, 'cgroup.procs')] };
  }
  const pids = join(support.pidsParent, id);
  const memory = join(support.memoryParent, id);
  mkdirSync(pids);
  mkdirSync(memory);
  writeFileNow(join(pids, 'pids.max'), String(limits.pidsMax));
  writeFileNow(join(memory, 'memory.limit_in_bytes'), String(limits.memoryMaxBytes));
  return {
    directories: [pids, memory],
    procsFiles: [join(pids, 'cgroup.procs'), join(memory, 'cgroup.procs')],
  };
}

async function pidsIn(directory: string): Promise<number[]> {
  try {
    const text = await readFile(join(directory, 'cgroup.procs'), 'utf8');
    return text
      .split('\n')
      .filter((line) => line !== '')
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * SIGKILLs every process in the cgroup until it is empty (v2: `cgroup.kill`, one write), then removes the
 * directories. Killing the PID namespace's init already ends everyone inside; this is the net under it, and what a
 * restart uses on a dead server's calls. Bounded: gives up after about two seconds (a process stuck in the kernel).
 */
export async function killAndRemoveShellCallCgroup(directories: readonly string[]): Promise<void> {
  for (const directory of directories) {
    await writeFile(join(directory, 'cgroup.kill'), '1').catch(() => {});
  }
  for (let attempt = 0; attempt < 100; attempt += 1) {
    let left = 0;
    for (const directory of directories) {
      const pids = await pidsIn(directory);
      left += pids.length;
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }
    }
    if (left === 0) break;
    await delay(20);
  }
  for (const directory of directories) {
    for (let attempt = 0; attempt < 50; attempt += 1) {
      try {
        await rmdir(directory);
        break;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') break;
        // EBUSY: a killed process has not left the cgroup yet.
        await delay(20);
      }
    }
  }
}

/** Removes the call's cgroup directories now if they are empty; false when one is still busy (then kill and retry). */
export function removeEmptyShellCallCgroup(directories: readonly string[]): boolean {
  let removed = true;
  for (const directory of directories) {
    try {
      rmdirSync(directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') removed = false;
    }
  }
  return removed;
}
