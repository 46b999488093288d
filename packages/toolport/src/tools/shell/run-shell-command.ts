import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { CappedOutput } from './capped-output.ts';
import { killProcessGroup, killProcessesCarrying } from './kill-process-tree.ts';

export type ShellTermination = 'exited' | 'timed_out' | 'aborted' | 'signalled';

/** SPEC FS-6: what a shell tool returns. A non-zero exit code is a result, not an error. */
export interface ShellCommandResult {
  stdout: string;
  stderr: string;
  /** null when the process was ended by a signal. */
  exitCode: number | null;
  /** The signal that ended the interpreter (e.g. SIGKILL after a timeout), else null. */
  signal: string | null;
  durationMs: number;
  /** exited: ran to its end; timed_out: killed by its time budget; aborted: the caller cancelled; signalled: killed by someone else. */
  termination: ShellTermination;
  /** True when stdout or stderr produced more than maxOutputBytes and the rest was dropped. */
  truncated: boolean;
}

export interface RunShellCommandOptions {
  /** Absolute path of the interpreter. */
  interpreter: string;
  args: readonly string[];
  cwd: string;
  /** The child's whole environment (see buildChildEnvironment). */
  env: Record<string, string>;
  /** The run's own timer: at this point the whole process group gets SIGKILL. */
  timeoutMs: number;
  /** Cap per stream, applied while the output streams. */
  maxOutputBytes: number;
  /** Cancellation. A reason named TimeoutError (executeTool's ToolTimeoutReason, AbortSignal.timeout) is a timeout. */
  signal?: AbortSignal;
  /** Every chunk as it arrives, before the cap (for live progress and logs: `shell-output-reporter.ts`). */
  onOutput?: (stream: 'stdout' | 'stderr', chunk: Buffer) => void;
}

/**
 * Every child carries this variable with a value unique to its run, so descendants that left the process group
 * (setsid) can still be found and killed on Linux. It names a run, not a secret.
 */
export const SHELL_RUN_MARKER_NAME = 'TOOLPORT_SHELL_RUN_ID';

/** After the interpreter exits (and its group is killed), how long its pipes may stay open before we stop waiting. */
const PIPE_CLOSE_GRACE_MS = 100;
/** After SIGKILL, how long to wait for the exit event before finishing anyway (a process stuck in the kernel). */
const EXIT_AFTER_KILL_GRACE_MS = 2_000;

function terminationForAbort(signal: AbortSignal): ShellTermination {
  const reason: unknown = signal.reason;
  const name =
    typeof reason === 'object' && reason !== null ? (reason as { name?: unknown }).name : undefined;
  return name === 'TimeoutError' ? 'timed_out' : 'aborted';
}

/**
 * Runs `interpreter args…` detached (its own process group) with stdin on /dev/null, both outputs capped while they
 * stream, and its own timer. Timeout, abort and exit all end with SIGKILL to the whole group, so no background
 * child, double-forked grandchild or SIGTERM-ignoring process outlives the call; completion follows the
 * interpreter's exit, not pipe EOF, which a background child holding the pipes could postpone forever.
 * Rejects only when the interpreter cannot be started.
 *
 * @example
 * ```ts
 * import { runShellCommand } from 'toolport';
 *
 * const result = await runShellCommand({
 *   interpreter: '/usr/bin/bash',
 *   args: ['-c', 'make test'],
 *   cwd: '/srv/project',
 *   env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
 *   timeoutMs: 60_000,
 *   maxOutputBytes: 100 * 1024,
 *   signal: AbortSignal.timeout(120_000),
 * });
 * // result.termination: 'exited' | 'timed_out' | 'aborted' | 'signalled'
 * ```
 */
