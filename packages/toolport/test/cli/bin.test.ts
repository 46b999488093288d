import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

// Runs the real bin against the built dist (the root `npm test` builds first).
const bin = fileURLToPath(new URL('../../bin/toolport.js', import.meta.url));
const run = promisify(execFile);
// The CLI's read-before-write state: this file's own directory, removed afterwards.
const stateDirectory = mkdtempSync(join(tmpdir(), 'toolport-bin-state-'));
afterAll(() => rmSync(stateDirectory, { recursive: true, force: true }));

async function toolport(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], {
      env: { ...process.env, TOOLPORT_STATE_DIR: stateDirectory },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('CLI-1 the toolport bin', () => {
  it('runs a tool and prints its JSON result (exit 0)', async () => {
    const result = await toolport('tools', 'run', 'get_current_datetime', '--args', '{"timezone":"UTC"}');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ timezone: 'UTC', offset: '+00:00' });
  });

  it('exits 1 with the error JSON on stdout for a tool error', async () => {
    const result = await toolport(
      'tools',
      'run',
      'get_current_datetime',
      '--args',
      '{"timezone":"Nope/Nope"}',
    );
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'validation_failed' } });
  });

  it('exits 2 on bad usage with the message on stderr', async () => {
    const result = await toolport('tools', 'run', 'get_current_datetime', '--args', '{oops');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('--args is not valid JSON');
  });
});
