import { chownSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeTool, ToolTimeoutReason } from '../../src/core/execute-tool.ts';
import { isToolportError } from '../../src/core/errors.ts';
import { ToolRegistry } from '../../src/core/tool-registry.ts';
import type { RegisteredTool, ToolServices } from '../../src/core/tool-types.ts';
import { findBashSpec } from '../../src/tools/bash.ts';
import { buildShellTool, type ShellToolSpec } from '../../src/tools/shell/build-shell-tool.ts';
import { buildChildEnvironment } from '../../src/tools/shell/build-child-environment.ts';
import { runShellCommand, type ShellCommandResult } from '../../src/tools/shell/run-shell-command.ts';
import {
  DEFAULT_SANDBOX_ID,
  detectShellSandbox,
  planShellSandbox,
} from '../../src/tools/shell/shell-sandbox.ts';
import { findZshSpec } from '../../src/tools/zsh.ts';
import {
  killCarrying,
  probeToken,
  processesCarrying,
  readPids,
  survivorsCarrying,
  waitForLines,
} from './process-probe.ts';
import { shellContext, type ShellContextOptions } from './shell-context.ts';

/**
 * SPEC FS-6 contract: the same behaviour, proven for every POSIX shell the machine has, in the sandbox (where the
 * kernel allows it: docs/shell-sandbox.md) and on the unsandboxed fallback. CI installs zsh and bubblewrap
 * (.ci/run), so a missing interpreter fails there instead of silently shrinking the suite.
 */
const CASES: { name: string; findSpec: () => ShellToolSpec | undefined; sandbox: boolean }[] = [
  { name: 'bash', findSpec: () => findBashSpec(), sandbox: true },
  { name: 'zsh', findSpec: () => findZshSpec(), sandbox: true },
  { name: 'bash', findSpec: () => findBashSpec(), sandbox: false },
];
const sandboxStatus = await detectShellSandbox();
if (!sandboxStatus.available)
  process.stdout.write(
    `FS-6 contract: sandbox unavailable (${sandboxStatus.reason}); its cases run on the fallback\n`,
  );
const runningAsRoot = process.getuid?.() === 0;

const onLinux = process.platform === 'linux';

