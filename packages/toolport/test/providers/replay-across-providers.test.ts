import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TranscriptMessage } from '../../src/persistence/repositories/chat-message-repository.ts';
import { runAgentTurn, startConversation } from '../../src/providers/agent-loop.ts';
import type { ProviderName } from '../../src/providers/provider-adapter.ts';
import type { StreamEvent } from '../../src/providers/stream-events.ts';
import { replayTranscript } from '../../src/services/replay-transcript.ts';
import { FakeProviderServer } from './fake-provider-server.ts';
import { buildRuntime, runTurn } from './loop-helpers.ts';
import { adapterFor } from './run-step.ts';
import { scriptStep } from './scripted-streams.ts';

const KIMI_ID = 'functions.get_current_datetime:0';

/** A transcript recorded on another provider: a Kimi-style call id, used again in a later turn, and malformed arguments. */
const transcript: TranscriptMessage[] = [
  { role: 'user', content: 'What time is it?' },
  {
    role: 'assistant',
    content: '',
    toolCalls: [{ id: KIMI_ID, name: 'get_current_datetime', arguments: '{"timezone":"UTC"}' }],
  },
  {
    role: 'tool',
    toolCallId: KIMI_ID,
    toolName: 'get_current_datetime',
    content: '{"utc":"x"}',
    isError: false,
  },
  { role: 'assistant', content: 'It is noon.', toolCalls: [] },
  { role: 'user', content: 'And again, and add 2 and what?' },
  {
    role: 'assistant',
    content: '',
    toolCalls: [
      { id: KIMI_ID, name: 'get_current_datetime', arguments: '{"timezone":"UTC"}' },
      { id: 'functions.add:1', name: 'add', arguments: '{"a":2,"b":' },
    ],
  },
  {
    role: 'tool',
    toolCallId: KIMI_ID,
    toolName: 'get_current_datetime',
    content: '{"utc":"y"}',
    isError: false,
  },
  {
    role: 'tool',
    toolCallId: 'functions.add:1',
    toolName: 'add',
    content: '{"error":{"code":"validation_failed","message":"The arguments are not valid JSON"}}',
    isError: true,
  },
  { role: 'assistant', content: 'Sorry.', toolCalls: [] },
];

async function replayAndSend(
  server: FakeProviderServer,
  provider: ProviderName,
  messages: readonly TranscriptMessage[],
): Promise<Record<string, unknown>> {
  server.enqueue(provider, scriptStep(provider, { text: 'ok' }));
  const runtime = buildRuntime();
  const session = startConversation({ adapter: adapterFor(server, provider), runtime });
  replayTranscript(session, messages);
  const before = server.requests.length;
  const events: StreamEvent[] = [];
  for await (const event of runAgentTurn({ session, runtime, userMessage: 'Next.' })) events.push(event);
  expect(events.at(-1)).toMatchObject({ type: 'turn_completed', stopReason: 'end_turn' });
  return server.requests[before]!.body;
}

