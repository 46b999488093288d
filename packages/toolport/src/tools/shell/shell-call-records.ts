import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killProcessesCarrying } from './kill-process-tree.ts';
import { killAndRemoveShellCallCgroup } from './shell-cgroup.ts';

/**
 * One running shell call, written before the child starts and removed once everything it started is dead. A
 * server killed mid-call (SIGKILL, OOM, power) leaves its records behind; the next start reads them and kills what
 * the dead server left (`recoverShellCalls`).
 */
export interface ShellCallRecord {
  version: 1;
  /** The process that ran the call, and its start time (clock ticks since boot), so a reused pid is not mistaken for it. */
  ownerPid: number;
  ownerStartTime: string;
  /** The run marker (`TOOLPORT_SHELL_RUN_ID=…`) every process of the call carries in its environment. */
  marker: string;
  /** The call's cgroup directories, when it ran in one. */
  cgroups: string[];
  startedAt: string;
}

/**
 * The state directory used when the host gave none: under the CLI's `TOOLPORT_STATE_DIR` when it is set (next to the
 * freshness ledger), else per user in the temp dir, so two accounts never read each other's records.
 */
export function defaultShellStateDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const state = env.TOOLPORT_STATE_DIR;
  if (state !== undefined && state !== '') return join(state, 'shell-calls');
  return join(tmpdir(), `toolport-shell-calls-${process.getuid?.() ?? 'user'}`);
}

/** Field 22 of /proc/<pid>/stat: the process's start time, which with the pid names one process for good. */
function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

let ownStartTime: string | undefined;

/**
 * Writes the record and returns its path. Synchronous: a few hundred bytes to a local file take microseconds, where
 * two thread-pool round trips per call cost milliseconds on a busy machine (the shell bench shows it).
 */
export function writeShellCallRecord(
  directory: string,
  id: string,
  record: Pick<ShellCallRecord, 'marker' | 'cgroups'>,
): string {
  ownStartTime ??= processStartTime(process.pid) ?? '';
  const full: ShellCallRecord = {
    version: 1,
    ownerPid: process.pid,
    ownerStartTime: ownStartTime,
    startedAt: new Date().toISOString(),
    ...record,
  };
  const path = join(directory, `${id}.json`);
  try {
    writeFileSync(path, JSON.stringify(full), { mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    writeFileSync(path, JSON.stringify(full), { mode: 0o600 });
  }
  return path;
}

export function removeShellCallRecord(path: string): void {
  rmSync(path, { force: true });
}

function isOwnerAlive(record: ShellCallRecord): boolean {
  return processStartTime(record.ownerPid) === record.ownerStartTime;
}

/**
 * Kills what dead servers' calls left (their cgroup's processes, and on the unsandboxed fallback every process
 * carrying the call's run marker) and removes their records. Records of live servers (another instance sharing the
 * state directory) are left alone. Returns how many calls it cleaned up.
 */
export async function recoverShellCalls(directory: string): Promise<number> {
  ownStartTime ??= processStartTime(process.pid) ?? '';
  let entries: string[];
  try {
    entries = await readdir(directory);
  } catch {
    return 0;
  }
  let recovered = 0;
  for (const entry of entries.filter((name) => name.endsWith('.json'))) {
    const path = join(directory, entry);
    let record: ShellCallRecord;
    try {
      record = JSON.parse(await readFile(path, 'utf8')) as ShellCallRecord;
    } catch {
      await rm(path, { force: true });
      continue;
    }
    if (record.version !== 1 || isOwnerAlive(record)) continue;
    await killAndRemoveShellCallCgroup(record.cgroups ?? []);
    if (typeof record.marker === 'string' && record.marker !== '') await killProcessesCarrying(record.marker);
    await rm(path, { force: true });
    recovered += 1;
  }
  return recovered;
}

const recoveredDirectories = new Set<string>();

/**
 * `recoverShellCalls` once per directory and process, in the background: hosts other than `serve` (the CLI,
 * `toolport mcp`) clean up what a crashed predecessor left on their first shell call.
 */
export function recoverShellCallsOnce(directory: string): void {
  if (recoveredDirectories.has(directory)) return;
  recoveredDirectories.add(directory);
  void recoverShellCalls(directory).catch(() => {});
}
