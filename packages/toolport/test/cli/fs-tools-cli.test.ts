import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { runCli } from '../../src/cli/main.ts';
import { closeScanWorkers } from '../../src/fs/scan-pool.ts';
import { makeTemporaryDirectory, removeDirectory } from '../support/fs-harness.ts';

let work: string;
let state: string;

function captureIo(): CliIo & { output: () => string } {
  let stdout = '';
  return {
    stdout: (text) => {
      stdout += text;
    },
    stderr: () => {},
    cwd: work,
    env: { ...process.env, TOOLPORT_STATE_DIR: state },
    output: () => stdout,
  };
}

async function cli(...argv: string[]): Promise<{ code: number; json: Record<string, unknown> }> {
  const io = captureIo();
  const code = await runCli(argv, io);
  return { code, json: JSON.parse(io.output()) as Record<string, unknown> };
}

beforeAll(async () => {
  work = await makeTemporaryDirectory('toolport-cli-fs-');
  state = await makeTemporaryDirectory('toolport-cli-state-');
  await writeFile(join(work, 'notes.txt'), 'first line\nsecond line\n');
});

afterAll(async () => {
  await closeScanWorkers();
  await removeDirectory(work);
  await removeDirectory(state);
});

describe('FS-2 write_file from the CLI', () => {
  it('keeps the read-before-overwrite guard across invocations with a file-backed ledger keyed by --chat', async () => {
    const refused = await cli(
      'tools',
      'run',
      'write_file',
      '--workdir',
      work,
      '--args',
      '{"path":"notes.txt","content":"x"}',
    );
    expect(refused.code).toBe(1);
    expect(refused.json).toMatchObject({ error: { code: 'conflict' } });

    expect(
      (await cli('tools', 'run', 'read_file', '--workdir', work, '--args', '{"path":"notes.txt"}')).code,
    ).toBe(0);
    // Another chat id has not read it.
    const otherChat = await cli(
      'tools',
      'run',
      'edit_file',
      '--workdir',
      work,
      '--chat',
      'other',
      '--args',
      '{"path":"notes.txt","oldString":"second","newString":"2nd"}',
    );
    expect(otherChat.json).toMatchObject({ error: { code: 'conflict' } });
    const edited = await cli(
      'tools',
      'run',
      'edit_file',
      '--workdir',
      work,
      '--args',
      '{"path":"notes.txt","oldString":"second","newString":"2nd"}',
    );
    expect(edited).toMatchObject({ code: 0, json: { replacements: 1 } });
    expect(await readFile(join(work, 'notes.txt'), 'utf8')).toBe('first line\n2nd line\n');
  });

  it('applies --settings allowedPaths/deniedPaths and --mode', async () => {
    const denied = await cli(
      'tools',
      'run',
      'list_directory',
      '--workdir',
      work,
      '--settings',
      JSON.stringify({ deniedPaths: [work] }),
      '--args',
      '{}',
    );
    expect(denied.json).toMatchObject({ error: { code: 'permission_denied' } });
    const chat = await cli(
      'tools',
      'run',
      'list_directory',
      '--workdir',
      work,
      '--mode',
      'chat',
      '--args',
      '{}',
    );
    expect(chat.json).toMatchObject({ error: { code: 'validation_failed' } });
  });
});

describe('FS-5 grep from the CLI', () => {
  it('applies limits from --settings', async () => {
    const limited = await cli(
      'tools',
      'run',
      'grep',
      '--workdir',
      work,
      '--settings',
      '{"maxResults":1}',
      '--args',
      '{"pattern":"line"}',
    );
    expect(limited.json).toMatchObject({ truncated: true, matches: [{ file: 'notes.txt', line: 1 }] });
    const invalid = await cli(
      'tools',
      'run',
      'grep',
      '--workdir',
      work,
      '--settings',
      '{"maxResults":0}',
      '--args',
      '{"pattern":"x"}',
    );
    expect(invalid.json).toMatchObject({ error: { code: 'invalid_settings' } });
  });
});

const packageRoot = fileURLToPath(new URL('../..', import.meta.url));
const builtCli = join(packageRoot, 'dist', 'cli', 'main.js');

describe('FS-5 grep from the built CLI', () => {
  it.skipIf(!existsSync(builtCli))('runs the dist worker (scan-worker.js) in a real process', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        join(packageRoot, 'bin', 'toolport.js'),
        'tools',
        'run',
        'grep',
        '--workdir',
        work,
        '--args',
        '{"pattern":"^first"}',
      ],
      { env: { ...process.env, TOOLPORT_STATE_DIR: state } },
    );
    expect(JSON.parse(stdout)).toMatchObject({
      matches: [{ file: 'notes.txt', line: 1, text: 'first line' }],
    });
  });
});
