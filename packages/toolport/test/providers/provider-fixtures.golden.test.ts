import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderName } from '../../src/providers/provider-adapter.ts';
import type { StepEvent } from '../../src/providers/stream-events.ts';
import { FakeProviderServer, parseFixtureLines } from './fake-provider-server.ts';
import { runStep } from './run-step.ts';

// Recorded by the Vercel AI SDK project (see the README beside them); copied here so CI needs nothing outside the repo.
const FIXTURES = new URL('../fixtures/provider-streams/', import.meta.url);
const FOLDERS: Record<string, ProviderName> = {
  'openai-responses': 'openai',
  'chat-completions': 'openai-chat',
  anthropic: 'anthropic',
  gemini: 'gemini',
  'gemini-interactions': 'gemini-interactions',
};

/** A recording of several consecutive Responses calls is replayed as one request per `response.created`. */
function segments(folder: string, payloads: unknown[]): unknown[][] {
  if (folder !== 'openai-responses') return [payloads];
  const result: unknown[][] = [];
  for (const payload of payloads) {
    if ((payload as { type?: string }).type === 'response.created' || result.length === 0) result.push([]);
    result.at(-1)!.push(payload);
  }
  return result;
}

interface ExpectedStep {
  text: string;
  calls: Array<[name: string, args: unknown]>;
  stopReason: string;
}

/** What each recording means, stated by hand: the file snapshots hold the full event sequences. */
const EXPECTED: Record<string, ExpectedStep[]> = {
  'anthropic/anthropic-json-other-tool.1': [
    { text: '', calls: [['weather', { location: 'San Francisco' }]], stopReason: 'tool_calls' },
  ],
  'anthropic/anthropic-json-tool.1': [
    {
      text: '',
      calls: [['json', { elements: [{ location: 'San Francisco', temperature: 58, condition: 'sunny' }] }]],
      stopReason: 'tool_calls',
    },
  ],
  'anthropic/anthropic-tool-no-args': [
    {
      text: "I'll update the issue list for you.",
      calls: [['updateIssueList', '']],
      stopReason: 'tool_calls',
    },
  ],
  'chat-completions/alibaba-tool-call': [
    { text: '', calls: [['weather', { location: 'San Francisco' }]], stopReason: 'tool_calls' },
  ],
  'chat-completions/deepseek-tool-call': [
    { text: '', calls: [['weather', { location: 'San Francisco' }]], stopReason: 'tool_calls' },
  ],
  'chat-completions/groq-tool-call': [{ text: '', calls: [['weather', {}]], stopReason: 'tool_calls' }],
  'chat-completions/mistral-incremental-tool-call': [
    { text: '', calls: [['webSearchTool', { query: 'current Berlin weather' }]], stopReason: 'tool_calls' },
  ],
  'chat-completions/mistral-tool-call': [
    { text: '', calls: [['weather', { location: 'San Francisco' }]], stopReason: 'tool_calls' },
  ],
  'chat-completions/xai-tool-call': [
    { text: '', calls: [['weather', { location: 'San Francisco' }]], stopReason: 'tool_calls' },
  ],
  'gemini/google-stream-no-args-tool-call': [
    {
      text: '',
      calls: [
        ['read_theme', ''],
        ['read_screen', { id: 'A' }],
        ['read_screen', { id: 'B' }],
        ['read_screen', { id: 'C' }],
      ],
      stopReason: 'tool_calls',
    },
  ],
  'gemini/google-stream-tool-call-arguments': [
    {
      text: '',
      calls: [
        ['getWeather', { location: 'Boston' }],
        ['getWeather', { location: 'San Francisco' }],
      ],
      stopReason: 'tool_calls',
    },
  ],
  'gemini/google-tool-call-gemini3': [
    { text: '', calls: [['weather', { location: 'San Francisco' }]], stopReason: 'tool_calls' },
  ],
  'gemini/google-tool-call': [
    { text: '', calls: [['weather', { location: 'San Francisco' }]], stopReason: 'tool_calls' },
  ],
  'gemini-interactions/tool-call-step1': [
    { text: '', calls: [['getWeather', { location: 'San Francisco' }]], stopReason: 'tool_calls' },
  ],
  'gemini-interactions/tool-call-step2': [
    {
      text: 'The weather in San Francisco right now is sunny with a temperature of 27 degrees Celsius.',
      calls: [],
      stopReason: 'end_turn',
    },
  ],
  'openai-responses/azure-tool-call.1': [
    { text: '', calls: [['weather', { location: 'San Francisco' }]], stopReason: 'tool_calls' },
  ],
  'openai-responses/lmstudio-tool-call.1': [
    {
      text: "I'll get the current weather information for San Francisco for you.",
      calls: [['weather', { location: 'San Francisco' }]],
      stopReason: 'tool_calls',
    },
  ],
  'openai-responses/lmstudio-tool-call.2': [
    {
      text: "I'll get the current weather information for San Francisco for you.",
      calls: [['weather', { location: 'San Francisco' }]],
      stopReason: 'tool_calls',
    },
  ],
  'openai-responses/openai-reasoning-encrypted-content.1': [
    { text: '', calls: [['calculator', { a: 12, b: 7, op: 'add' }]], stopReason: 'tool_calls' },
    { text: '', calls: [['calculator', { a: 19, b: 3, op: 'multiply' }]], stopReason: 'tool_calls' },
    { text: '', calls: [['calculator', { a: 57, b: 10, op: 'multiply' }]], stopReason: 'tool_calls' },
    { text: 'The final result is **570**.', calls: [], stopReason: 'end_turn' },
  ],
};

