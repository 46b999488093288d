import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { killProcessesCarrying } from '../../src/tools/shell/kill-process-tree.ts';
import { killCarrying, probeToken, processesCarrying, survivorsCarrying } from './process-probe.ts';

const tokens: string[] = [];
afterAll(() => killCarrying(tokens));

/** FS-6: the /proc sweep that catches descendants which left the process group (setsid). */
describe.runIf(process.platform === 'linux')('FS-6 run-marker sweep', () => {
  it('kills children a marked process forks while the sweep runs (one /proc listing is not enough)', async () => {
    const token = probeToken();
    tokens.push(token);
    // A parent that keeps forking setsid children: some are created after any single pass read /proc.
    const forker = spawn('/bin/sh', ['-c', 'for i in $(seq 200); do setsid sleep 300 & done; wait'], {
      detached: true,
      stdio: 'ignore',
      env: { PATH: '/usr/bin:/bin', TOOLPORT_SHELL_RUN_ID: token },
    });
    forker.unref();
    await expect.poll(() => processesCarrying(token).length).toBeGreaterThan(3);
    const killed = await killProcessesCarrying(`TOOLPORT_SHELL_RUN_ID=${token}`);
    expect(killed.length).toBeGreaterThan(0);
    expect(await survivorsCarrying(token)).toEqual([]);
  });
});
