import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { runCli } from '../../src/cli/main.ts';
import { FakeProviderServer } from '../providers/fake-provider-server.ts';
import { scriptStep } from '../providers/scripted-streams.ts';

const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(PACKAGE_ROOT, 'bin/toolport.js');
const BUILT = existsSync(join(PACKAGE_ROOT, 'dist/cli/main.js'));
const HAS_SCRIPT = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
const BASH_ON = '{"enabled":true}';

function capture(options: { stderrIsTerminal?: boolean; env?: NodeJS.ProcessEnv } = {}) {
  const output = { stdout: '', stderr: '' };
  const io: CliIo = {
    stdout: (text) => (output.stdout += text),
    stderr: (text) => (output.stderr += text),
    cwd: process.cwd(),
    // The CLI's read-before-write state goes in this file's temp dir, not a shared one under /tmp.
    env: { TOOLPORT_STATE_DIR: directory, ...options.env },
    stdoutIsTerminal: false,
    ...(options.stderrIsTerminal === undefined ? {} : { stderrIsTerminal: options.stderrIsTerminal }),
  };
  return { io, output };
}

let directory: string;
beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'toolport-progress-'));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('CLI-1 progress of a long tools run on a terminal', () => {
  const longCall = [
    'tools',
    'run',
    'bash',
    '--args',
    '{"command":"sleep 0.5; echo done"}',
    '--settings',
    BASH_ON,
  ];

  it('shows what runs on stderr when stderr is a terminal, and clears the line before the result', async () => {
    const { io, output } = capture({ stderrIsTerminal: true });
    expect(await runCli(longCall, io)).toBe(0);
    expect(output.stderr).toContain('toolport: bash running');
    expect(output.stderr.endsWith('\r\u001b[2K')).toBe(true);
    expect(JSON.parse(output.stdout)).toMatchObject({ stdout: 'done\n', termination: 'exited' });
  });

  it('writes nothing on stderr when it is not a terminal', async () => {
    const { io, output } = capture({ stderrIsTerminal: false });
    expect(await runCli(longCall, io)).toBe(0);
    expect(output.stderr).toBe('');
  });

  it.skipIf(!BUILT || !HAS_SCRIPT)('shows it through a real pseudo-terminal, and nothing when piped', () => {
    const command = [process.execPath, BIN, ...longCall].map((part) => `'${part}'`).join(' ');
    const env = { PATH: process.env.PATH ?? '', TOOLPORT_STATE_DIR: directory };
    const onTerminal = spawnSync('script', ['-qec', command, '/dev/null'], {
      encoding: 'utf8',
      input: '',
      env,
    });
    expect(onTerminal.status).toBe(0);
    expect(onTerminal.stdout).toContain('toolport: bash running');
    const piped = spawnSync(process.execPath, [BIN, ...longCall], { encoding: 'utf8', input: '', env });
    expect(piped.status).toBe(0);
    expect(piped.stderr).toBe('');
  });
});

describe.skipIf(!BUILT)('CLI-1 Ctrl-C on tools run (the real bin)', () => {
  it('returns the partial result with termination aborted and exits 130', async () => {
    // The shell sandbox lets a command write only in its working directory, as an unprivileged uid under root.
    const workdir = mkdtempSync(join(tmpdir(), 'toolport-progress-workdir-'));
    onTestFinished(() => rmSync(workdir, { recursive: true, force: true }));
    if (process.getuid?.() === 0) chownSync(workdir, 65534, 65534);
    const marker = join(workdir, 'started');
    const child = spawn(
      process.execPath,
      [
        BIN,
        'tools',
        'run',
        'bash',
        '--args',
        JSON.stringify({ command: `echo started; echo $$ > ${marker}; sleep 30` }),
        '--settings',
        BASH_ON,
        '--workdir',
        workdir,
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { PATH: process.env.PATH ?? '', TOOLPORT_STATE_DIR: directory },
      },
    );
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // The shell creates the file before it writes the pid: wait for the content, not just the file.
    const written = (): boolean => existsSync(marker) && readFileSync(marker, 'utf8').trim() !== '';
    for (let attempt = 0; attempt < 400 && !written(); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(readFileSync(marker, 'utf8').trim()).toMatch(/^\d+$/);
    child.kill('SIGINT');
    const code = await exited;
    expect(code).toBe(130);
    expect(JSON.parse(stdout)).toMatchObject({ stdout: 'started\n', termination: 'aborted' });
  });
});

describe('CLI-1 progress of toolport chat on a terminal', () => {
  let server: FakeProviderServer;
  beforeAll(async () => {
    server = await FakeProviderServer.start();
  });
  afterAll(() => server.close());

  const chat = async (stderrIsTerminal: boolean) => {
    server.enqueue(
      'anthropic',
      scriptStep('anthropic', {
        toolCalls: [{ id: 'toolu_1', name: 'get_current_datetime', arguments: '{"timezone":"UTC"}' }],
      }),
    );
    server.enqueue('anthropic', scriptStep('anthropic', { text: 'It is now.' }));
    const { io, output } = capture({ stderrIsTerminal, env: { ANTHROPIC_API_KEY: 'k' } });
    const code = await runCli(
      [
        'chat',
        '--provider',
        'anthropic',
        '--model',
        'm',
        '--base-url',
        server.baseURLFor('anthropic'),
        '-p',
        'time?',
      ],
      io,
    );
    return { code, ...output };
  };

  it('says what the turn waits for on a terminal (the model, then the tool)', async () => {
    const result = await chat(true);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('It is now.\n');
    expect(result.stderr).toContain('toolport: waiting for the model');
    expect(result.stderr).toContain('toolport: running get_current_datetime');
    expect(result.stderr.endsWith('\r\u001b[2K')).toBe(true);
  });

  it('prints only the activity lines when stderr is not a terminal', async () => {
    const result = await chat(false);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('waiting for the model');
    expect(result.stderr).not.toContain('\u001b[');
  });
});
