import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { runCli } from '../../src/cli/main.ts';
import { ToolportError } from '../../src/core/errors.ts';
import { runAgentTurn, startConversation } from '../../src/providers/agent-loop.ts';
import { createProviderAdapter } from '../../src/providers/create-provider-adapter.ts';
import type { ErrorEvent, StreamEvent } from '../../src/providers/stream-events.ts';
import { FakeProviderServer } from './fake-provider-server.ts';
import { buildRuntime, runTurn } from './loop-helpers.ts';
import { scriptStep } from './scripted-streams.ts';

/** Quirks of real peers (gateways, compatible servers, Gemini finish reasons) seen in public bug reports. */
describe('PROV-5 provider quirks', () => {
  let server: FakeProviderServer;
  beforeAll(async () => {
    server = await FakeProviderServer.start();
  });
  afterAll(() => server.close());

  function anthropicWholeInput(input: unknown, deltas: string[] = []): unknown[] {
    return [
      {
        type: 'message_start',
        message: {
          id: 'msg_gateway',
          type: 'message',
          role: 'assistant',
          model: 'test-model',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 1 },
        },
      },
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_gateway', name: 'add', input },
      },
      ...deltas.map((partial_json) => ({
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json },
      })),
      { type: 'content_block_stop', index: 0 },
      {
        type: 'message_delta',
        delta: { stop_reason: 'tool_use', stop_sequence: null },
        usage: { output_tokens: 5 },
      },
      { type: 'message_stop' },
    ];
  }

  it('Anthropic: an input given whole in content_block_start with no input_json_delta is used', async () => {
    server.enqueue('anthropic', anthropicWholeInput({ a: 2, b: 3 }));
    server.enqueue('anthropic', scriptStep('anthropic', { text: 'Five.' }));
    const before = server.requests.length;
    const { events } = await runTurn(server, 'anthropic', buildRuntime());
    expect(events.find((event) => event.type === 'tool_call_completed')).toMatchObject({
      id: 'toolu_gateway',
      arguments: '{"a":2,"b":3}',
    });
    expect(events.find((event) => event.type === 'tool_result')).toMatchObject({ result: { sum: 5 } });
    const history = server.requests[before + 1]!.body.messages as Array<{ content: unknown }>;
    expect(history[1]!.content).toEqual([
      { type: 'tool_use', id: 'toolu_gateway', name: 'add', input: { a: 2, b: 3 } },
    ]);
  });

  it('Anthropic: an empty first delta does not discard a whole input; non-empty deltas win over it', async () => {
    server.enqueue('anthropic', anthropicWholeInput({ a: 1, b: 1 }, ['']));
    server.enqueue('anthropic', scriptStep('anthropic', { text: 'Two.' }));
    const first = await runTurn(server, 'anthropic', buildRuntime());
    expect(first.events.find((event) => event.type === 'tool_result')).toMatchObject({ result: { sum: 2 } });

    server.enqueue('anthropic', anthropicWholeInput({ a: 100, b: 100 }, ['{"a":4,', '"b":4}']));
    server.enqueue('anthropic', scriptStep('anthropic', { text: 'Eight.' }));
    const second = await runTurn(server, 'anthropic', buildRuntime());
    expect(second.events.find((event) => event.type === 'tool_result')).toMatchObject({ result: { sum: 8 } });
  });

  const malformedFunctionCall = [
    {
      candidates: [
        {
          finishReason: 'MALFORMED_FUNCTION_CALL',
          finishMessage: 'Malformed function call: print(default_api.add(a=2, b=))',
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 10, totalTokenCount: 10 },
      responseId: 'gemini_malformed',
    },
  ];

  it('Gemini: MALFORMED_FUNCTION_CALL (a candidate without content) is an error event, not a silent end', async () => {
    server.enqueue('gemini', malformedFunctionCall);
    const { events, summary } = await runTurn(server, 'gemini', buildRuntime());
    expect(summary.stopReason).toBe('error');
    const error = events.find((event): event is ErrorEvent => event.type === 'error');
    expect(error).toMatchObject({
      code: 'provider_error',
      provider: 'gemini',
      error: { type: 'invalid_response', finishReason: 'MALFORMED_FUNCTION_CALL' },
    });
    expect(error!.message).toContain('MALFORMED_FUNCTION_CALL');
    expect(error!.message).toContain('print(default_api.add(a=2, b=))');
  });

  it('Gemini: toolport chat exits 1 on MALFORMED_FUNCTION_CALL and says why on stderr', async () => {
    server.enqueue('gemini', malformedFunctionCall);
    const output = { stdout: '', stderr: '' };
    const io: CliIo = {
      stdout: (text) => (output.stdout += text),
      stderr: (text) => (output.stderr += text),
      cwd: process.cwd(),
      env: { GEMINI_API_KEY: 'test-key' },
      stdoutIsTerminal: false,
    };
    const code = await runCli(
      [
        'chat',
        '--provider',
        'gemini',
        '--model',
        'test-model',
        '--base-url',
        server.baseURLFor('gemini'),
        '-p',
        'Add 2 and 3.',
      ],
      io,
    );
    expect(code).toBe(1);
    expect(output.stderr).toContain('MALFORMED_FUNCTION_CALL');
    expect(output.stdout).toBe('');
  });

  async function geminiTurnThrough(fetch: typeof globalThis.fetch): Promise<StreamEvent[]> {
    const adapter = createProviderAdapter('gemini', {
      model: 'test-model',
      apiKey: 'test-key',
      baseURL: server.baseURLFor('gemini'),
      maxRetries: 0,
      fetch,
    });
    const runtime = buildRuntime();
    const session = startConversation({ adapter, runtime });
    const events: StreamEvent[] = [];
    for await (const event of runAgentTurn({ session, runtime, userMessage: 'Add.' })) events.push(event);
    return events;
  }

  it('Gemini: the finishMessage tap wraps the adapter’s fetch (e.g. NET-1’s), never replaces it', async () => {
    server.enqueue('gemini', malformedFunctionCall);
    const seen: string[] = [];
    const events = await geminiTurnThrough(async (input, init) => {
      seen.push(String(input instanceof Request ? input.url : input));
      return globalThis.fetch(input, init);
    });
    expect(seen.some((url) => url.includes(':streamGenerateContent'))).toBe(true);
    expect(events.find((event) => event.type === 'error')).toMatchObject({
      error: { finishReason: 'MALFORMED_FUNCTION_CALL' },
    });
  });

  it('a NET-1 refusal in the cause chain is a permission_denied error naming it, not a connection error', async () => {
    const events = await geminiTurnThrough(async () => {
      throw new ToolportError('permission_denied', 'Refused to connect to 10.0.0.1: a private address.');
    });
    const error = events.find((event): event is ErrorEvent => event.type === 'error');
    expect(error).toMatchObject({
      provider: 'gemini',
      retryable: false,
      error: { type: 'permission_denied' },
    });
    expect(error!.message).toContain('Refused to connect to 10.0.0.1');
  });
});
