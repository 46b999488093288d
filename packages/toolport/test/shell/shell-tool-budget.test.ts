import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { executeTool } from '../../src/core/execute-tool.ts';
import { ToolRegistry } from '../../src/core/tool-registry.ts';
import { createBashTool } from '../../src/tools/bash.ts';
import type { ShellCommandResult } from '../../src/tools/shell/run-shell-command.ts';
import { killCarrying, probeToken, readPids, survivorsCarrying } from './process-probe.ts';

describe('FS-6 shell timer and executeTool budget', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'toolport-budget-'));
  const file = join(scratch, 'pids');
  const token = probeToken();
  // As root the sandboxed command runs as nobody: the scratch directory must be its to write.
  if (process.getuid?.() === 0) chownSync(scratch, 65534, 65534);
  afterAll(() => {
    killCarrying([token]);
    rmSync(scratch, { recursive: true, force: true });
  });

  it('the shell timer fires inside the same timeoutSeconds budget: a result with output and timed_out, no survivor', async () => {
    const registry = new ToolRegistry();
    registry.register(createBashTool()!, { kind: 'builtin', origin: 'builtin:bash' });
    const outcome = await executeTool(
      {
        toolName: 'bash',
        arguments: {
          command: `export TOOLPORT_PROBE=${token}; echo started; sleep 300 & echo $! >> '${file}'; echo $$ >> '${file}'; sleep 300`,
        },
        userId: 'u',
        settingsOverrides: { enabled: true, parameters: { timeoutSeconds: 5 } },
      },
      { registry, services: { shellSandbox: { writablePaths: [scratch] } } },
    );
    expect(outcome.ok).toBe(true);
    const result = (outcome.ok ? outcome.result : undefined) as ShellCommandResult;
    expect(result).toMatchObject({ stdout: 'started\n', termination: 'timed_out', signal: 'SIGKILL' });
    expect(readPids(file)).toHaveLength(2);
    expect(await survivorsCarrying(token)).toEqual([]);
  });
});