describe.each(CASES)('FS-6 $name, sandbox $sandbox (shell tool contract)', ({ name, findSpec, sandbox }) => {
  const spec = findSpec();
  let tool: RegisteredTool;
  let scratch: string;
  let pidCounter = 0;
  const tokens: string[] = [];

  /** A fresh file the command appends PIDs to: its line count proves the processes started. */
  const pidFile = (): string => join(scratch, `pids-${(pidCounter += 1)}`);
  /**
   * `export TOOLPORT_PROBE=<token>;` for a command: every process it starts carries the token, so the host finds
   * survivors by it (a sandboxed `$$` is a pid in the command's own namespace).
   */
  const probe = (): { token: string; prefix: string } => {
    const token = probeToken();
    tokens.push(token);
    return { token, prefix: `export TOOLPORT_PROBE=${token}; ` };
  };
  // The scratch directory is writable in the sandbox (the operator's writablePaths); the sandbox off is the fallback.
  const services = (): ToolServices => ({ shellSandbox: { writablePaths: [scratch], enabled: sandbox } });

  const run = (args: { command: string; cwd?: string }, options: ShellContextOptions = {}) =>
    tool.execute(
      args,
      shellContext(tool, { services: services(), ...options }),
    ) as Promise<ShellCommandResult>;
  /** The tool's interpreter under runShellCommand directly, so a timer can be shorter than the 5 s minimum setting. */
  const runWithTimer = async (command: string, timeoutMs: number, maxOutputBytes = 100 * 1024) =>
    runShellCommand({
      interpreter: spec!.interpreter,
      args: spec!.argsFor(command),
      cwd: scratch,
      env: buildChildEnvironment(process.env, []),
      timeoutMs,
      maxOutputBytes,
      sandbox: sandbox
        ? await planShellSandbox({
            status: sandboxStatus,
            workingDirectory: undefined,
            services: services(),
          })
        : undefined,
    });

  beforeAll(() => {
    if (spec === undefined)
      throw new Error(`${name} is not on PATH: install it (apt-get install -y ${name})`);
    tool = buildShellTool(spec);
    scratch = realpathSync(mkdtempSync(join(tmpdir(), `toolport-${name}-`)));
    // As root the sandboxed command runs as nobody: give it the scratch directory, as an operator gives a workspace.
    if (runningAsRoot) chownSync(scratch, DEFAULT_SANDBOX_ID, DEFAULT_SANDBOX_ID);
  });
  afterAll(() => {
    killCarrying(tokens);
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  });

  it('offers a strict-mode schema: command required, cwd optional, nothing else', () => {
    expect(tool.definition.name).toBe(name);
    expect(tool.definition.parameters).toMatchObject({
      type: 'object',
      required: ['command'],
      additionalProperties: false,
    });
    expect(Object.keys(tool.definition.parameters.properties as object).sort()).toEqual(['command', 'cwd']);
    expect(tool.settings).toMatchObject({ enabledByDefault: false, canDisable: true, category: 'system' });
    expect(tool.settings.defaultParameters).toEqual({
      timeoutSeconds: 30,
      maxOutputBytes: 102_400,
      environmentAllowlist: [],
    });
  });

  it('captures stdout, stderr and a non-zero exit code as a result', async () => {
    const result = await run({ command: 'echo out; echo err >&2; exit 7' });
    expect(result).toMatchObject({
      stdout: 'out\n',
      stderr: 'err\n',
      exitCode: 7,
      signal: null,
      termination: 'exited',
      truncated: false,
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('reports an interpreter killed by a signal as signalled', async () => {
    const result = await run({ command: 'kill -9 $$' });
    expect(result).toMatchObject({ exitCode: null, signal: 'SIGKILL', termination: 'signalled' });
  });

  it('runs with stdin closed (a read gets end of input at once)', async () => {
    const result = await run({ command: 'cat; echo "read:$?"' });
    expect(result.stdout).toBe('read:0\n');
  });

  it('caps each stream at maxOutputBytes, says truncated, and stops the command there', async () => {
    const result = await run(
      { command: 'yes | head -c 3000000; echo after' },
      { parameters: { maxOutputBytes: 1024 } },
    );
    expect(result).toMatchObject({ termination: 'signalled', signal: 'SIGKILL', truncated: true });
    expect(Buffer.byteLength(result.stdout)).toBe(1024);
    expect(result.stdout.startsWith('y\ny\n')).toBe(true);
    expect(result.stdout).not.toContain('after');
    const errors = await run(
      { command: 'yes err | head -c 2000 >&2' },
      { parameters: { maxOutputBytes: 1024 } },
    );
    // 2000 bytes fit in the pipe: the command may be done before the cap is seen, so only the cap is asserted.
    expect(errors.truncated).toBe(true);
    expect(Buffer.byteLength(errors.stderr)).toBe(1024);
  });

  it('stops an endless `yes` at a 64 KiB cap, not at its timer', async () => {
    const { token, prefix } = probe();
    const result = await runWithTimer(`${prefix}yes`, 60_000, 64 * 1024);
    expect(result).toMatchObject({ termination: 'signalled', truncated: true });
    expect(result.stdout.length).toBe(64 * 1024);
    expect(await survivorsCarrying(token)).toEqual([]);
  });

  it('cuts at a UTF-8 character boundary, never leaving a broken character', async () => {
    // "é\n" is 3 bytes; 1024 = 341 × 3 + 1 leaves the lead byte of an é at the cut.
    const result = await runWithTimer('yes é | head -c 5000', 10_000, 1024);
    expect(result.truncated).toBe(true);
    expect(result.stdout).toBe('é\n'.repeat(341));
    expect(result.stdout).not.toContain('\uFFFD');
  });

  it('timeout: SIGKILLs the whole group of `sleep 300 & sleep 300`', async () => {
    const file = pidFile();
    const { token, prefix } = probe();
    const result = await runWithTimer(
      `${prefix}sleep 300 & echo $! >> '${file}'; echo $$ >> '${file}'; sh -c 'echo $$ >> "$0"; exec sleep 300' '${file}'`,
      1_500,
    );
    expect(result).toMatchObject({ termination: 'timed_out', exitCode: null, signal: 'SIGKILL' });
    expect(readPids(file)).toHaveLength(3);
    expect(await survivorsCarrying(token)).toEqual([]);
  });

  it.runIf(onLinux)('timeout: no double-forked grandchild survives (setsid and nohup)', async () => {
    const file = pidFile();
    const { token, prefix } = probe();
    const result = await runWithTimer(
      [
        prefix,
        // Daemon style: a subshell forks and exits, the grandchild starts a new session with its output elsewhere.
        `( setsid sh -c 'echo $$ >> "$0"; exec sleep 300' '${file}' > /dev/null 2>&1 < /dev/null & )`,
        `nohup sh -c 'echo $$ >> "$0"; exec sleep 300' '${file}' > /dev/null 2>&1 &`,
        `until [ "$(wc -l < '${file}')" -ge 2 ]; do sleep 0.05; done`,
        'sleep 300',
      ].join('\n'),
      3_000,
    );
    expect(result.termination).toBe('timed_out');
    expect(readPids(file)).toHaveLength(2);
    expect(await survivorsCarrying(token)).toEqual([]);
  });

  it('timeout: a child that ignores SIGTERM dies too', async () => {
    const file = pidFile();
    const { token, prefix } = probe();
    const result = await runWithTimer(
      `${prefix}trap '' TERM; sh -c 'trap "" TERM; echo $$ >> "$0"; exec sleep 300' '${file}' & echo $$ >> '${file}'; wait`,
      1_500,
    );
    expect(result.termination).toBe('timed_out');
    expect(readPids(file)).toHaveLength(2);
    expect(await survivorsCarrying(token)).toEqual([]);
  });

  it('parent abort: reported as aborted (not timed_out) and the group dies', async () => {
    const file = pidFile();
    const { token, prefix } = probe();
    const controller = new AbortController();
    const running = run(
      { command: `${prefix}sleep 300 & echo $! >> '${file}'; echo $$ >> '${file}'; wait` },
      { signal: controller.signal },
    );
    await waitForLines(file, 2);
    // The host finds the running processes by their token (the probe works), then none once the call is over.
    expect(processesCarrying(token).length).toBeGreaterThanOrEqual(2);
    controller.abort(new Error('user pressed stop'));
    const result = await running;
    expect(result).toMatchObject({ termination: 'aborted', exitCode: null });
    expect(await survivorsCarrying(token)).toEqual([]);
  });

  it("executeTool's budget (ToolTimeoutReason on the signal) is reported as timed_out", async () => {
    const file = pidFile();
    const { token, prefix } = probe();
    const controller = new AbortController();
    const running = run(
      { command: `${prefix}echo $$ >> '${file}'; sleep 300` },
      { signal: controller.signal },
    );
    await waitForLines(file, 1);
    controller.abort(new ToolTimeoutReason(5_000));
    expect((await running).termination).toBe('timed_out');
    expect(await survivorsCarrying(token)).toEqual([]);
  });

  it('completes on exit while a background child holds the pipes open, and kills that child', async () => {
    const file = pidFile();
    const { token, prefix } = probe();
    const result = await run({ command: `${prefix}sleep 300 & echo $! >> '${file}'; echo done` });
    expect(result).toMatchObject({ stdout: 'done\n', exitCode: 0, termination: 'exited' });
    expect(readPids(file)).toHaveLength(1);
    expect(await survivorsCarrying(token)).toEqual([]);
  });

  it.runIf(onLinux)('completes on exit while a setsid escapee holds the pipes open', async () => {
    const file = pidFile();
    const { token, prefix } = probe();
    const result = await run({
      command: `${prefix}setsid sh -c 'echo $$ >> "$0"; exec sleep 300' '${file}' & until [ -s '${file}' ]; do sleep 0.05; done; echo done`,
    });
    expect(result).toMatchObject({ stdout: 'done\n', exitCode: 0, termination: 'exited' });
    expect(await survivorsCarrying(token)).toEqual([]);
  });

  it.runIf(onLinux)('a setsid escapee with its output closed does not outlive a normal exit', async () => {
    const file = pidFile();
    const { token, prefix } = probe();
    const result = await run({
      command: `${prefix}setsid sh -c 'echo $$ >> "$0"; exec sleep 4242' '${file}' < /dev/null > /dev/null 2>&1 & until [ -s '${file}' ]; do sleep 0.05; done; echo started`,
    });
    expect(result).toMatchObject({ stdout: 'started\n', exitCode: 0, termination: 'exited' });
    expect(readPids(file)).toHaveLength(1);
    expect(await survivorsCarrying(token)).toEqual([]);
  });

  describe('environment', () => {
    const secretName = 'TOOLPORT_TEST_SERVER_SECRET';
    const secretValue = 'sk-test-do-not-leak-8c1f';
    beforeAll(() => {
      process.env[secretName] = secretValue;
    });
    afterAll(() => {
      delete process.env[secretName];
    });

    it("passes only PATH, HOME, LANG, TERM (and the run marker), never the server's secrets", async () => {
      const result = await run({ command: 'env' });
      expect(result.stdout).not.toContain(secretValue);
      const names = result.stdout
        .split('\n')
        .filter((line) => line.includes('='))
        .map((line) => line.slice(0, line.indexOf('=')));
      // PWD, SHLVL, OLDPWD and _ are set by the shell itself; zsh also sets LOGNAME from the password database.
      const allowed = [
        'PATH',
        'HOME',
        'LANG',
        'TERM',
        'TOOLPORT_SHELL_RUN_ID',
        'PWD',
        'SHLVL',
        'OLDPWD',
        'LOGNAME',
        '_',
      ];
      expect(names.filter((entry) => !allowed.includes(entry))).toEqual([]);
      expect(names).toContain('PATH');
    });

    it('passes a variable named in the environmentAllowlist setting', async () => {
      const result = await run(
        { command: `printf '%s' "$${secretName}"` },
        { parameters: { environmentAllowlist: [secretName] } },
      );
      expect(result.stdout).toBe(secretValue);
    });
  });

  describe('cwd', () => {
    let workdir: string;
    beforeAll(() => {
      workdir = join(scratch, 'work');
      mkdirSync(join(workdir, 'sub'), { recursive: true });
      writeFileSync(join(workdir, 'file.txt'), 'x');
    });

    it('chat mode without cwd: the process cwd, even when the chat has a working directory', async () => {
      const result = await run({ command: 'pwd -P' }, { mode: 'chat', workingDirectory: workdir });
      expect(result.stdout.trim()).toBe(realpathSync(process.cwd()));
    });

    it('agent mode without cwd: the chat working directory', async () => {
      const result = await run({ command: 'pwd -P' }, { mode: 'agent', workingDirectory: workdir });
      expect(result.stdout.trim()).toBe(workdir);
    });

    it('agent mode: a relative cwd resolves from the working directory', async () => {
      const result = await run(
        { command: 'pwd -P', cwd: 'sub' },
        { mode: 'agent', workingDirectory: workdir },
      );
      expect(result.stdout.trim()).toBe(join(workdir, 'sub'));
    });

    it('an absolute cwd and a ~ cwd', async () => {
      const absolute = await run({ command: 'pwd -P', cwd: join(workdir, 'sub') });
      expect(absolute.stdout.trim()).toBe(join(workdir, 'sub'));
      // Root's own home is closed to the sandbox user: point HOME at a directory it may enter.
      const savedHome = process.env.HOME;
      if (runningAsRoot && sandbox) process.env.HOME = join(workdir, 'sub');
      try {
        const home = await run({ command: 'pwd -P', cwd: '~' }, { mode: 'agent', workingDirectory: workdir });
        expect(home.stdout.trim()).toBe(realpathSync(homedir()));
      } finally {
        process.env.HOME = savedHome;
      }
    });

    it('refuses a cwd that does not exist or is not a directory, naming the argument', async () => {
      for (const cwd of ['missing', 'file.txt']) {
        const error: unknown = await run(
          { command: 'pwd', cwd },
          { mode: 'agent', workingDirectory: workdir },
        ).then(
          () => undefined,
          (rejection: unknown) => rejection,
        );
        expect(isToolportError(error) && error.code).toBe('validation_failed');
        expect((error as Error).message).toContain('`cwd`');
      }
    });
  });

  describe('through executeTool', () => {
    const registry = new ToolRegistry();
    beforeAll(() => {
      registry.register(tool, { kind: 'builtin', origin: `builtin:${name}` });
    });

    it('is disabled by default', async () => {
      const outcome = await executeTool(
        { toolName: name, arguments: { command: 'echo hi' }, userId: 'u' },
        { registry },
      );
      expect(outcome.ok ? 'ok' : outcome.error.code).toBe('disabled');
    });

    it('runs once enabled by a settings override', async () => {
      const outcome = await executeTool(
        {
          toolName: name,
          arguments: '{"command":"echo hi"}',
          userId: 'u',
          settingsOverrides: { enabled: true },
        },
        { registry },
      );
      expect(outcome.ok && outcome.result).toMatchObject({ stdout: 'hi\n', termination: 'exited' });
    });

    it('rejects an unknown argument and a missing command', async () => {
      for (const args of [{ command: 'true', shell: 'sh' }, {}]) {
        const outcome = await executeTool(
          { toolName: name, arguments: args, userId: 'u', settingsOverrides: { enabled: true } },
          { registry },
        );
        expect(outcome.ok ? 'ok' : outcome.error.code).toBe('validation_failed');
      }
    });

    it('a parent abort is `aborted`, not `timeout`, and no process survives', async () => {
      const file = pidFile();
      const { token, prefix } = probe();
      const controller = new AbortController();
      const running = executeTool(
        {
          toolName: name,
          arguments: { command: `${prefix}sleep 300 & echo $! >> '${file}'; echo $$ >> '${file}'; wait` },
          userId: 'u',
          settingsOverrides: { enabled: true },
          signal: controller.signal,
        },
        { registry, services: services() },
      );
      await waitForLines(file, 2);
      controller.abort();
      const outcome = await running;
      expect(outcome.ok ? 'ok' : outcome.error.code).toBe('aborted');
      expect(await survivorsCarrying(token)).toEqual([]);
    });
  });
});
