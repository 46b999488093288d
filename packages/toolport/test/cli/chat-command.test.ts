import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { runCli } from '../../src/cli/main.ts';
import { FakeProviderServer } from '../providers/fake-provider-server.ts';
import { scriptStep } from '../providers/scripted-streams.ts';

function captureIo(env: NodeJS.ProcessEnv, options: Partial<CliIo> = {}) {
  const output = { stdout: '', stderr: '' };
  const io: CliIo = {
    stdout: (text) => (output.stdout += text),
    stderr: (text) => (output.stderr += text),
    cwd: process.cwd(),
    env,
    stdoutIsTerminal: false,
    ...options,
  };
  return { io, output };
}

describe('CLI-1 toolport chat', () => {
  let server: FakeProviderServer;
  beforeAll(async () => {
    server = await FakeProviderServer.start();
  });
  afterAll(() => server.close());

  it('one-shot: shows the tool call and its result on stderr, the final answer on stdout, exits 0', async () => {
    server.enqueue(
      'openai-chat',
      scriptStep('openai-chat', {
        text: 'Checking the clock.',
        toolCalls: [
          { id: 'call_1', name: 'get_current_datetime', arguments: '{"timezone":"America/Sao_Paulo"}' },
        ],
      }),
    );
    server.enqueue('openai-chat', scriptStep('openai-chat', { text: 'It is morning in São Paulo.' }));
    const { io, output } = captureIo({ OPENAI_API_KEY: 'test-key' });
    const before = server.requests.length;
    const code = await runCli(
      [
        'chat',
        '--provider',
        'openai-chat',
        '--model',
        'test-model',
        '--base-url',
        server.baseURLFor('openai-chat'),
        '-p',
        'What time is it in São Paulo?',
      ],
      io,
    );
    expect(code).toBe(0);
    expect(output.stdout).toBe('It is morning in São Paulo.\n');
    expect(output.stderr).toContain('Checking the clock.\n');
    expect(output.stderr).toContain('→ get_current_datetime {"timezone":"America/Sao_Paulo"}');
    expect(output.stderr).toMatch(/← get_current_datetime ok \{"utc":"/);
    const first = server.requests[before]!.body;
    expect((first.messages as Array<{ content: string }>).at(-1)!.content).toBe(
      'What time is it in São Paulo?',
    );
    expect(
      (first.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name),
    ).toContain('get_current_datetime');
  });

  it('on a terminal everything streams to stdout', async () => {
    server.enqueue('anthropic', scriptStep('anthropic', { text: 'Hello there.' }));
    const { io, output } = captureIo({ ANTHROPIC_API_KEY: 'k' }, { stdoutIsTerminal: true });
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
        'hi',
      ],
      io,
    );
    expect(code).toBe(0);
    expect(output.stdout).toBe('Hello there.\n');
  });

  it('interactive: one line per turn in the same conversation, until /exit', async () => {
    server.enqueue('gemini', scriptStep('gemini', { text: 'First answer.' }));
    server.enqueue('gemini', scriptStep('gemini', { text: 'Second answer.' }));
    const { io, output } = captureIo(
      { GEMINI_API_KEY: 'k' },
      { stdin: Readable.from(['first question\n', 'second question\n', '/exit\n', 'never sent\n']) },
    );
    const before = server.requests.length;
    const code = await runCli(
      ['chat', '--provider', 'gemini', '--model', 'gemini-test', '--base-url', server.baseURLFor('gemini')],
      io,
    );
    expect(code).toBe(0);
    expect(output.stdout).toBe('First answer.\nSecond answer.\n');
    const requests = server.requests.slice(before);
    expect(requests).toHaveLength(2);
    const contents = requests[1]!.body.contents as Array<{ role: string }>;
    expect(contents.map((content) => content.role)).toEqual(['user', 'model', 'user']);
  });

  it('a provider error exits 1 with the message on stderr', async () => {
    server.enqueue('openai', {
      payloads: [],
      status: 401,
      errorBody: { error: { message: 'Incorrect API key' } },
    });
    const { io, output } = captureIo({ OPENAI_API_KEY: 'wrong' });
    const code = await runCli(
      ['chat', '--provider', 'openai', '--model', 'm', '--base-url', server.baseURLFor('openai'), '-p', 'hi'],
      io,
    );
    expect(code).toBe(1);
    expect(output.stderr).toContain('provider error (401)');
    expect(output.stdout).toBe('');
  });

  it.each([
    [['chat', '--model', 'm', '-p', 'x'], '--provider must be one of'],
    [['chat', '--provider', 'cohere', '--model', 'm'], '--provider must be one of'],
    [['chat', '--provider', 'openai', '-p', 'x'], '--model is required'],
    [['chat', '--provider', 'anthropic', '--model', 'm', '-p', 'x'], 'set ANTHROPIC_API_KEY'],
    [['chat', '--provider', 'openai', '--model', 'm', '--bogus'], 'Unknown option'],
  ])('bad usage %j exits 2', async (argv, message) => {
    const { io, output } = captureIo({});
    expect(await runCli(argv, io)).toBe(2);
    expect(output.stderr).toContain(message);
  });
});
