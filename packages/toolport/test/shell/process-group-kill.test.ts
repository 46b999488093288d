import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBashSpec } from '../../src/tools/bash.ts';
import { buildChildEnvironment } from '../../src/tools/shell/build-child-environment.ts';
import { killProcessGroup } from '../../src/tools/shell/kill-process-tree.ts';
import { runShellCommand, SHELL_RUN_MARKER_NAME } from '../../src/tools/shell/run-shell-command.ts';
import { killLeftovers, readPids, survivorsAfterGrace, waitForLines } from './process-probe.ts';

/**
 * FS-6 "the whole process group" on its own. The Linux /proc sweep kills every process carrying the run marker, so
 * it would hide a missing group kill; these grandchildren drop the marker (`env -u`) and stay in the group, so only
 * the group kill (`process.kill(-pid)`) can reach them.
 */
const unmarkedSleeper = (file: string, seconds: number): string =>
  `env -u ${SHELL_RUN_MARKER_NAME} sh -c 'echo $$ >> "$0"; exec sleep ${seconds}' '${file}' < /dev/null > /dev/null 2>&1 &`;

describe.runIf(process.platform !== 'win32')(
  'FS-6 process-group kill (not hidden by the /proc sweep)',
  () => {
    const bash = findBashSpec();
    let scratch: string;
    const recorded: number[] = [];
    let counter = 0;
    const pidFile = (): string => join(scratch, `pids-${(counter += 1)}`);

    beforeAll(() => {
      if (bash === undefined) throw new Error('bash is not on PATH');
      scratch = realpathSync(mkdtempSync(join(tmpdir(), 'toolport-group-kill-')));
    });
    afterAll(() => {
      killLeftovers(recorded);
      rmSync(scratch, { recursive: true, force: true });
    });

    const run = (command: string, timeoutMs: number) =>
      runShellCommand({
        interpreter: bash!.interpreter,
        args: bash!.argsFor(command),
        cwd: scratch,
        env: buildChildEnvironment(process.env, []),
        timeoutMs,
        maxOutputBytes: 10_000,
      });

    it('killProcessGroup kills every member of the group, not just its leader', async () => {
      const file = pidFile();
      const leader = spawn('sh', ['-c', `${unmarkedSleeper(file, 301)} ${unmarkedSleeper(file, 302)} wait`], {
        detached: true,
        stdio: 'ignore',
      });
      await waitForLines(file, 2);
      const members = readPids(file);
      recorded.push(leader.pid!, ...members);
      killProcessGroup(leader.pid!);
      expect(await survivorsAfterGrace([leader.pid!, ...members])).toEqual([]);
    });

    it('a timed-out run kills an unmarked grandchild that stayed in the group', async () => {
      const file = pidFile();
      const result = await run(
        `${unmarkedSleeper(file, 303)} until [ -s '${file}' ]; do sleep 0.05; done; sleep 30`,
        1_000,
      );
      expect(result.termination).toBe('timed_out');
      const pids = readPids(file);
      recorded.push(...pids);
      expect(pids).toHaveLength(1);
      expect(await survivorsAfterGrace(pids)).toEqual([]);
    });

    it('a run that exits normally kills an unmarked background grandchild left in the group', async () => {
      const file = pidFile();
      const result = await run(
        `${unmarkedSleeper(file, 304)} until [ -s '${file}' ]; do sleep 0.05; done; echo done`,
        10_000,
      );
      expect(result).toMatchObject({ termination: 'exited', exitCode: 0, stdout: 'done\n' });
      const pids = readPids(file);
      recorded.push(...pids);
      expect(pids).toHaveLength(1);
      expect(await survivorsAfterGrace(pids)).toEqual([]);
    });
  },
);
