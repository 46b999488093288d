import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_NAMES } from '../../src/providers/provider-adapter.ts';
import { FakeProviderServer } from './fake-provider-server.ts';
import { buildRuntime, runTurn, toolResultsIn } from './loop-helpers.ts';
import { scriptStep } from './scripted-streams.ts';

// The same multi-step turn on every wire format (STYLE: one behavioural suite run against every implementation).
describe.each(PROVIDER_NAMES)('PROV-4 scripted turn with two parallel tool calls on %s', (provider) => {
  let server: FakeProviderServer;
  beforeAll(async () => {
    server = await FakeProviderServer.start();
  });
  afterAll(() => server.close());

  it('runs both calls, sends both results back in call order in the provider format, then ends with text', async () => {
    server.enqueue(
      provider,
      scriptStep(provider, {
        text: 'Let me check.',
        toolCalls: [
          { id: 'call_time', name: 'get_current_datetime', arguments: '{"timezone":"UTC","locale":"en-US"}' },
          { id: 'call_add', name: 'add', arguments: '{"a":2,"b":3}' },
        ],
      }),
    );
    server.enqueue(provider, scriptStep(provider, { text: 'The sum is 5.' }));
    const before = server.requests.length;

    const { events, summary } = await runTurn(server, provider, buildRuntime());

    expect(summary).toMatchObject({
      stopReason: 'end_turn',
      iterations: 2,
      text: 'Let me check.The sum is 5.',
    });
    expect(events.at(-1)).toMatchObject({ type: 'turn_completed', stopReason: 'end_turn', iterations: 2 });
    expect(summary.usage.totalTokens).toBe(30);
    const completed = events.filter((event) => event.type === 'tool_call_completed');
    expect(completed.map((event) => event.name)).toEqual(['get_current_datetime', 'add']);
    const results = events.filter((event) => event.type === 'tool_result');
    expect(results).toHaveLength(2);
    const addResult = results.find((event) => event.name === 'add');
    expect(addResult).toMatchObject({ result: { sum: 5 }, output: '{"sum":5}' });
    expect(results.find((event) => event.name === 'get_current_datetime')).toMatchObject({
      result: { timezone: 'UTC' },
    });
    // Result ids are the call ids (Gemini's are generated: it sent none).
    expect(results.map((event) => event.id).sort()).toEqual(completed.map((event) => event.id).sort());

    const requests = server.requests.slice(before);
    expect(requests).toHaveLength(2);
    expect(toolResultsIn(provider, requests[0]!.body)).toEqual([]);
    const fedBack = toolResultsIn(provider, requests[1]!.body);
    const expectedKeys = provider === 'gemini' ? ['get_current_datetime', 'add'] : ['call_time', 'call_add'];
    expect(fedBack.map(([key]) => key)).toEqual(expectedKeys);
    expect(fedBack[1]![1]).toBe('{"sum":5}');
    expect(JSON.parse(fedBack[0]![1]) as unknown).toMatchObject({ timezone: 'UTC' });
  });
});

describe('PROV-4 provider history in the second request', () => {
  let server: FakeProviderServer;
  beforeAll(async () => {
    server = await FakeProviderServer.start();
  });
  afterAll(() => server.close());

  async function secondRequest(provider: (typeof PROVIDER_NAMES)[number]): Promise<Record<string, unknown>> {
    server.enqueue(
      provider,
      scriptStep(provider, { toolCalls: [{ id: 'call_1', name: 'add', arguments: '{"a":1,"b":1}' }] }),
    );
    server.enqueue(provider, scriptStep(provider, { text: 'Two.' }));
    const before = server.requests.length;
    await runTurn(server, provider, buildRuntime());
    return server.requests[before + 1]!.body;
  }

  it('Responses echoes the function_call item before its function_call_output', async () => {
    const input = (await secondRequest('openai')).input as Array<Record<string, unknown>>;
    expect(input.map((item) => item.type ?? item.role)).toEqual([
      'user',
      'function_call',
      'function_call_output',
    ]);
    expect(input[1]).toMatchObject({ call_id: 'call_1', name: 'add' });
  });

  it('Chat Completions sends the assistant tool_calls then role tool with tool_call_id', async () => {
    const messages = (await secondRequest('openai-chat')).messages as Array<Record<string, unknown>>;
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(messages[1]).toMatchObject({
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'add', arguments: '{"a":1,"b":1}' } }],
    });
    expect(messages[2]).toMatchObject({ tool_call_id: 'call_1', content: '{"sum":2}' });
  });

  it('Anthropic sends the tool_use block then a user tool_result block', async () => {
    const messages = (await secondRequest('anthropic')).messages as Array<{ role: string; content: unknown }>;
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[1]!.content).toEqual([
      { type: 'tool_use', id: 'call_1', name: 'add', input: { a: 1, b: 1 } },
    ]);
    expect(messages[2]!.content).toEqual([
      { type: 'tool_result', tool_use_id: 'call_1', content: '{"sum":2}' },
    ]);
  });

  it('Gemini echoes the functionCall part with its thought signature, then a functionResponse', async () => {
    const contents = (await secondRequest('gemini')).contents as Array<{ role: string; parts: unknown[] }>;
    expect(contents.map((content) => content.role)).toEqual(['user', 'model', 'user']);
    expect(contents[1]!.parts).toEqual([
      { functionCall: { name: 'add', args: { a: 1, b: 1 } }, thoughtSignature: 'c2lnbmF0dXJl' },
    ]);
    expect(contents[2]!.parts).toEqual([
      { functionResponse: { name: 'add', response: { output: '{"sum":2}' } } },
    ]);
  });

  it('Gemini Interactions continues the interaction with function_result steps', async () => {
    const body = await secondRequest('gemini-interactions');
    expect(body.previous_interaction_id).toMatch(/^v1_interaction_/);
    expect(body.input).toEqual([
      { type: 'function_result', call_id: 'call_1', name: 'add', result: '{"sum":2}' },
    ]);
  });
});