const fixtures = Object.keys(FOLDERS).flatMap((folder) =>
  readdirSync(new URL(`${folder}/`, FIXTURES))
    .filter((file) => file.endsWith('.chunks.txt'))
    .sort()
    .map((file) => ({ folder, name: `${folder}/${file.replace(/\.chunks\.txt$/, '')}`, file })),
);

/** Per call: started before its deltas, deltas concatenate to the completed arguments, completed once. */
function checkEventGrammar(events: StepEvent[]): void {
  const started = new Set<string>();
  const text = new Map<string, string>();
  const completed = new Set<string>();
  for (const event of events) {
    if (event.type === 'tool_call_started') {
      expect(started.has(event.id), `started twice: ${event.id}`).toBe(false);
      started.add(event.id);
      text.set(event.id, '');
    } else if (event.type === 'tool_call_arguments_delta') {
      expect(started.has(event.id) && !completed.has(event.id)).toBe(true);
      text.set(event.id, text.get(event.id)! + event.delta);
    } else if (event.type === 'tool_call_completed') {
      expect(started.has(event.id) && !completed.has(event.id)).toBe(true);
      expect(event.arguments).toBe(text.get(event.id));
      completed.add(event.id);
    }
  }
  expect([...completed].sort()).toEqual([...started].sort());
}

describe('PROV-3/PROV-5 recorded provider streams through the real SDKs (golden)', () => {
  let server: FakeProviderServer;
  beforeAll(async () => {
    server = await FakeProviderServer.start();
  });
  afterAll(() => server.close());

  it('covers every fixture file with a stated expectation', () => {
    expect(fixtures.map((fixture) => fixture.name).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(fixtures)('$name', async ({ folder, name, file }) => {
    const provider = FOLDERS[folder]!;
    const payloads = parseFixtureLines(readFileSync(new URL(`${folder}/${file}`, FIXTURES), 'utf8'));
    const steps = [];
    for (const [index, segment] of segments(folder, payloads).entries()) {
      server.enqueue(provider, segment);
      const { events, outcome } = await runStep(server, provider);
      checkEventGrammar(events);
      const expected = EXPECTED[name]![index]!;
      expect(outcome.text).toBe(expected.text);
      expect(outcome.stopReason).toBe(expected.stopReason);
      // Empty argument text stays '' (core reads it as {}); anything else is compared parsed.
      expect(
        outcome.toolCalls.map((call) => [
          call.name,
          call.arguments === '' ? '' : (JSON.parse(call.arguments) as unknown),
        ]),
      ).toEqual(expected.calls);
      expect(new Set(outcome.toolCalls.map((call) => call.id)).size).toBe(outcome.toolCalls.length);
      steps.push({ events, outcome });
    }
    expect(steps).toHaveLength(EXPECTED[name]!.length);
    await expect(`${JSON.stringify(steps, null, 2)}\n`).toMatchFileSnapshot(
      `./__snapshots__/golden/${name}.json`,
    );
  });
});
