import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineTool, type RegisteredTool } from '../../src/core/tool-types.ts';
import { FakeProviderServer } from './fake-provider-server.ts';
import { addTool, buildRuntime, runTurn, toolResultsIn } from './loop-helpers.ts';
import { scriptStep } from './scripted-streams.ts';

const settings = {
  title: 'Test',
  description: 'Test tool',
  category: 'interaction' as const,
  enabledByDefault: true,
  canDisable: true,
  defaultParameters: {},
  parameterDescriptors: [],
};
const noArguments = { type: 'object', properties: {}, required: [], additionalProperties: false };

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('PROV-4 agent loop', () => {
  let server: FakeProviderServer;
  beforeAll(async () => {
    server = await FakeProviderServer.start();
  });
  afterAll(() => server.close());

  it('turns malformed model arguments into a tool error the model reads and corrects', async () => {
    server.enqueue(
      'openai-chat',
      scriptStep('openai-chat', { toolCalls: [{ id: 'bad', name: 'add', arguments: '{"a":2,"b":' }] }),
    );
    server.enqueue(
      'openai-chat',
      scriptStep('openai-chat', { toolCalls: [{ id: 'typed', name: 'add', arguments: '{"a":"2","b":3}' }] }),
    );
    server.enqueue(
      'openai-chat',
      scriptStep('openai-chat', { toolCalls: [{ id: 'good', name: 'add', arguments: '{"a":2,"b":3}' }] }),
    );
    server.enqueue('openai-chat', scriptStep('openai-chat', { text: '5' }));
    const before = server.requests.length;
    const { events, summary } = await runTurn(server, 'openai-chat', buildRuntime());
    expect(summary).toMatchObject({ stopReason: 'end_turn', iterations: 4 });
    const results = events.filter((event) => event.type === 'tool_result');
    expect(results.map((event) => event.error?.code ?? 'ok')).toEqual([
      'validation_failed',
      'validation_failed',
      'ok',
    ]);
    expect(results[0]!.error!.message).toContain('not valid JSON');
    expect(results[1]!.error!.message).toContain('`a`');
    const fedBack = toolResultsIn('openai-chat', server.requests[before + 1]!.body);
    expect(fedBack[0]![0]).toBe('bad');
    expect(JSON.parse(fedBack[0]![1])).toMatchObject({ error: { code: 'validation_failed' } });
  });

  it('runs parallel calls concurrently: each of two tools waits until the other has started', async () => {
    let releaseFirst!: () => void;
    let releaseSecond!: () => void;
    const firstStarted = new Promise<void>((resolve) => (releaseSecond = resolve));
    const secondStarted = new Promise<void>((resolve) => (releaseFirst = resolve));
    const first = defineTool<object>({
      definition: { name: 'first', description: 'Waits for second.', parameters: noArguments },
      settings,
      execute: async () => {
        releaseSecond();
        await secondStarted;
        return 'first done';
      },
    });
    const second = defineTool<object>({
      definition: { name: 'second', description: 'Waits for first.', parameters: noArguments },
      settings,
      execute: async () => {
        releaseFirst();
        await firstStarted;
        return 'second done';
      },
    });
    server.enqueue(
      'anthropic',
      scriptStep('anthropic', {
        toolCalls: [
          { id: 'toolu_1', name: 'first', arguments: '' },
          { id: 'toolu_2', name: 'second', arguments: '{}' },
        ],
      }),
    );
    server.enqueue('anthropic', scriptStep('anthropic', { text: 'done' }));
    const before = server.requests.length;
    const { events } = await runTurn(server, 'anthropic', buildRuntime([first, second]));
    const results = events.filter((event) => event.type === 'tool_result');
    expect(results.map((event) => event.result).sort()).toEqual(['first done', 'second done']);
    expect(toolResultsIn('anthropic', server.requests[before + 1]!.body).map(([id]) => id)).toEqual([
      'toolu_1',
      'toolu_2',
    ]);
  });

  it('ends with turn_completed max_iterations, not an exception, and does not run the last calls', async () => {
    let runs = 0;
    const counter = defineTool<object>({
      definition: { name: 'counter', description: 'Counts.', parameters: noArguments },
      settings,
      execute: async () => ++runs,
    });
    for (let step = 0; step < 2; step += 1)
      server.enqueue(
        'openai',
        scriptStep('openai', { toolCalls: [{ id: `call_${step}`, name: 'counter', arguments: '{}' }] }),
      );
    const { events, summary } = await runTurn(server, 'openai', buildRuntime([counter]), {
      maxIterations: 2,
    });
    expect(summary).toMatchObject({ stopReason: 'max_iterations', iterations: 2 });
    expect(events.at(-1)).toMatchObject({ type: 'turn_completed', stopReason: 'max_iterations' });
    expect((events.at(-1) as { message?: string }).message).toContain('2 model calls');
    expect(runs).toBe(1);
    expect(server.pending('openai')).toBe(0);
  });

  it('cancellation aborts every running tool and its child process, and ends the turn as cancelled', async () => {
    const pids: number[] = [];
    const aborted: string[] = [];
    const sleeper = (name: string): RegisteredTool =>
      defineTool<object>({
        definition: { name, description: 'Sleeps in a child process.', parameters: noArguments },
        settings,
        execute: (_args, context) =>
          new Promise((resolve, reject) => {
            const child = spawn('sleep', ['30'], { stdio: 'ignore' });
            pids.push(child.pid!);
            child.on('exit', () => reject(new Error('killed')));
            context.signal.addEventListener('abort', () => {
              aborted.push(name);
              child.kill('SIGKILL');
            });
            void resolve;
          }),
      });
    server.enqueue(
      'gemini',
      scriptStep('gemini', {
        toolCalls: [
          { id: 'x', name: 'sleep_a', arguments: '{}' },
          { id: 'y', name: 'sleep_b', arguments: '{}' },
        ],
      }),
    );
    const controller = new AbortController();
    const { events, summary } = await runTurn(
      server,
      'gemini',
      buildRuntime([sleeper('sleep_a'), sleeper('sleep_b')]),
      {
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === 'tool_call_completed' && event.name === 'sleep_b')
            setImmediate(() => controller.abort());
        },
      },
    );
    expect(summary.stopReason).toBe('cancelled');
    expect(aborted.sort()).toEqual(['sleep_a', 'sleep_b']);
    expect(events.filter((event) => event.type === 'tool_result').map((event) => event.error?.code)).toEqual([
      'aborted',
      'aborted',
    ]);
    expect(pids).toHaveLength(2);
    // The turn ended only after both tools settled, and each tool settled on its child's exit.
    for (const pid of pids) await expect.poll(() => isRunning(pid)).toBe(false);
  });

  it('cancellation aborts the provider stream (the server sees the connection close)', async () => {
    const payloads = scriptStep('openai-chat', { text: 'a long answer that never ends' });
    server.enqueue('openai-chat', { payloads: payloads.slice(0, 3), hang: true });
    const controller = new AbortController();
    const abortedBefore = server.abortedRequests;
    const { events, summary } = await runTurn(server, 'openai-chat', buildRuntime(), {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'text_delta') controller.abort();
      },
    });
    expect(summary.stopReason).toBe('cancelled');
    expect(events.at(-1)).toMatchObject({ type: 'turn_completed', stopReason: 'cancelled' });
    await expect.poll(() => server.abortedRequests).toBe(abortedBefore + 1);
  });

  it('a provider HTTP error becomes an error event and a completed turn', async () => {
    server.enqueue('anthropic', {
      payloads: [],
      status: 400,
      errorBody: { type: 'error', error: { type: 'invalid_request_error', message: 'bad tool schema' } },
    });
    const { events, summary } = await runTurn(server, 'anthropic', buildRuntime());
    expect(summary.stopReason).toBe('error');
    expect(events[0]).toMatchObject({ type: 'error', code: 'provider_error', status: 400 });
    expect((events[0] as { message: string }).message).toContain('bad tool schema');
    expect(events.at(-1)).toMatchObject({ type: 'turn_completed', stopReason: 'error' });
  });

  it('PATH-1 agent mode announces the working directory in the system prompt; chat mode does not', async () => {
    server.enqueue('openai-chat', scriptStep('openai-chat', { text: 'ok' }));
    server.enqueue('openai-chat', scriptStep('openai-chat', { text: 'ok' }));
    const before = server.requests.length;
    await runTurn(
      server,
      'openai-chat',
      buildRuntime([addTool], { mode: 'agent', workingDirectory: '/srv/project' }),
    );
    await runTurn(
      server,
      'openai-chat',
      buildRuntime([addTool], { mode: 'chat', workingDirectory: '/srv/project' }),
    );
    const [agent, chat] = server.requests.slice(before).map((request) => request.body.messages as unknown[]);
    expect(agent![0]).toMatchObject({ role: 'system' });
    expect((agent![0] as { content: string }).content).toContain('Working directory: /srv/project');
    expect(JSON.stringify(chat)).not.toContain('/srv/project');
  });

  it('offers exactly the runtime enabled tools', async () => {
    server.enqueue('openai', scriptStep('openai', { text: 'ok' }));
    const before = server.requests.length;
    const runtime = buildRuntime();
    await runTurn(server, 'openai', runtime);
    const tools = server.requests[before]!.body.tools as Array<{ name: string; strict: boolean }>;
    // Exactly the runtime's enabled tools, in its order, every one strict (built-ins disabled by default are absent).
    expect(tools.map((tool) => [tool.name, tool.strict])).toEqual(
      runtime.tools.map((tool) => [tool.definition.name, true]),
    );
    expect(tools.map((tool) => tool.name)).toContain('add');
    expect(tools.map((tool) => tool.name)).not.toContain('bash');
  });
});
