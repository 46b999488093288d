import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RegisteredTool, ToolServices } from '../../src/core/tool-types.ts';
import { findBashSpec } from '../../src/tools/bash.ts';
import { buildShellTool } from '../../src/tools/shell/build-shell-tool.ts';
import { buildChildEnvironment } from '../../src/tools/shell/build-child-environment.ts';
import { runShellCommand, type ShellCommandResult } from '../../src/tools/shell/run-shell-command.ts';
import { recoverShellCalls, writeShellCallRecord } from '../../src/tools/shell/shell-call-records.ts';
import { createShellCallCgroup } from '../../src/tools/shell/shell-cgroup.ts';
import {
  DEFAULT_SANDBOX_ID,
  detectShellSandbox,
  planShellSandbox,
} from '../../src/tools/shell/shell-sandbox.ts';
import {
  isProcessAlive,
  killCarrying,
  probeToken,
  processesCarrying,
  survivorsCarrying,
} from './process-probe.ts';
import { shellContext, type ShellContextOptions } from './shell-context.ts';

/**
 * FS-6 sandbox (issue 9 item 3) on the real kernel: what a model-written command can no longer do. Skipped, with
 * the reason printed, only where the sandbox is genuinely unavailable (no bubblewrap, no user namespaces).
 */
const status = await detectShellSandbox();
if (!status.available) process.stdout.write(`FS-6 sandbox tests skipped: ${status.reason}\n`);
const root = process.getuid?.() === 0;

