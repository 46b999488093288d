import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';

/** Alive means signalable and not a zombie (a killed child waits for its reaper in state Z, which still answers kill 0). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return process.platform !== 'linux';
  }
}

export function readPids(file: string): number[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map(Number);
}

/** The kernel finishes a SIGKILL asynchronously: give the recorded processes a moment, then report who is left. */
export async function survivorsAfterGrace(pids: readonly number[], graceMs = 2_000): Promise<number[]> {
  const deadline = Date.now() + graceMs;
  let alive = pids.filter(isProcessAlive);
  while (alive.length > 0 && Date.now() < deadline) {
    await delay(20);
    alive = alive.filter(isProcessAlive);
  }
  return alive;
}

export async function waitForLines(file: string, count: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (readPids(file).length < count) {
    if (Date.now() > deadline) throw new Error(`${file} never reached ${count} lines`);
    await delay(20);
  }
}

/** Test hygiene: whatever a failing test left running must not linger on the machine. */
export function killLeftovers(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

/** A value unique to one test, for a command to carry (`export TOOLPORT_PROBE=…`) so the host can find its processes. */
export function probeToken(): string {
  return `tp${process.pid}x${Math.random().toString(36).slice(2, 10)}`;
}

/**
 * Host pids of live processes whose environment or command line contains `token`. A sandboxed command's `$$` is a
 * pid in its own namespace, meaningless on the host, so survivors are found by what they carry instead.
 */
export function processesCarrying(token: string): number[] {
  const needle = Buffer.from(token);
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const carries =
        readFileSync(`/proc/${pid}/environ`).includes(needle) ||
        readFileSync(`/proc/${pid}/cmdline`).includes(needle);
      if (carries && isProcessAlive(pid)) found.push(pid);
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

/** The processes still carrying `token` after giving a SIGKILL a bounded moment to land. */
export async function survivorsCarrying(token: string, graceMs = 2_000): Promise<number[]> {
  const deadline = Date.now() + graceMs;
  let alive = processesCarrying(token);
  while (alive.length > 0 && Date.now() < deadline) {
    await delay(20);
    alive = processesCarrying(token);
  }
  return alive;
}

/** Test hygiene by token: whatever a failing test left running must not linger (never by recorded `$$`). */
export function killCarrying(tokens: readonly string[]): void {
  for (const token of tokens) killLeftovers(processesCarrying(token));
}
