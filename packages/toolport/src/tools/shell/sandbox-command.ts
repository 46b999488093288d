import type { ShellSandboxPlan } from './shell-sandbox.ts';

/**
 * The sandbox's PID 1 (perl, in every Debian-family base system): reports "started", forks the interpreter, reaps
 * every orphan until the interpreter exits, then reports how it ended on fd 3 and exits — which tears the PID
 * namespace down, killing everything left inside. bubblewrap itself turns a signal death into exit code 128+n; the
 * report keeps `kill -9 $$` (signalled) apart from `exit 137` (exited). The interpreter never sees fd 3.
 */
const SANDBOX_INIT = [
  'open(my $s, \'>&=\', 3) or exit 125; syswrite($s, "started\\n");',
  'my $p = fork; exit 125 unless defined $p;',
  'if ($p == 0) { close($s); exec { $ARGV[0] } @ARGV; syswrite(STDERR, "cannot run $ARGV[0]: $!\\n"); exit 127 }',
  'my $w; while (($w = waitpid(-1, 0)) > 0) { last if $w == $p }',
  'my $st = $?;',
  'syswrite($s, ($st & 127) ? "signal " . ($st & 127) . "\\n" : "exit " . ($st >> 8) . "\\n");',
  'exit(($st & 127) ? 128 + ($st & 127) : $st >> 8);',
].join(' ');

/** Joins the cgroup(s) named in its arguments, then execs the rest: so the sandbox is inside before it forks. */
const JOIN_CGROUPS =
  'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n - 1)); done; exec "$@"';

/**
 * The program and arguments that run `interpreter args…` in the sandbox:
 * `sh` (joins the call's cgroup) → `setpriv` (root only: drops to the sandbox uid) → `bwrap` (user, PID and IPC
 * namespaces — not UTS or cgroup: without capabilities the command can change neither, and each namespace costs
 * milliseconds on a busy machine; read-only root; fresh /proc, /dev and /tmp; the writable binds; hidden paths) → the perl init above.
 */
export function sandboxedSpawnArguments(
  plan: ShellSandboxPlan,
  interpreter: string,
  args: readonly string[],
  cwd: string,
  procsFiles: readonly string[],
): { file: string; args: string[] } {
  const { support } = plan;
  const bwrapArgs = [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
    '--as-pid-1',
    '--die-with-parent',
    '--new-session',
    '--ro-bind',
    '/',
    '/',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
  ];
  for (const path of plan.writablePaths) bwrapArgs.push('--bind', path, path);
  // The command's directory is readable even where the fresh /tmp covers it (a checkout under /tmp, chat mode's
  // process cwd): bound read-only unless a writable bind already holds it.
  const insideFreshTmp = cwd === '/tmp' || cwd.startsWith('/tmp/');
  if (insideFreshTmp && !plan.writablePaths.some((path) => cwd === path || cwd.startsWith(`${path}/`))) {
    bwrapArgs.push('--ro-bind', cwd, cwd);
  }
  for (const { path, directory } of plan.hiddenPaths) {
    if (directory) bwrapArgs.push('--tmpfs', path);
    else bwrapArgs.push('--ro-bind', '/dev/null', path);
  }
  bwrapArgs.push('--chdir', cwd, support.perl, '-e', SANDBOX_INIT, interpreter, ...args);

  let chain: string[] = [support.bwrap, ...bwrapArgs];
  if (plan.identity !== undefined && support.setpriv !== undefined) {
    const { uid, gid } = plan.identity;
    chain = [support.setpriv, `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', ...chain];
  }
  if (procsFiles.length > 0) {
    chain = [
      support.sh,
      '-c',
      JOIN_CGROUPS,
      'toolport-sandbox',
      String(procsFiles.length),
      ...procsFiles,
      ...chain,
    ];
  }
  const [file, ...rest] = chain;
  return { file: file!, args: rest };
}

/** What the sandbox init reported on fd 3. */
export interface SandboxReport {
  started: boolean;
  exitCode: number | null;
  signalNumber: number | null;
}

export function parseSandboxReport(text: string): SandboxReport {
  const report: SandboxReport = { started: false, exitCode: null, signalNumber: null };
  for (const line of text.split('\n')) {
    if (line === 'started') report.started = true;
    const [, kind, value] = line.match(/^(exit|signal) (\d+)$/) ?? [];
    if (kind === 'exit') report.exitCode = Number(value);
    if (kind === 'signal') report.signalNumber = Number(value);
  }
  return report;
}
