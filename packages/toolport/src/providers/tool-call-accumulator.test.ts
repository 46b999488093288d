import type {
  ChatCompletionChunk,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions/completions';
import { describe, expect, it, vi } from 'vitest';
import { parseChatCompletionsStream } from './openai-chat/openai-chat-stream-adapter.ts';
import type { StepOutcome } from './provider-adapter.ts';
import type { StepEvent } from './stream-events.ts';
import { ToolCallAccumulator } from './tool-call-accumulator.ts';

function chunk(toolCalls: unknown[], finishReason: string | null = null): ChatCompletionChunk {
  return {
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta: { tool_calls: toolCalls }, finish_reason: finishReason }],
  } as ChatCompletionChunk;
}

async function* iterate<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}

async function drain(
  generator: AsyncGenerator<StepEvent, StepOutcome>,
): Promise<{ events: StepEvent[]; outcome: StepOutcome }> {
  const events: StepEvent[] = [];
  for (;;) {
    const next = await generator.next();
    if (next.done === true) return { events, outcome: next.value };
    events.push(next.value);
  }
}

describe('PROV-3 tool-call stream accumulation', () => {
  it('keeps parallel calls apart when a server reuses index 0 with different ids (Ollama)', async () => {
    const history: ChatCompletionMessageParam[] = [];
    const { outcome } = await drain(
      parseChatCompletionsStream(
        iterate([
          chunk([{ index: 0, id: 'call_a', function: { name: 'get_time', arguments: '{"zone":"UTC"}' } }]),
          chunk(
            [{ index: 0, id: 'call_b', function: { name: 'add', arguments: '{"a":1,"b":2}' } }],
            'tool_calls',
          ),
        ]),
        history,
      ),
    );
    expect(outcome.toolCalls).toEqual([
      { id: 'call_a', name: 'get_time', arguments: '{"zone":"UTC"}' },
      { id: 'call_b', name: 'add', arguments: '{"a":1,"b":2}' },
    ]);
    expect(history[0]).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_a' }, { id: 'call_b' }] });
  });

  it('routes id-less fragments by index and fragments with an empty id to the call at that index', () => {
    const accumulator = new ToolCallAccumulator(() => 'generated');
    accumulator.apply({ index: 0, id: 'x', name: 'first', argumentsDelta: '{"a":' });
    accumulator.apply({ index: 1, id: 'y', name: 'second', argumentsDelta: '{' });
    accumulator.apply({ index: 0, id: '', argumentsDelta: '1}' });
    accumulator.apply({ index: 1, argumentsDelta: '}' });
    accumulator.completeAll();
    expect(accumulator.completedCalls()).toEqual([
      { id: 'x', name: 'first', arguments: '{"a":1}' },
      { id: 'y', name: 'second', arguments: '{}' },
    ]);
  });

  it('generates an id for a call that has none, and an empty argument text stays empty (read as {})', () => {
    const accumulator = new ToolCallAccumulator(() => 'generated_1');
    const events = [...accumulator.apply({ name: 'ping' }), ...accumulator.completeAll()];
    expect(events).toEqual([
      { type: 'tool_call_started', id: 'generated_1', name: 'ping' },
      { type: 'tool_call_completed', id: 'generated_1', name: 'ping', arguments: '' },
    ]);
  });

  it('accumulates a 1 MB argument in 10,000 deltas without parsing JSON per delta', async () => {
    const piece = 'x'.repeat(100);
    const deltas = Array.from({ length: 10_000 }, () => piece);
    const text = `{"content":"${deltas.join('')}"}`;
    const chunks = [
      chunk([{ index: 0, id: 'call_big', function: { name: 'write_file', arguments: '{"content":"' } }]),
      ...deltas.map((delta) => chunk([{ index: 0, function: { arguments: delta } }])),
      chunk([{ index: 0, function: { arguments: '"}' } }], 'tool_calls'),
    ];
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const { events, outcome } = await drain(parseChatCompletionsStream(iterate(chunks), []));
      // Once, at completion, so the history echoes a JSON object (issue 10 item 8): never per delta.
      expect(parse).toHaveBeenCalledTimes(1);
      expect(outcome.toolCalls[0]!.arguments).toBe(text);
      expect(events.filter((event) => event.type === 'tool_call_arguments_delta')).toHaveLength(10_002);
    } finally {
      parse.mockRestore();
    }
  });
});
