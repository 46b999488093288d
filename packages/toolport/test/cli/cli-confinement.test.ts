import { linkSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { runCli } from '../../src/cli/main.ts';
import { closeScanWorkers } from '../../src/fs/scan-pool.ts';
import { makeTemporaryDirectory, removeDirectory } from '../support/fs-harness.ts';

let project: string;
let outside: string;
let state: string;

async function toolsRun(...argv: string[]): Promise<{ code: number; output: string }> {
  let output = '';
  const io: CliIo = {
    stdout: (text) => {
      output += text;
    },
    stderr: () => {},
    cwd: project,
    env: { ...process.env, TOOLPORT_STATE_DIR: state, TOOLPORT_DATA_DIR: join(state, 'data') },
  };
  return { code: await runCli(['tools', 'run', ...argv], io), output };
}
const readArgs = (path: string) => ['read_file', '--args', JSON.stringify({ path })];

beforeAll(async () => {
  project = await makeTemporaryDirectory('toolport-cli-project-');
  outside = await makeTemporaryDirectory('toolport-cli-outside-');
  state = await makeTemporaryDirectory('toolport-cli-confine-state-');
  writeFileSync(join(project, 'inside.txt'), 'inside\n');
  writeFileSync(join(outside, 'elsewhere.txt'), 'elsewhere\n');
  mkdirSync(join(state, 'data'));
  writeFileSync(join(state, 'data', 'secret.key'), 'key\n');
});
afterAll(async () => {
  await closeScanWorkers();
  for (const directory of [project, outside, state]) await removeDirectory(directory);
});

describe('AUTH-2 CLI file confinement (--workdir, --allow-path, --no-confine)', () => {
  it('confines file tools to --workdir when the user set no allowedPaths', async () => {
    expect((await toolsRun(...readArgs('inside.txt'), '--workdir', project)).code).toBe(0);
    const refused = await toolsRun(...readArgs(join(outside, 'elsewhere.txt')), '--workdir', project);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.output)).toMatchObject({ error: { code: 'permission_denied' } });
    expect(refused.output).toContain('--allow-path');
    const grep = await toolsRun(
      'grep',
      '--args',
      JSON.stringify({ pattern: 'elsewhere', path: outside }),
      '--workdir',
      project,
    );
    expect(grep.code).toBe(1);
  });

  it("adds each --allow-path, yields to the user's own allowedPaths, and --no-confine turns it off", async () => {
    const path = join(outside, 'elsewhere.txt');
    expect((await toolsRun(...readArgs(path), '--workdir', project, '--allow-path', outside)).code).toBe(0);
    const settings = JSON.stringify({ allowedPaths: [outside] });
    expect((await toolsRun(...readArgs(path), '--workdir', project, '--settings', settings)).code).toBe(0);
    expect((await toolsRun(...readArgs(path), '--workdir', project, '--no-confine')).code).toBe(0);
    expect((await toolsRun(...readArgs(path))).code).toBe(0);
  });

  it('always denies /proc, /sys, /dev and the data directory, even with --no-confine', async () => {
    for (const path of ['/proc/self/environ', join(state, 'data', 'secret.key')]) {
      for (const extra of [[], ['--workdir', project, '--no-confine']]) {
        const refused = await toolsRun(...readArgs(path), ...extra);
        expect(refused.code, path).toBe(1);
        expect(JSON.parse(refused.output)).toMatchObject({ error: { code: 'permission_denied' } });
      }
    }
  });

  it('refuses a hard-linked file while confined', async () => {
    linkSync(join(outside, 'elsewhere.txt'), join(project, 'linked.txt'));
    const refused = await toolsRun(...readArgs('linked.txt'), '--workdir', project);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('hard links');
    expect((await toolsRun(...readArgs('linked.txt'), '--workdir', project, '--no-confine')).code).toBe(0);
  });
});