export function runShellCommand(options: RunShellCommandOptions): Promise<ShellCommandResult> {
  const startTime = performance.now();
  const { signal } = options;
  const stdout = new CappedOutput(options.maxOutputBytes);
  const stderr = new CappedOutput(options.maxOutputBytes);
  const resultWith = (
    termination: ShellTermination,
    exitCode: number | null,
    exitSignal: string | null,
  ): ShellCommandResult => ({
    stdout: stdout.text(),
    stderr: stderr.text(),
    exitCode,
    signal: exitSignal,
    durationMs: Math.round(performance.now() - startTime),
    termination,
    truncated: stdout.truncated || stderr.truncated,
  });
  if (signal?.aborted) return Promise.resolve(resultWith(terminationForAbort(signal), null, null));

  return new Promise((resolve, reject) => {
    const runId = randomUUID();
    const marker = `${SHELL_RUN_MARKER_NAME}=${runId}`;
    const child = spawn(options.interpreter, options.args, {
      cwd: options.cwd,
      env: { ...options.env, [SHELL_RUN_MARKER_NAME]: runId },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });

    let settled = false;
    let cutShort: ShellTermination | undefined;
    let exit: { code: number | null; signal: string | null } | undefined;
    let openStreams = 2;
    let graceTimer: NodeJS.Timeout | undefined;

    let pendingSweep: Promise<unknown> | undefined;

    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearTimeout(graceTimer);
      signal?.removeEventListener('abort', onAbort);
      // Anything a surviving writer still sends is not ours to wait for.
      child.stdout.destroy();
      child.stderr.destroy();
      const termination = cutShort ?? (exit?.code === null && exit.signal !== null ? 'signalled' : 'exited');
      const result = resultWith(termination, exit?.code ?? null, exit?.signal ?? null);
      // Resolve only once escaped descendants are dead, so a caller never observes a survivor.
      if (pendingSweep === undefined) {
        resolve(result);
        // A setsid descendant that also closed its output escapes both the group kill and the open-pipe check. The
        // /proc sweep for the run marker costs milliseconds, so it runs after the result is out, not before.
        void killProcessesCarrying(marker).catch(() => {});
      } else void pendingSweep.finally(() => resolve(result));
    };

    const killEverything = (): void => {
      if (child.pid !== undefined) killProcessGroup(child.pid);
      pendingSweep ??= killProcessesCarrying(marker);
    };

    const cut = (termination: ShellTermination): void => {
      if (settled) return;
      if (exit === undefined) cutShort = termination;
      killEverything();
      clearTimeout(graceTimer);
      graceTimer = setTimeout(finish, exit === undefined ? EXIT_AFTER_KILL_GRACE_MS : 0);
    };
    const onAbort = (): void => cut(terminationForAbort(signal!));
    const deadline = setTimeout(() => cut('timed_out'), options.timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });

    const onStreamClosed = (): void => {
      openStreams -= 1;
      if (openStreams === 0 && exit !== undefined) finish();
    };
    const { onOutput } = options;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout.append(chunk);
      onOutput?.('stdout', chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr.append(chunk);
      onOutput?.('stderr', chunk);
    });
    child.stdout.on('close', onStreamClosed);
    child.stderr.on('close', onStreamClosed);

    child.on('error', (error) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearTimeout(graceTimer);
      signal?.removeEventListener('abort', onAbort);
      if (child.pid !== undefined) killProcessGroup(child.pid);
      reject(error);
    });

    child.on('exit', (code, exitSignal) => {
      exit = { code, signal: exitSignal };
      clearTimeout(deadline);
      // The interpreter is done; whatever it left running in its group goes with it, which also releases the pipes.
      if (child.pid !== undefined) killProcessGroup(child.pid);
      if (openStreams === 0) {
        finish();
        return;
      }
      clearTimeout(graceTimer);
      graceTimer = setTimeout(() => {
        // Pipes still open after the group died: a descendant escaped the group (setsid). Hunt it, then finish.
        killEverything();
        finish();
      }, PIPE_CLOSE_GRACE_MS);
    });
  });
}
