import type { ProviderName } from '../../src/providers/provider-adapter.ts';

/** One scripted model step: optional text, then tool calls (arguments as JSON text, streamed in fragments). */
export interface ScriptedStep {
  text?: string;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  /** How many fragments each call's arguments stream in (default 3; Gemini streams them as `partialArgs`). */
  argumentFragments?: number;
}

/** Splits text into `count` fragments, the way providers stream arguments. */
export function fragments(text: string, count = 3): string[] {
  if (text === '') return [];
  const size = Math.max(1, Math.ceil(text.length / count));
  const pieces: string[] = [];
  for (let offset = 0; offset < text.length; offset += size) pieces.push(text.slice(offset, offset + size));
  return pieces;
}

let sequence = 0;

function responses(step: ScriptedStep): unknown[] {
  const id = `resp_${++sequence}`;
  const events: unknown[] = [
    { type: 'response.created', response: { id, status: 'in_progress', output: [] } },
  ];
  const output: unknown[] = [];
  let outputIndex = 0;
  if (step.text !== undefined) {
    const item = {
      id: `msg_${sequence}`,
      type: 'message',
      role: 'assistant',
      status: 'in_progress',
      content: [],
    };
    events.push({ type: 'response.output_item.added', output_index: outputIndex, item });
    for (const delta of fragments(step.text))
      events.push({ type: 'response.output_text.delta', item_id: item.id, output_index: outputIndex, delta });
    const done = {
      ...item,
      status: 'completed',
      content: [{ type: 'output_text', text: step.text, annotations: [] }],
    };
    events.push({ type: 'response.output_item.done', output_index: outputIndex, item: done });
    output.push(done);
    outputIndex += 1;
  }
  for (const call of step.toolCalls ?? []) {
    const item = {
      id: `fc_${call.id}`,
      type: 'function_call',
      status: 'in_progress',
      call_id: call.id,
      name: call.name,
      arguments: '',
    };
    events.push({ type: 'response.output_item.added', output_index: outputIndex, item });
    for (const delta of fragments(call.arguments, step.argumentFragments))
      events.push({
        type: 'response.function_call_arguments.delta',
        item_id: item.id,
        output_index: outputIndex,
        delta,
      });
    events.push({
      type: 'response.function_call_arguments.done',
      item_id: item.id,
      output_index: outputIndex,
      arguments: call.arguments,
    });
    const done = { ...item, status: 'completed', arguments: call.arguments };
    events.push({ type: 'response.output_item.done', output_index: outputIndex, item: done });
    output.push(done);
    outputIndex += 1;
  }
  events.push({
    type: 'response.completed',
    response: {
      id,
      status: 'completed',
      output,
      usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
    },
  });
  return events;
}

function chatCompletions(step: ScriptedStep): unknown[] {
  const base = {
    id: `chatcmpl-${++sequence}`,
    object: 'chat.completion.chunk',
    created: 1,
    model: 'test-model',
  };
  const chunks: unknown[] = [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
  ];
  for (const delta of fragments(step.text ?? ''))
    chunks.push({ ...base, choices: [{ index: 0, delta: { content: delta }, finish_reason: null }] });
  for (const [index, call] of (step.toolCalls ?? []).entries()) {
    chunks.push({
      ...base,
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
            ],
          },
          finish_reason: null,
        },
      ],
    });
    for (const delta of fragments(call.arguments, step.argumentFragments))
      chunks.push({
        ...base,
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ index, function: { arguments: delta } }] },
            finish_reason: null,
          },
        ],
      });
  }
  const finish = (step.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop';
  chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] });
  chunks.push({ ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
  return chunks;
}

function anthropic(step: ScriptedStep): unknown[] {
  const events: unknown[] = [
    {
      type: 'message_start',
      message: {
        id: `msg_${++sequence}`,
        type: 'message',
        role: 'assistant',
        model: 'test-model',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    },
  ];
  let index = 0;
  if (step.text !== undefined) {
    events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    for (const text of fragments(step.text))
      events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
    events.push({ type: 'content_block_stop', index });
    index += 1;
  }
  for (const call of step.toolCalls ?? []) {
    events.push({
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
    });
    events.push({
      type: 'content_block_delta',
      index,
      delta: { type: 'input_json_delta', partial_json: '' },
    });
    events.push({ type: 'ping' });
    for (const partial of fragments(call.arguments, step.argumentFragments))
      events.push({
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: partial },
      });
    events.push({ type: 'content_block_stop', index });
    index += 1;
  }
  const stopReason = (step.toolCalls ?? []).length > 0 ? 'tool_use' : 'end_turn';
  events.push({
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  events.push({ type: 'message_stop' });
  return events;
}

function gemini(step: ScriptedStep): unknown[] {
  const responseId = `gemini_${++sequence}`;
  const chunks: unknown[] = [];
  for (const text of fragments(step.text ?? ''))
    chunks.push({ candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0 }], responseId });
  const calls = step.toolCalls ?? [];
  if (calls.length > 0) {
    // Gemini sends whole calls, usually without ids, the first carrying a thought signature.
    chunks.push({
      candidates: [
        {
          content: {
            role: 'model',
            parts: calls.map((call, index) => ({
              functionCall: { name: call.name, args: JSON.parse(call.arguments) as unknown },
              ...(index === 0 ? { thoughtSignature: 'c2lnbmF0dXJl' } : {}),
            })),
          },
          index: 0,
        },
      ],
      responseId,
    });
  }
  chunks.push({
    candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    responseId,
  });
  return chunks;
}

function geminiInteractions(step: ScriptedStep): unknown[] {
  const id = `v1_interaction_${++sequence}`;
  const events: unknown[] = [
    { event_type: 'interaction.created', interaction: { id, status: 'in_progress', object: 'interaction' } },
  ];
  let index = 0;
  if (step.text !== undefined) {
    events.push({ event_type: 'step.start', index, step: { type: 'model_output' } });
    for (const text of fragments(step.text))
      events.push({ event_type: 'step.delta', index, delta: { type: 'text', text } });
    events.push({ event_type: 'step.stop', index });
    index += 1;
  }
  for (const call of step.toolCalls ?? []) {
    events.push({
      event_type: 'step.start',
      index,
      step: { type: 'function_call', id: call.id, name: call.name, arguments: {} },
    });
    for (const delta of fragments(call.arguments, step.argumentFragments))
      events.push({ event_type: 'step.delta', index, delta: { type: 'arguments_delta', arguments: delta } });
    events.push({ event_type: 'step.stop', index });
    index += 1;
  }
  events.push({
    event_type: 'interaction.completed',
    interaction: {
      id,
      object: 'interaction',
      status: (step.toolCalls ?? []).length > 0 ? 'requires_action' : 'completed',
      usage: { total_input_tokens: 10, total_output_tokens: 5, total_tokens: 15 },
    },
  });
  return events;
}

/** The payloads a provider streams for `step`, in its real wire shape. */
export function scriptStep(provider: ProviderName, step: ScriptedStep): unknown[] {
  switch (provider) {
    case 'openai':
      return responses(step);
    case 'openai-chat':
      return chatCompletions(step);
    case 'anthropic':
      return anthropic(step);
    case 'gemini':
      return gemini(step);
    case 'gemini-interactions':
      return geminiInteractions(step);
  }
}
