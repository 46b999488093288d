import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';

/** SIGKILL to every process of the group `groupId` (the detached child's pid). Silent when the group is gone. */
export function killProcessGroup(groupId: number): void {
  if (process.platform === 'win32') {
    // Windows has no process groups to signal; taskkill /T walks the child tree instead.
    spawn('taskkill', ['/pid', String(groupId), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on(
      'error',
      () => {},
    );
    return;
  }
  try {
    process.kill(-groupId, 'SIGKILL');
  } catch {
    // ESRCH: nobody left in the group.
  }
}

/**
 * Linux: SIGKILL every process whose environment carries `marker` (`NAME=value`). This catches descendants that
 * left the process group with setsid (the daemon-style double fork), which a group kill cannot reach. Reads
 * /proc, a few milliseconds on a busy machine, so it runs before the result only when a run is cut short or its pipes
 * outlive it, and after the result otherwise.
 * A process that rewrote its own environment escapes this; so does one owned by another user.
 */
export async function killProcessesCarrying(marker: string): Promise<number[]> {
  if (process.platform !== 'linux') return [];
  const needle = Buffer.from(`${marker}\0`);
  const killed: number[] = [];
  // One pass sees the /proc listing of one moment: a marked process that forked after it (a `setsid` leaving its
  // group forks, then its parent exits) leaves a child the pass never saw. Sweep again while a pass still kills.
  for (let pass = 0; pass < MAX_SWEEP_PASSES; pass += 1) {
    const found = await sweepOnce(needle);
    killed.push(...found);
    if (found.length === 0) break;
  }
  return killed;
}

const MAX_SWEEP_PASSES = 8;

async function sweepOnce(needle: Buffer): Promise<number[]> {
  const killed: number[] = [];
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return [];
  }
  await Promise.all(
    entries.map(async (entry) => {
      const pid = Number(entry);
      if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) return;
      let environment: Buffer;
      try {
        environment = await readFile(`/proc/${pid}/environ`);
      } catch {
        return; // exited meanwhile, or not ours to read
      }
      // Entries are NUL-separated; match a whole entry, not a suffix of another variable's value.
      const at = environment.indexOf(needle);
      if (at === -1 || (at > 0 && environment[at - 1] !== 0)) return;
      try {
        process.kill(pid, 'SIGKILL');
        killed.push(pid);
      } catch {
        // already gone
      }
    }),
  );
  return killed;
}
