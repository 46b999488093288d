import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandboxScratch } from '../support/sandbox-scratch.ts';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { runCli } from '../../src/cli/main.ts';
import { defaultToolRegistry } from '../../src/core/tool-registry.ts';
import { migrateDatabase, openDatabase } from '../../src/persistence/database.ts';
import { loadSecretKey } from '../../src/secrets/secret-key.ts';
import { createToolportServices } from '../../src/services/toolport-services.ts';
import { registerBuiltinTools } from '../../src/tools/index.ts';
import { FakeProviderServer } from '../providers/fake-provider-server.ts';
import { scriptStep } from '../providers/scripted-streams.ts';

const DONE_WHEN_RULE = { '*': 'ask', 'git status*': 'allow', 'rm -rf *': 'deny' };
const bashCall = (id: string, command: string) => ({
  id,
  name: 'bash',
  arguments: JSON.stringify({ command }),
});

describe('issue 16 toolport chat: the same rules, asked on a terminal, denied without one unless --yes', () => {
  let server: FakeProviderServer;
  let dataDirectory: string;
  let workdir: string;

  beforeAll(async () => {
    server = await FakeProviderServer.start();
    dataDirectory = mkdtempSync(join(tmpdir(), 'toolport-chat-approvals-'));
    workdir = makeSandboxScratch('toolport-chat-approvals-work-', ['build']);
    const database = openDatabase(`sqlite:${join(dataDirectory, 'toolport.db')}`);
    await migrateDatabase(database);
    const services = createToolportServices({
      database,
      registry: registerBuiltinTools(defaultToolRegistry),
      secretKey: loadSecretKey({ dataDirectory }).key,
    });
    const { user } = await services.tokens.createUser('alice', { isAdmin: true });
    await services.secrets.set(user.id, 'KEY', 'sk-chat-approvals');
    await services.providers.create(user, {
      name: 'chat',
      provider: 'openai-chat',
      baseUrl: server.baseURLFor('openai-chat'),
      defaultModel: 'm',
      apiKeySecret: 'KEY',
    });
    await services.toolSettings.update(user, 'bash', { enabled: true, permission: DONE_WHEN_RULE });
    await services.flush();
    await database.close();
  });
  afterAll(async () => {
    await server.close();
    rmSync(dataDirectory, { recursive: true, force: true });
    rmSync(workdir, { recursive: true, force: true });
  });

  const run = async (args: string[], options: { terminal: boolean; input?: string }) => {
    const output = { stdout: '', stderr: '' };
    const stdin = new PassThrough();
    stdin.end(options.input ?? '');
    const io: CliIo = {
      stdout: (text) => (output.stdout += text),
      stderr: (text) => (output.stderr += text),
      cwd: process.cwd(),
      env: {},
      stdin,
      stdoutIsTerminal: false,
      stdinIsTerminal: options.terminal,
    };
    const code = await runCli(
      ['chat', '--user', 'alice', '--data-dir', dataDirectory, '--workdir', workdir, ...args],
      io,
    );
    return { code, output };
  };

  const toolMessages = (since: number) =>
    server.requests
      .slice(since)
      .flatMap((request) =>
        (request.body.messages as Array<Record<string, unknown>>).filter((m) => m.role === 'tool'),
      )
      .map((message) => `${String(message.tool_call_id)}: ${String(message.content)}`);

  it('on a terminal: git status runs, touch asks (n denies, a always is stored), rm -rf is refused unasked', async () => {
    const since = server.requests.length;
    server.enqueue(
      'openai-chat',
      scriptStep('openai-chat', {
        toolCalls: [
          bashCall('c_git', 'git status'),
          bashCall('c_touch', 'touch build/x'),
          bashCall('c_rm', 'rm -rf build'),
        ],
      }),
    );
    server.enqueue('openai-chat', scriptStep('openai-chat', { text: 'first' }));
    server.enqueue(
      'openai-chat',
      scriptStep('openai-chat', { toolCalls: [bashCall('c_touch2', 'touch build/x')] }),
    );
    server.enqueue('openai-chat', scriptStep('openai-chat', { text: 'second' }));
    const { code, output } = await run([], { terminal: true, input: 'go\nn\nagain\na\n' });
    expect(code).toBe(0);
    // Asked exactly twice (touch both times), never for git status or rm -rf.
    expect(output.stderr.match(/approve bash/g)).toHaveLength(2);
    expect(output.stderr).toContain('touch build/x');
    const messages = toolMessages(since);
    expect(messages.find((m) => m.startsWith('c_rm:'))).toContain('permission_denied');
    expect(messages.find((m) => m.startsWith('c_touch:'))).toContain('The user denied');
    expect(messages.find((m) => m.startsWith('c_git:'))).not.toContain('permission_denied');
    expect(existsSync(join(workdir, 'build', 'x'))).toBe(true);

    // The `a` answer was written as an allow rule: a new process runs the same command unasked, even without a terminal.
    server.enqueue(
      'openai-chat',
      scriptStep('openai-chat', { toolCalls: [bashCall('c_touch3', 'touch build/x')] }),
    );
    server.enqueue('openai-chat', scriptStep('openai-chat', { text: 'third' }));
    const later = server.requests.length;
    const again = await run(['-p', 'go'], { terminal: false });
    expect(again.output.stderr).not.toContain('approve');
    expect(toolMessages(later).find((m) => m.startsWith('c_touch3:'))).not.toContain('permission_denied');
  });

  it('on a terminal the progress line (CLI-1) is cleared and stays away while the question waits', async () => {
    server.enqueue(
      'openai-chat',
      scriptStep('openai-chat', { toolCalls: [bashCall('c_wait', 'touch build/w')] }),
    );
    server.enqueue('openai-chat', scriptStep('openai-chat', { text: 'done' }));
    let stderr = '';
    const stdin = new PassThrough();
    stdin.write('go\n');
    const io: CliIo = {
      stdout: () => {},
      stderr: (text) => (stderr += text),
      cwd: process.cwd(),
      env: {},
      stdin,
      stdoutIsTerminal: false,
      stderrIsTerminal: true,
      stdinIsTerminal: true,
    };
    const running = runCli(
      ['chat', '--user', 'alice', '--data-dir', dataDirectory, '--workdir', workdir],
      io,
    );
    await expect.poll(() => stderr.includes('approve bash'), { timeout: 20_000, interval: 20 }).toBe(true);
    const asked = stderr.length;
    // Several refresh periods of the line (250 ms each): nothing may be drawn over the question.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(stderr.slice(asked)).toBe('');
    stdin.end('y\n');
    expect(await running).toBe(0);
    expect(existsSync(join(workdir, 'build', 'w'))).toBe(true);
  });

  it('without a terminal an ask is denied with a message on stderr and in the tool result; --yes approves', async () => {
    server.enqueue(
      'openai-chat',
      scriptStep('openai-chat', { toolCalls: [bashCall('c_echo', 'echo hi > build/y')] }),
    );
    server.enqueue('openai-chat', scriptStep('openai-chat', { text: 'done' }));
    const since = server.requests.length;
    const denied = await run(['-p', 'go'], { terminal: false });
    expect(denied.output.stderr).toContain('no terminal to ask');
    expect(toolMessages(since).find((m) => m.startsWith('c_echo:'))).toContain('no terminal to ask');
    expect(existsSync(join(workdir, 'build', 'y'))).toBe(false);

    server.enqueue(
      'openai-chat',
      scriptStep('openai-chat', { toolCalls: [bashCall('c_echo2', 'echo hi > build/y')] }),
    );
    server.enqueue('openai-chat', scriptStep('openai-chat', { text: 'done' }));
    const approved = await run(['-p', 'go', '--yes'], { terminal: false });
    expect(approved.code).toBe(0);
    expect(existsSync(join(workdir, 'build', 'y'))).toBe(true);
  });
});
