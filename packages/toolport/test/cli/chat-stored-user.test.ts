import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { runCli } from '../../src/cli/main.ts';
import { defaultToolRegistry } from '../../src/core/tool-registry.ts';
import { migrateDatabase, openDatabase } from '../../src/persistence/database.ts';
import { loadSecretKey } from '../../src/secrets/secret-key.ts';
import { createToolportServices } from '../../src/services/toolport-services.ts';
import { registerBuiltinTools } from '../../src/tools/index.ts';
import { FakeProviderServer } from '../providers/fake-provider-server.ts';
import { scriptStep } from '../providers/scripted-streams.ts';

function captureIo(env: NodeJS.ProcessEnv) {
  const output = { stdout: '', stderr: '' };
  const io: CliIo = {
    stdout: (text) => (output.stdout += text),
    stderr: (text) => (output.stderr += text),
    cwd: process.cwd(),
    env,
    stdoutIsTerminal: false,
  };
  return { io, output };
}

describe('CLI-1 toolport chat --user: a stored user’s secrets, provider configuration and tools', () => {
  let server: FakeProviderServer;
  let dataDirectory: string;
  const storedKey = 'sk-ant-stored-in-secrets';

  beforeAll(async () => {
    server = await FakeProviderServer.start();
    dataDirectory = mkdtempSync(join(tmpdir(), 'toolport-chat-user-'));
    const database = openDatabase(`sqlite:${join(dataDirectory, 'toolport.db')}`);
    await migrateDatabase(database);
    const services = createToolportServices({
      database,
      registry: registerBuiltinTools(defaultToolRegistry),
      secretKey: loadSecretKey({ dataDirectory }).key,
    });
    const { user } = await services.tokens.createUser('alice', { isAdmin: true });
    await services.secrets.set(user.id, 'ANTHROPIC_KEY', storedKey);
    await services.providers.create(user, {
      name: 'claude',
      provider: 'anthropic',
      baseUrl: server.baseURLFor('anthropic'),
      defaultModel: 'stored-default-model',
      apiKeySecret: 'ANTHROPIC_KEY',
    });
    await services.toolSettings.update(user, 'get_current_datetime', { enabled: false });
    await services.toolSettings.update(user, 'bash', { enabled: true });
    await services.flush();
    await database.close();
  });
  afterAll(async () => {
    await server.close();
    rmSync(dataDirectory, { recursive: true, force: true });
  });

  const chat = async (env: NodeJS.ProcessEnv, extra: string[] = []) => {
    server.enqueue('anthropic', scriptStep('anthropic', { text: 'Hello from the stored config.' }));
    const before = server.requests.length;
    const { io, output } = captureIo(env);
    const code = await runCli(
      ['chat', '--user', 'alice', '--data-dir', dataDirectory, ...extra, '-p', 'hi'],
      io,
    );
    return { code, output, request: server.requests[before]! };
  };

  it('takes the key from the user’s secrets when the environment variable is unset, and their enabled tools', async () => {
    const { code, output, request } = await chat({});
    expect(output.stderr).toBe('');
    expect(code).toBe(0);
    expect(output.stdout).toBe('Hello from the stored config.\n');
    expect(request.apiKey).toBe(storedKey);
    expect(request.body.model).toBe('stored-default-model');
    const tools = (request.body.tools as Array<{ name: string }>).map((tool) => tool.name);
    expect(tools).toContain('bash');
    expect(tools).not.toContain('get_current_datetime');
  });

  it('the environment variable stays the default; --provider names the configuration and --model overrides', async () => {
    const { code, request } = await chat({ ANTHROPIC_API_KEY: 'sk-from-environment' }, [
      '--provider',
      'claude',
      '--model',
      'flag-model',
    ]);
    expect(code).toBe(0);
    expect(request.apiKey).toBe('sk-from-environment');
    expect(request.body.model).toBe('flag-model');
  });

  it('refuses an unknown user and --data-dir without --user', async () => {
    const unknown = captureIo({});
    expect(
      await runCli(['chat', '--user', 'nobody', '--data-dir', dataDirectory, '-p', 'hi'], unknown.io),
    ).toBe(2);
    expect(unknown.output.stderr).toContain('nobody');
    const orphan = captureIo({});
    expect(
      await runCli(
        ['chat', '--provider', 'anthropic', '--model', 'm', '--data-dir', dataDirectory, '-p', 'x'],
        orphan.io,
      ),
    ).toBe(2);
  });
});
