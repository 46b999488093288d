import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { runCli } from '../../src/cli/main.ts';

// The CLI's read-before-write state: this file's own directory, removed afterwards.
const stateDirectory = mkdtempSync(join(tmpdir(), 'toolport-shell-cli-state-'));
afterAll(() => rmSync(stateDirectory, { recursive: true, force: true }));

function captureIo(): CliIo & { out: () => string } {
  let out = '';
  return {
    stdout: (text) => {
      out += text;
    },
    stderr: () => {},
    cwd: process.cwd(),
    env: { ...process.env, TOOLPORT_STATE_DIR: stateDirectory },
    out: () => out,
  };
}

describe('FS-6 bash from the CLI', () => {
  it('is disabled until --settings enables it', async () => {
    const io = captureIo();
    expect(await runCli(['tools', 'run', 'bash', '--args', '{"command":"echo hi"}'], io)).toBe(1);
    expect(JSON.parse(io.out())).toMatchObject({ error: { code: 'disabled' } });
  });

  it('runs with --settings {"enabled":true}', async () => {
    const io = captureIo();
    const code = await runCli(
      ['tools', 'run', 'bash', '--args', '{"command":"echo hi"}', '--settings', '{"enabled":true}'],
      io,
    );
    expect(code).toBe(0);
    expect(JSON.parse(io.out())).toMatchObject({ stdout: 'hi\n', exitCode: 0, termination: 'exited' });
  });

  it('the real bin: npx toolport tools run bash … --settings \'{"enabled":true}\'', async () => {
    const bin = fileURLToPath(new URL('../../bin/toolport.js', import.meta.url));
    const dist = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
    if (!existsSync(dist)) throw new Error('dist/ is missing: run `npm run build` (npm test does it first)');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [bin, 'tools', 'run', 'bash', '--args', '{"command":"echo hi"}', '--settings', '{"enabled":true}'],
      { env: { ...process.env, TOOLPORT_STATE_DIR: stateDirectory } },
    );
    expect(JSON.parse(stdout)).toMatchObject({ stdout: 'hi\n', termination: 'exited' });
  });
});
