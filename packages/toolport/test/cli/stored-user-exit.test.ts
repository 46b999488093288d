import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { runCli } from '../../src/cli/main.ts';
import { ToolRegistry } from '../../src/core/tool-registry.ts';
import { migrateDatabase, openDatabase } from '../../src/persistence/database.ts';
import { loadSecretKey } from '../../src/secrets/secret-key.ts';
import { createToolportServices } from '../../src/services/toolport-services.ts';
import { registerBuiltinTools } from '../../src/tools/index.ts';
import { FakeProviderServer } from '../providers/fake-provider-server.ts';
import { scriptStep } from '../providers/scripted-streams.ts';
import { LOCAL_USER_POLICY } from '../../src/policy/local-user-policy.ts';

const BIN = fileURLToPath(new URL('../../bin/toolport.js', import.meta.url));
const BUILT = existsSync(fileURLToPath(new URL('../../dist/cli/chat-command.js', import.meta.url)));
const FIXTURE = fileURLToPath(new URL('../mcp/fixtures/fixture-server.mjs', import.meta.url));
/** Far more than a one-shot chat needs; a process still running by then would never have exited. */
const EXIT_WAIT_MS = 15_000;

/** Runs the real bin and reports whether it exited by itself within `EXIT_WAIT_MS` (else it is killed). */
function runBin(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; exitedByItself: boolean; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, EXIT_WAIT_MS);
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, exitedByItself: !killed, stdout, stderr });
    });
  });
}

function captureIo(env: NodeJS.ProcessEnv): { io: CliIo; output: { stdout: string; stderr: string } } {
  const output = { stdout: '', stderr: '' };
  return {
    output,
    io: {
      stdout: (text) => (output.stdout += text),
      stderr: (text) => (output.stderr += text),
      cwd: process.cwd(),
      env,
      stdoutIsTerminal: false,
    },
  };
}

describe.skipIf(!BUILT)(
  'CLI-1 toolport chat --user with an enabled stdio MCP server exits (the real bin)',
  () => {
    let server: FakeProviderServer;
    let dataDirectory: string;
    const marker = () => join(dataDirectory, 'fixture.log');
    const spawns = () =>
      existsSync(marker())
        ? readFileSync(marker(), 'utf8')
            .split('\n')
            .filter((line) => line.startsWith('start')).length
        : 0;
    const env = () => ({ PATH: process.env.PATH ?? '', ANTHROPIC_API_KEY: 'test-key' });
    const chat = (extra: string[]) =>
      runBin(['chat', '--user', 'alice', '--data-dir', dataDirectory, ...extra, '-p', 'hi'], env());

    beforeAll(async () => {
      server = await FakeProviderServer.start();
      dataDirectory = mkdtempSync(join(tmpdir(), 'toolport-chat-exit-'));
      const database = openDatabase(`sqlite:${join(dataDirectory, 'toolport.db')}`);
      await migrateDatabase(database);
      const services = createToolportServices({
        database,
        registry: registerBuiltinTools(new ToolRegistry()),
        secretKey: loadSecretKey({ dataDirectory }).key,
        // The local user's policy, as `chat --user` runs with (a loopback provider base URL is theirs to set).
        policy: LOCAL_USER_POLICY,
      });
      const { user } = await services.tokens.createUser('alice');
      await services.providers.create(user, {
        name: 'claude',
        provider: 'anthropic',
        baseUrl: server.baseURLFor('anthropic'),
        defaultModel: 'claude-test',
      });
      await services.repositories.mcpServers.create(user.id, {
        name: 'fixture',
        transport: 'stdio',
        config: { command: process.execPath, args: [FIXTURE], env: { FIXTURE_MARKER_FILE: marker() } },
      });
      await services.mcp.close();
      await database.close();
    });
    afterAll(async () => {
      await server.close();
      rmSync(dataDirectory, { recursive: true, force: true });
    });

    it('exits 0 after the answer, with the MCP tools sent to the model', async () => {
      server.enqueue('anthropic', scriptStep('anthropic', { text: 'Answered.' }));
      const before = server.requests.length;
      const result = await chat([]);
      expect(result.exitedByItself).toBe(true);
      expect(result.stdout).toBe('Answered.\n');
      expect(result.code).toBe(0);
      const tools = (server.requests[before]!.body.tools as Array<{ name: string }>).map((tool) => tool.name);
      expect(tools).toContain('fixture_echo');
    });

    it('exits 2 on a usage error without spawning the MCP server', async () => {
      const spawnsBefore = spawns();
      const result = await chat(['--provider', 'no-such-provider']);
      expect(result.exitedByItself).toBe(true);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('--provider must be one of');
      expect(spawns()).toBe(spawnsBefore);
    });

    it('exits 1 after a provider error', async () => {
      server.enqueue('anthropic', { payloads: [], status: 400 });
      const result = await chat([]);
      expect(result.exitedByItself).toBe(true);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('provider error');
    });
  },
);

describe('CLI-1 --user opens an existing store only (mcp, chat)', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'toolport-no-store-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it.each([
    ['mcp', ['mcp', '--user', 'alice']],
    ['chat', ['chat', '--user', 'alice', '--provider', 'anthropic', '--model', 'm', '-p', 'hi']],
  ])('%s --user without a data dir exits 2 naming it and creates nothing', async (_name, args) => {
    const dataDirectory = join(root, 'missing', 'toolport');
    const { io, output } = captureIo({ TOOLPORT_DATA_DIR: dataDirectory, ANTHROPIC_API_KEY: 'k' });
    expect(await runCli(args, io)).toBe(2);
    expect(output.stderr).toContain(dataDirectory);
    expect(output.stderr).toContain('does not exist');
    expect(existsSync(join(root, 'missing'))).toBe(false);
  });

  it('mcp --user with a data dir but no database says so and writes no key into it', async () => {
    const dataDirectory = mkdtempSync(join(root, 'empty-'));
    const { io, output } = captureIo({});
    expect(await runCli(['mcp', '--user', 'alice', '--data-dir', dataDirectory], io)).toBe(2);
    expect(output.stderr).toContain(`no toolport database at ${join(dataDirectory, 'toolport.db')}`);
    expect(existsSync(join(dataDirectory, 'secret.key'))).toBe(false);
    expect(existsSync(join(dataDirectory, 'toolport.db'))).toBe(false);
  });
});