describe.runIf(status.available)('FS-6 shell sandbox (real kernel)', () => {
  const spec = findBashSpec()!;
  let tool: RegisteredTool;
  let scratch: string;
  const tokens: string[] = [];
  const secretName = 'TOOLPORT_SANDBOX_TEST_SECRET';
  const secretValue = 'sk-sandbox-test-never-visible-5d2e';

  const probe = (): { token: string; prefix: string } => {
    const token = probeToken();
    tokens.push(token);
    return { token, prefix: `export TOOLPORT_PROBE=${token}; ` };
  };
  const services = (extra: ToolServices['shellSandbox'] = {}): ToolServices => ({
    shellSandbox: { writablePaths: [scratch], ...extra },
  });
  const run = (command: string, options: ShellContextOptions = {}) =>
    tool.execute(
      { command },
      shellContext(tool, { services: services(), ...options }),
    ) as Promise<ShellCommandResult>;
  const runWithTimer = async (command: string, timeoutMs: number, extra: ToolServices['shellSandbox'] = {}) =>
    runShellCommand({
      interpreter: spec.interpreter,
      args: spec.argsFor(command),
      cwd: scratch,
      env: buildChildEnvironment(process.env, []),
      timeoutMs,
      maxOutputBytes: 100 * 1024,
      sandbox: await planShellSandbox({
        status,
        workingDirectory: undefined,
        services: services(extra),
      }),
    });

  beforeAll(() => {
    process.env[secretName] = secretValue;
    tool = buildShellTool(spec);
    scratch = realpathSync(mkdtempSync(join(tmpdir(), 'toolport-sandbox-')));
    if (root) chownSync(scratch, DEFAULT_SANDBOX_ID, DEFAULT_SANDBOX_ID);
    chmodSync(scratch, 0o755); // other sandbox uids (a workspace's owner) pass through it
  });
  afterAll(() => {
    delete process.env[secretName];
    killCarrying(tokens);
    rmSync(scratch, { recursive: true, force: true });
  });

  it("cannot see the server's processes or read /proc/$PPID/environ", async () => {
    const result = await run(
      [
        'cat /proc/$PPID/environ | tr "\\0" "\\n"',
        'echo ---',
        `cat /proc/${process.pid}/environ 2>&1 | tr "\\0" "\\n"`,
        'echo ---',
        'for p in /proc/[0-9]*; do tr "\\0" " " < $p/cmdline; echo; done',
      ].join('; '),
    );
    expect(result.exitCode).toBe(0);
    expect(result.stdout).not.toContain(secretValue);
    expect(result.stdout).not.toContain(secretName);
    const [, , listing] = result.stdout.split('---\n');
    // Only the sandbox's own few processes: its init (perl), bash, and the loop's children; never node or vitest.
    expect(listing).not.toMatch(/node|vitest/);
    expect(listing!.split('\n').filter((line) => line.trim() !== '').length).toBeLessThan(8);
  });

  it.runIf(root)("as root, the command runs as an unprivileged uid, not as the host's root", async () => {
    const result = await run(
      'id -u; id -g; cat /etc/shadow > /dev/null 2>&1 && echo READ-SHADOW; kill -0 1 && echo SIGNAL-1',
    );
    const [uid, gid] = result.stdout.split('\n');
    expect(uid).toBe(String(DEFAULT_SANDBOX_ID));
    expect(gid).toBe(String(DEFAULT_SANDBOX_ID));
    expect(result.stdout).not.toContain('READ-SHADOW');
  });

  it.runIf(root)("as root, it runs as the bound working directory's owner and can write there", async () => {
    const workspace = join(scratch, 'workspace-4242');
    mkdirSync(workspace);
    chownSync(workspace, 4242, 4242);
    const result = await run('id -u; touch made-here && echo wrote', {
      mode: 'agent',
      workingDirectory: workspace,
    });
    expect(result.stdout).toBe('4242\nwrote\n');
    expect(statSync(join(workspace, 'made-here')).uid).toBe(4242);
  });

  it('writes land only in the working directory and the extra writable paths', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'toolport-outside-'));
    chmodSync(outside, 0o777); // writable by anyone on the host: only the mount stops the write
    const extra = mkdtempSync(join(tmpdir(), 'toolport-extra-'));
    chmodSync(extra, 0o777);
    try {
      const result = await tool.execute(
        {
          command: [
            `touch ${outside}/x 2>/dev/null && echo OUTSIDE`,
            `touch ${extra}/x && echo EXTRA`,
            `touch ${scratch}/x && echo WORKDIR`,
            'touch /tmp/private && echo TMP',
          ].join('; '),
        },
        shellContext(tool, { services: { shellSandbox: { writablePaths: [scratch, extra] } } }),
      );
      expect((result as ShellCommandResult).stdout).toBe('EXTRA\nWORKDIR\nTMP\n');
      expect(existsSync(join(outside, 'x'))).toBe(false);
      expect(existsSync(join(extra, 'x'))).toBe(true);
      // The sandbox's /tmp is its own tmpfs: nothing reaches the host's.
      expect(existsSync('/tmp/private')).toBe(false);
    } finally {
      rmSync(outside, { recursive: true, force: true });
      rmSync(extra, { recursive: true, force: true });
    }
  });

  it("hides the host's protected paths (the data directory) inside the sandbox", async () => {
    const dataDirectory = mkdtempSync(join(tmpdir(), 'toolport-data-'));
    chmodSync(dataDirectory, 0o755);
    writeFileSync(join(dataDirectory, 'admin-token'), 'tp_admin_token_value');
    chmodSync(join(dataDirectory, 'admin-token'), 0o644);
    try {
      const result = await tool.execute(
        { command: `ls -A ${dataDirectory}; cat ${dataDirectory}/admin-token 2>&1` },
        shellContext(tool, { services: { ...services(), protectedPaths: [dataDirectory] } }),
      );
      expect((result as ShellCommandResult).stdout).not.toContain('tp_admin_token_value');
      expect((result as ShellCommandResult).stdout).not.toMatch(/^admin-token$/m);
    } finally {
      rmSync(dataDirectory, { recursive: true, force: true });
    }
  });

  it.runIf(root)(
    'runs when a protected path sits below a directory the sandbox uid cannot search (root’s /root/.local/share)',
    async () => {
      // As `toolport serve` run by root leaves it: the data directory under a 0700 home.
      // Outside /tmp: the sandbox's /tmp is its own, so a path there would be absent inside rather than unreachable.
      const home = mkdtempSync('/var/tmp/toolport-home-');
      chmodSync(home, 0o700);
      const dataDirectory = join(home, '.local', 'share', 'toolport');
      mkdirSync(dataDirectory, { recursive: true });
      writeFileSync(join(dataDirectory, 'admin-token'), 'tp_admin_token_value');
      chmodSync(join(dataDirectory, 'admin-token'), 0o644);
      try {
        const result = (await tool.execute(
          { command: `echo ran; cat ${dataDirectory}/admin-token 2>&1; ls ${home} 2>&1` },
          shellContext(tool, { services: { ...services(), protectedPaths: [dataDirectory] } }),
        )) as ShellCommandResult;
        expect(result.termination).toBe('exited');
        expect(result.stdout).toMatch(/^ran\n/);
        expect(result.stdout).not.toContain('tp_admin_token_value');
        expect(result.stdout).toContain('Permission denied');
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    },
  );

  it.runIf(root)('mounts over a protected path only where the sandbox uid could reach it', async () => {
    const base = mkdtempSync('/var/tmp/toolport-reach-');
    chmodSync(base, 0o755);
    const make = (name: string, mode: number, gid = 0): string => {
      const parent = join(base, name);
      mkdirSync(join(parent, 'data'), { recursive: true });
      chownSync(parent, 0, gid);
      chmodSync(parent, mode);
      return join(parent, 'data');
    };
    try {
      const closed = make('closed', 0o700);
      const searchable = make('searchable', 0o711);
      const groupOnly = make('group-only', 0o710, DEFAULT_SANDBOX_ID);
      const groupOther = make('group-other', 0o710, DEFAULT_SANDBOX_ID + 1);
      const plan = await planShellSandbox({
        status,
        workingDirectory: undefined,
        services: { ...services(), protectedPaths: [closed, searchable, groupOnly, groupOther] },
      });
      expect(plan?.hiddenPaths.map((entry) => entry.path)).toEqual([searchable, groupOnly]);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('`setsid env -i sleep 999 &` leaves nothing behind after a normal exit', async () => {
    const duration = `999.${Math.floor(Math.random() * 1e6)}`;
    const result = await run(`setsid env -i sleep ${duration} & sleep 0.2; echo started`);
    expect(result).toMatchObject({ stdout: 'started\n', termination: 'exited' });
    // env -i drops every variable, so the host looks for its unique command line.
    expect(await survivorsCarrying(`sleep\0${duration}`)).toEqual([]);
  });

  it.runIf(status.available && status.cgroups !== undefined)(
    'a fork bomb is bounded by pids.max, returns, and leaves no process; the host keeps answering',
    async () => {
      const { token, prefix } = probe();
      const bomb = runWithTimer(`${prefix}bomb() { bomb | bomb & }; bomb; sleep 2`, 4_000, { pidsMax: 64 });
      // While the bomb runs, another call still starts, runs and returns.
      const meanwhile = await run('echo still-here');
      expect(meanwhile.stdout).toBe('still-here\n');
      const peak = processesCarrying(token).length;
      const result = await bomb;
      expect(['exited', 'timed_out']).toContain(result.termination);
      expect(peak).toBeLessThanOrEqual(64);
      expect(await survivorsCarrying(token)).toEqual([]);
    },
  );

  it.runIf(status.available && status.cgroups !== undefined)(
    'memory is bounded: a process allocating past the limit is killed, the command goes on',
    async () => {
      // tail keeps the whole (endless, newline-free) line in memory.
      const result = await runWithTimer(
        'head -c 400000000 /dev/zero | tail > /dev/null; echo "tail: $?"',
        30_000,
        {
          memoryMaxBytes: 64 * 1024 ** 2,
        },
      );
      expect(result.stdout).toBe('tail: 137\n');
    },
  );

  it.runIf(status.available && status.cgroups !== undefined)(
    'each call has its own cgroup with the limits set, removed once the call is over',
    async () => {
      const support = status.available ? status.cgroups! : undefined;
      const parent = support!.version === 2 ? support!.parent : support!.pidsParent;
      const running = runWithTimer('sleep 300', 1_500, { pidsMax: 77 });
      let directories: string[] = [];
      for (let attempt = 0; attempt < 100 && directories.length === 0; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        directories = readdirSync(parent).filter((name) => {
          try {
            // A limit of 77 with a process inside: this call's (a crashed run may have left an empty one).
            return (
              readFileSync(join(parent, name, 'pids.max'), 'utf8').trim() === '77' &&
              readFileSync(join(parent, name, 'cgroup.procs'), 'utf8').trim() !== ''
            );
          } catch {
            return false;
          }
        });
      }
      expect(directories).toHaveLength(1);
      const directory = join(parent, directories[0]!);
      expect(readFileSync(join(directory, 'cgroup.procs'), 'utf8').trim()).not.toBe('');
      expect((await running).termination).toBe('timed_out');
      // A cut-short call resolves once its cgroup is empty and gone.
      expect(existsSync(directory)).toBe(false);
    },
  );

  it('reports exit 137 as exited and kill -9 $$ as signalled (the init reports how the interpreter ended)', async () => {
    expect(await run('exit 137')).toMatchObject({ exitCode: 137, signal: null, termination: 'exited' });
    expect(await run('kill -9 $$')).toMatchObject({
      exitCode: null,
      signal: 'SIGKILL',
      termination: 'signalled',
    });
  });

  describe('crash recovery', () => {
    it.runIf(status.available && status.cgroups !== undefined)(
      "kills what a dead server's recorded call left in its cgroup, and removes the record and the cgroup",
      async () => {
        const support = status.available ? status.cgroups! : undefined;
        const token = probeToken();
        tokens.push(token);
        const id = `recovery-${token}`;
        const cgroup = await createShellCallCgroup(support!, id, {
          pidsMax: 32,
          memoryMaxBytes: 64 * 1024 ** 2,
        });
        // A leftover as a crashed server leaves it: in the call's cgroup, in its own session, not our child's group.
        const orphan = spawn(
          '/bin/sh',
          ['-c', `for f in ${cgroup.procsFiles.join(' ')}; do echo $$ > $f; done; exec setsid sleep 300`],
          { detached: true, stdio: 'ignore', env: { PATH: '/usr/bin:/bin', TOOLPORT_PROBE: token } },
        );
        orphan.unref();
        // Joined both hierarchies and became the sleep.
        await expect
          .poll(() => cgroup.procsFiles.every((file) => readFileSync(file, 'utf8').trim() !== ''))
          .toBe(true);
        await expect.poll(() => processesCarrying(token).length).toBeGreaterThan(0);
        const directory = join(scratch, 'records');
        const recordPath = await writeShellCallRecord(directory, id, {
          marker: `TOOLPORT_SHELL_RUN_ID=${id}`,
          cgroups: cgroup.directories,
        });
        // The record's owner is a process that no longer exists.
        const record = JSON.parse(readFileSync(recordPath, 'utf8')) as { ownerPid: number };
        writeFileSync(recordPath, JSON.stringify({ ...record, ownerPid: 2 ** 22 + 1 }));
        expect(await recoverShellCalls(directory)).toBe(1);
        expect(await survivorsCarrying(token)).toEqual([]);
        expect(existsSync(recordPath)).toBe(false);
        for (const path of cgroup.directories) expect(existsSync(path)).toBe(false);
      },
    );

    it("leaves a live server's records alone", async () => {
      const directory = join(scratch, 'live-records');
      const recordPath = await writeShellCallRecord(directory, 'live', {
        marker: 'TOOLPORT_SHELL_RUN_ID=live',
        cgroups: [],
      });
      expect(await recoverShellCalls(directory)).toBe(0);
      expect(existsSync(recordPath)).toBe(true);
    });

    it('unsandboxed fallback: kills the processes carrying a dead call’s run marker', async () => {
      const token = probeToken();
      tokens.push(token);
      const marker = `TOOLPORT_SHELL_RUN_ID=${token}`;
      const orphan = spawn('/bin/sh', ['-c', 'exec setsid sleep 300'], {
        detached: true,
        stdio: 'ignore',
        env: { PATH: '/usr/bin:/bin', TOOLPORT_SHELL_RUN_ID: token },
      });
      orphan.unref();
      await expect.poll(() => processesCarrying(token).length).toBeGreaterThan(0);
      const directory = join(scratch, 'fallback-records');
      const recordPath = await writeShellCallRecord(directory, token, { marker, cgroups: [] });
      const record = JSON.parse(readFileSync(recordPath, 'utf8')) as { ownerPid: number };
      writeFileSync(recordPath, JSON.stringify({ ...record, ownerPid: 2 ** 22 + 1 }));
      expect(await recoverShellCalls(directory)).toBe(1);
      expect(await survivorsCarrying(token)).toEqual([]);
      expect(isProcessAlive(orphan.pid!)).toBe(false);
    });
  });
});
