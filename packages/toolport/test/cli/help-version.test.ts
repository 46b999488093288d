import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { COMMAND_SPECS, commandSynopsis } from '../../src/cli/command-specs.ts';
import { runCli, USAGE } from '../../src/cli/main.ts';
import { PROVIDER_NAMES } from '../../src/providers/provider-adapter.ts';

const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(PACKAGE_ROOT, 'bin/toolport.js');
const BUILT = existsSync(join(PACKAGE_ROOT, 'dist/cli/main.js'));
const VERSION = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;

const stateDirectory = mkdtempSync(join(tmpdir(), 'toolport-help-state-'));
afterAll(() => rmSync(stateDirectory, { recursive: true, force: true }));

function capture(): { io: CliIo; output: { stdout: string; stderr: string } } {
  const output = { stdout: '', stderr: '' };
  return {
    output,
    io: {
      stdout: (text) => (output.stdout += text),
      stderr: (text) => (output.stderr += text),
      cwd: process.cwd(),
      env: { TOOLPORT_STATE_DIR: stateDirectory },
    },
  };
}

async function run(argv: string[]) {
  const { io, output } = capture();
  const code = await runCli(argv, io);
  return { code, ...output };
}

const commands = COMMAND_SPECS.map((spec) => [spec.name, spec] as const);

describe('CLI-1 --help and --version on every command', () => {
  it.each(commands)('toolport %s --help and -h print its flags on stdout and exit 0', async (name, spec) => {
    for (const flag of ['--help', '-h']) {
      const result = await run([...name.split(' '), flag]);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout).toContain(commandSynopsis(spec));
      for (const option of Object.keys(spec.flags)) expect(result.stdout).toContain(`--${option}`);
    }
  });

  it.each(commands)('toolport %s --version prints the version on stdout and exits 0', async (name) => {
    const result = await run([...name.split(' '), '--version']);
    expect(result).toMatchObject({ code: 0, stdout: `toolport ${VERSION}\n`, stderr: '' });
  });

  it('toolport --version, --help, -h and help', async () => {
    expect(await run(['--version'])).toMatchObject({ code: 0, stdout: `toolport ${VERSION}\n` });
    for (const argv of [['--help'], ['-h'], ['help']]) {
      expect(await run(argv)).toMatchObject({ code: 0, stdout: USAGE, stderr: '' });
    }
    expect(await run(['help', 'serve'])).toMatchObject({ code: 0 });
    expect((await run(['help', 'serve'])).stdout).toContain('--log-level');
  });

  it('a flag value that reads like --help is a value, not a request for help', async () => {
    const result = await run(['tools', 'run', 'get_current_datetime', '--chat=--help', '--args', '{}']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toHaveProperty('timezone');
  });

  it('the top-level usage lists every command with every flag, and every provider', () => {
    for (const spec of COMMAND_SPECS) {
      expect(USAGE).toContain(commandSynopsis(spec));
      for (const option of Object.keys(spec.flags)) expect(USAGE).toContain(`--${option}`);
    }
    for (const provider of PROVIDER_NAMES) expect(USAGE).toContain(provider);
  });

  it('every command refuses a flag its spec does not list (the usage cannot promise more than exists)', async () => {
    for (const spec of COMMAND_SPECS) {
      const result = await run([...spec.name.split(' '), '--no-such-flag']);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/no-such-flag/);
    }
  });
});

describe.skipIf(!BUILT)('CLI-1 --help on the real bin writes nothing', () => {
  let home: string;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'toolport-help-'));
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it.each([
    [['serve', '--help'], 'toolport serve'],
    [['tools', 'run', '--help'], 'toolport tools run'],
    [['user', 'create', '--help'], 'toolport user create'],
    [['mcp', '--help'], 'toolport mcp'],
    [['chat', '--help'], 'toolport chat'],
    [['--version'], `toolport ${VERSION}`],
  ])('toolport %j exits 0 on stdout without creating a data dir', (argv, expected) => {
    const result = spawnSync(process.execPath, [BIN, ...argv], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: home, XDG_DATA_HOME: join(home, 'data') },
      input: '',
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(expected);
    expect(existsSync(join(home, 'data'))).toBe(false);
  });
});
