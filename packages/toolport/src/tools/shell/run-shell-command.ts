import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { constants } from 'node:os';
import type { Readable } from 'node:stream';
import { CappedOutput } from './capped-output.ts';
import { killProcessGroup, killProcessesCarrying } from './kill-process-tree.ts';
import { parseSandboxReport, sandboxedSpawnArguments } from './sandbox-command.ts';
import { removeShellCallRecord, writeShellCallRecord } from './shell-call-records.ts';
import {
  createShellCallCgroup,
  killAndRemoveShellCallCgroup,
  removeEmptyShellCallCgroup,
} from './shell-cgroup.ts';
import type { ShellSandboxPlan } from './shell-sandbox.ts';

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
  /** Run inside this sandbox (planShellSandbox); without one, the unsandboxed fallback (group kill + /proc sweep). */
  sandbox?: ShellSandboxPlan | undefined;
  /** Unsandboxed runs: where the call's record goes, so a restart after a crash can sweep its run marker. */
  stateDirectory?: string | undefined;
  /** Every chunk as it arrives, before the cap (for live progress and logs: `shell-output-reporter.ts`). */
  onOutput?: ((stream: 'stdout' | 'stderr', chunk: Buffer) => void) | undefined;
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
 * stream, and its own timer. With a `sandbox` plan it runs in its own PID namespace and cgroup (docs/shell-sandbox.md):
 * exit tears the namespace down, timeout and abort kill the cgroup. Without one, timeout, abort and exit all end
 * with SIGKILL to the whole group plus a /proc sweep for the run marker. Either way no background child,
 * double-forked grandchild or SIGTERM-ignoring process outlives the call; completion follows the interpreter's
 * exit, not pipe EOF, which a background child holding the pipes could postpone forever. A stream passing
 * `maxOutputBytes` stops the command (SIGKILL, termination 'signalled', truncated). Rejects only when the
 * interpreter (or the sandbox) cannot be started.
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
export async function runShellCommand(options: RunShellCommandOptions): Promise<ShellCommandResult> {
  const startTime = performance.now();
  const { signal, sandbox } = options;
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
  if (signal?.aborted) return resultWith(terminationForAbort(signal), null, null);

  const runId = randomUUID();
  const marker = `${SHELL_RUN_MARKER_NAME}=${runId}`;
  const cgroup =
    sandbox?.support.cgroups === undefined
      ? undefined
      : createShellCallCgroup(sandbox.support.cgroups, runId, sandbox.limits);
  const stateDirectory = sandbox?.stateDirectory ?? options.stateDirectory;
  let recordPath: string | undefined;
  try {
    if (stateDirectory !== undefined)
      recordPath = writeShellCallRecord(stateDirectory, runId, {
        marker,
        cgroups: cgroup?.directories ?? [],
      });
  } catch {
    // A state directory we cannot write costs crash recovery, not the call.
  }
  let cleanup: Promise<void> | undefined;
  /** Kills whatever is left in the call's cgroup, removes it and the call's record. Runs once. */
  const cleanUp = (): Promise<void> =>
    (cleanup ??= (async () => {
      if (cgroup !== undefined) await killAndRemoveShellCallCgroup(cgroup.directories);
      if (recordPath !== undefined) removeShellCallRecord(recordPath);
    })().catch(() => {}));

  const launch =
    sandbox === undefined
      ? { file: options.interpreter, args: [...options.args] }
      : sandboxedSpawnArguments(
          sandbox,
          options.interpreter,
          options.args,
          options.cwd,
          cgroup?.procsFiles ?? [],
        );

  return new Promise((resolve, reject) => {
    const child = spawn(launch.file, launch.args, {
      // bubblewrap changes directory itself (--chdir), after its mounts; the sandbox user may not reach ours.
      cwd: sandbox === undefined ? options.cwd : '/',
      env: { ...options.env, [SHELL_RUN_MARKER_NAME]: runId },
      detached: true,
      stdio: sandbox === undefined ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const [, childStdout, childStderr] = child.stdio;
    const reportStream = child.stdio[3] as Readable | null | undefined;

    let settled = false;
    let cutShort: ShellTermination | undefined;
    let exit: { code: number | null; signal: string | null } | undefined;
    let openStreams = sandbox === undefined ? 2 : 3;
    let graceTimer: NodeJS.Timeout | undefined;
    let reportText = '';

    let pendingSweep: Promise<unknown> | undefined;

    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearTimeout(graceTimer);
      signal?.removeEventListener('abort', onAbort);
      // Anything a surviving writer still sends is not ours to wait for.
      childStdout?.destroy();
      childStderr?.destroy();
      reportStream?.destroy();
      const outcome = exitOutcome(exit, sandbox === undefined ? undefined : reportText, cutShort);
      if (outcome === 'sandbox_failed') {
        void cleanUp();
        const identity = sandbox?.identity;
        const hint =
          identity === undefined
            ? ''
            : ` (commands run as uid ${identity.uid}: the directory and the writable paths must be reachable for it; docs/shell-sandbox.md)`;
        reject(
          new Error(`the sandbox did not start: ${stderr.text().trim() || `exit code ${exit?.code}`}${hint}`),
        );
        return;
      }
      const result = resultWith(outcome.termination, outcome.exitCode, outcome.signal);
      // Resolve only once escaped descendants are dead, so a caller never observes a survivor.
      if (pendingSweep === undefined) {
        // Sandboxed: the namespace died with its init, so the cgroup is empty and goes at once (synchronously: a
        // process exiting right after must not leave it behind). Unsandboxed: a setsid descendant that also closed
        // its output escapes both the group kill and the open-pipe check; the /proc sweep for the run marker costs
        // milliseconds, so it runs after the result, and the record stays until it is done.
        if (sandbox === undefined) {
          resolve(result);
          void killProcessesCarrying(marker)
            .catch(() => {})
            .finally(cleanUp);
        } else {
          if (!(cgroup === undefined ? true : removeEmptyShellCallCgroup(cgroup.directories))) void cleanUp();
          else if (recordPath !== undefined) removeShellCallRecord(recordPath);
          resolve(result);
        }
      } else void pendingSweep.finally(() => resolve(result));
    };

    const killEverything = (): void => {
      if (child.pid !== undefined) killProcessGroup(child.pid);
      pendingSweep ??= sandbox === undefined ? killProcessesCarrying(marker).finally(cleanUp) : cleanUp();
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
    // The output cap stops the producer: past it, nothing more can reach the caller, so running on only burns time.
    const { onOutput } = options;
    const collect = (output: CappedOutput, stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      output.append(chunk);
      onOutput?.(stream, chunk);
      if (output.truncated && cutShort === undefined && exit === undefined) cut('signalled');
    };
    childStdout?.on('data', collect(stdout, 'stdout'));
    childStderr?.on('data', collect(stderr, 'stderr'));
    childStdout?.on('close', onStreamClosed);
    childStderr?.on('close', onStreamClosed);
    reportStream?.setEncoding('utf8').on('data', (text: string) => (reportText += text));
    reportStream?.on('close', onStreamClosed);

    child.on('error', (error) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearTimeout(graceTimer);
      signal?.removeEventListener('abort', onAbort);
      if (child.pid !== undefined) killProcessGroup(child.pid);
      void cleanUp();
      reject(error);
    });

    child.on('exit', (code, exitSignal) => {
      exit = { code, signal: exitSignal };
      clearTimeout(deadline);
      // The interpreter is done; whatever it left running in its group goes with it, which also releases the pipes.
      // (Sandboxed, the namespace is already gone: its init exited before bubblewrap did.)
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

const SIGNAL_NAMES = new Map(Object.entries(constants.signals).map(([name, number]) => [number, name]));

/**
 * How the call ended. Sandboxed, the init's report (fd 3) says how the interpreter ended — bubblewrap's own exit
 * status cannot tell `exit 137` from SIGKILL; no "started" line means bubblewrap itself failed.
 */
function exitOutcome(
  exit: { code: number | null; signal: string | null } | undefined,
  reportText: string | undefined,
  cutShort: ShellTermination | undefined,
): { termination: ShellTermination; exitCode: number | null; signal: string | null } | 'sandbox_failed' {
  let code = exit?.code ?? null;
  let exitSignal = exit?.signal ?? null;
  if (reportText !== undefined) {
    const report = parseSandboxReport(reportText);
    if (!report.started && cutShort === undefined) return 'sandbox_failed';
    if (report.exitCode !== null || report.signalNumber !== null) {
      code = report.exitCode;
      exitSignal =
        report.signalNumber === null
          ? null
          : (SIGNAL_NAMES.get(report.signalNumber) ?? `SIG${report.signalNumber}`);
    }
  }
  const termination = cutShort ?? (code === null && exitSignal !== null ? 'signalled' : 'exited');
  return { termination, exitCode: code, signal: exitSignal };
}