describe('PROV-4 replay across providers', () => {
  let server: FakeProviderServer;
  beforeAll(async () => {
    server = await FakeProviderServer.start();
  });
  afterAll(() => server.close());

  it('Anthropic: replayed ids fit ^[a-zA-Z0-9_-]+$, are unique, deterministic, and match their results', async () => {
    const first = await replayAndSend(server, 'anthropic', transcript);
    const second = await replayAndSend(server, 'anthropic', transcript);
    expect(second.messages).toEqual(first.messages);
    const messages = first.messages as Array<{ role: string; content: unknown }>;
    const uses = messages.flatMap((message) =>
      Array.isArray(message.content)
        ? (message.content as Array<Record<string, unknown>>).filter((block) => block.type === 'tool_use')
        : [],
    );
    const results = messages.flatMap((message) =>
      Array.isArray(message.content)
        ? (message.content as Array<Record<string, unknown>>).filter((block) => block.type === 'tool_result')
        : [],
    );
    const ids = uses.map((block) => block.id as string);
    expect(ids).toHaveLength(3);
    for (const id of ids) expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(new Set(ids).size).toBe(3);
    expect(results.map((block) => block.tool_use_id)).toEqual(ids);
    expect(results.map((block) => block.content)).toEqual([
      '{"utc":"x"}',
      '{"utc":"y"}',
      expect.stringContaining('validation_failed'),
    ]);
    // Malformed arguments replay as an object, never as the raw text.
    expect(uses[2]!.input).toEqual({});
  });

  it('Chat Completions: malformed arguments replay as "{}", valid ones as sent; a Kimi id is kept (it fits)', async () => {
    const body = await replayAndSend(server, 'openai-chat', transcript);
    const messages = body.messages as Array<Record<string, unknown>>;
    const calls = messages.flatMap(
      (message) => (message.tool_calls as Array<{ id: string; function: { arguments: string } }>) ?? [],
    );
    expect(calls.map((call) => call.function.arguments)).toEqual([
      '{"timezone":"UTC"}',
      '{"timezone":"UTC"}',
      '{}',
    ]);
    expect(calls[0]!.id).toBe(KIMI_ID);
    const toolIds = messages
      .filter((message) => message.role === 'tool')
      .map((message) => message.tool_call_id);
    expect(toolIds).toEqual(calls.map((call) => call.id));
  });

  it('Responses: malformed arguments replay as "{}"; an id longer than 40 characters is shortened consistently', async () => {
    const longId = `call_${'x'.repeat(60)}`;
    const body = await replayAndSend(server, 'openai', [
      { role: 'user', content: 'Add.' },
      { role: 'assistant', content: '', toolCalls: [{ id: longId, name: 'add', arguments: '{"a":' }] },
      { role: 'tool', toolCallId: longId, toolName: 'add', content: '{"error":{}}', isError: true },
      { role: 'assistant', content: 'Sorry.', toolCalls: [] },
    ]);
    const input = body.input as Array<Record<string, unknown>>;
    const call = input.find((item) => item.type === 'function_call')!;
    const output = input.find((item) => item.type === 'function_call_output')!;
    expect(call.arguments).toBe('{}');
    expect((call.call_id as string).length).toBeLessThanOrEqual(40);
    expect(output.call_id).toBe(call.call_id);
  });

  it('a stored call whose arguments are an object replays as their JSON text', async () => {
    const body = await replayAndSend(server, 'openai-chat', [
      { role: 'user', content: 'Add.' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'call_obj', name: 'add', arguments: { a: 1, b: 2 } as unknown as string }],
      },
      { role: 'tool', toolCallId: 'call_obj', toolName: 'add', content: '{"sum":3}', isError: false },
      { role: 'assistant', content: 'Three.', toolCalls: [] },
    ]);
    const messages = body.messages as Array<{ tool_calls?: Array<{ function: { arguments: string } }> }>;
    expect(messages.find((message) => message.tool_calls)!.tool_calls![0]!.function.arguments).toBe(
      '{"a":1,"b":2}',
    );
  });
});

describe('PROV-5 arguments as an object and malformed arguments in the live history', () => {
  let server: FakeProviderServer;
  beforeAll(async () => {
    server = await FakeProviderServer.start();
  });
  afterAll(() => server.close());

  it('Chat Completions: `arguments` sent as an object instead of a string runs the call', async () => {
    const base = { id: 'chatcmpl-obj', object: 'chat.completion.chunk', created: 1, model: 'test-model' };
    server.enqueue('openai-chat', [
      {
        ...base,
        choices: [
          {
            index: 0,
            delta: {
              role: 'assistant',
              tool_calls: [
                {
                  index: 0,
                  id: 'call_obj',
                  type: 'function',
                  function: { name: 'add', arguments: { a: 2, b: 3 } },
                },
              ],
            },
            finish_reason: null,
          },
        ],
      },
      { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
    ]);
    server.enqueue('openai-chat', scriptStep('openai-chat', { text: 'Five.' }));
    const before = server.requests.length;
    const { events } = await runTurn(server, 'openai-chat', buildRuntime());
    expect(events.find((event) => event.type === 'tool_call_completed')).toMatchObject({
      arguments: '{"a":2,"b":3}',
    });
    expect(events.find((event) => event.type === 'tool_result')).toMatchObject({ result: { sum: 5 } });
    const history = server.requests[before + 1]!.body.messages as Array<Record<string, unknown>>;
    expect(history[1]).toMatchObject({ tool_calls: [{ function: { arguments: '{"a":2,"b":3}' } }] });
  });

  it.each(['openai-chat', 'openai'] as const)(
    '%s: the next step echoes a malformed call with "{}" arguments, with the validation error as its result',
    async (provider) => {
      server.enqueue(
        provider,
        scriptStep(provider, { toolCalls: [{ id: 'bad', name: 'add', arguments: '{"a":2,"b":' }] }),
      );
      server.enqueue(provider, scriptStep(provider, { text: 'Sorry.' }));
      const before = server.requests.length;
      await runTurn(server, provider, buildRuntime());
      const body = server.requests[before + 1]!.body;
      const echoed =
        provider === 'openai'
          ? (body.input as Array<Record<string, unknown>>).find((item) => item.type === 'function_call')!
              .arguments
          : (body.messages as Array<{ tool_calls?: Array<{ function: { arguments: string } }> }>).find(
              (message) => message.tool_calls,
            )!.tool_calls![0]!.function.arguments;
      expect(echoed).toBe('{}');
      expect(JSON.stringify(body)).toContain('validation_failed');
    },
  );
});
