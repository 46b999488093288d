// `npm run bench -- loop`: agent-loop overhead per iteration and stream-parsing throughput per adapter, against the
// local fake provider server through the real SDK clients (loopback only). Prints numbers; asserts nothing.
import { ToolRegistry } from '../src/core/tool-registry.ts';
import { createToolRuntime } from '../src/core/tool-runtime.ts';
import { runAgentTurn, startConversation } from '../src/providers/agent-loop.ts';
import { createProviderAdapter } from '../src/providers/create-provider-adapter.ts';
import { parseAnthropicStream } from '../src/providers/anthropic/anthropic-stream-adapter.ts';
import { parseGeminiInteractionsStream } from '../src/providers/gemini/gemini-interactions-stream-adapter.ts';
import { parseGeminiStream } from '../src/providers/gemini/gemini-stream-adapter.ts';
import { parseChatCompletionsStream } from '../src/providers/openai-chat/openai-chat-stream-adapter.ts';
import { parseResponsesStream } from '../src/providers/openai-responses/openai-responses-stream-adapter.ts';
import type { StepOutcome } from '../src/providers/provider-adapter.ts';
import type { StepEvent } from '../src/providers/stream-events.ts';
import { PROVIDER_NAMES, type ProviderName } from '../src/providers/provider-adapter.ts';
import { addTool } from '../test/providers/loop-helpers.ts';
import { FakeProviderServer } from '../test/providers/fake-provider-server.ts';
import { scriptStep } from '../test/providers/scripted-streams.ts';

const ITERATIONS_PER_TURN = 20;
const TURNS = 5;
const ARGUMENT_BYTES = 1024 * 1024;
const ARGUMENT_DELTAS = 10_000;
const PARSE_REPEATS = 3;

const server = await FakeProviderServer.start();
const registry = new ToolRegistry();
registry.register(addTool, { kind: 'custom', origin: 'bench' });
const runtime = createToolRuntime({ entries: registry.listEntries(), userId: 'bench' });

function adapter(provider: ProviderName) {
  return createProviderAdapter(provider, {
    model: 'bench-model',
    apiKey: 'bench-key',
    baseURL: server.baseURLFor(provider),
    maxRetries: 0,
  });
}

async function drainTurn(provider: ProviderName, iterations: number): Promise<number> {
  for (let step = 1; step < iterations; step += 1)
    server.enqueue(
      provider,
      scriptStep(provider, { toolCalls: [{ id: `call_${step}`, name: 'add', arguments: '{"a":1,"b":2}' }] }),
    );
  server.enqueue(provider, scriptStep(provider, { text: 'done' }));
  const session = startConversation({ adapter: adapter(provider), runtime });
  let completed = 0;
  for await (const event of runAgentTurn({
    session,
    runtime,
    userMessage: 'go',
    maxIterations: iterations,
  })) {
    if (event.type === 'turn_completed') completed = event.iterations;
  }
  return completed;
}

/** Loop overhead: wall time of a turn minus the fake server's own time, per model call (SDK + HTTP + loop + tool). */
async function loopOverhead(provider: ProviderName): Promise<number> {
  await drainTurn(provider, 3); // warm-up: JIT, keep-alive connection
  let wall = 0;
  let serverTime = 0;
  let iterations = 0;
  for (let turn = 0; turn < TURNS; turn += 1) {
    const serverBefore = server.serverTimeMs;
    const started = performance.now();
    iterations += await drainTurn(provider, ITERATIONS_PER_TURN);
    wall += performance.now() - started;
    serverTime += server.serverTimeMs - serverBefore;
  }
  return (wall - serverTime) / iterations;
}

function bigArguments(): string {
  const filler = 'x'.repeat(ARGUMENT_BYTES - '{"content":""}'.length);
  return `{"content":"${filler}"}`;
}

/** Gemini streams arguments as partialArgs on one JSON path; the others as text deltas. */
function bigCallPayloads(provider: ProviderName, argumentsText: string): unknown[] {
  if (provider !== 'gemini') {
    return scriptStep(provider, {
      toolCalls: [{ id: 'call_big', name: 'write_file', arguments: argumentsText }],
      argumentFragments: ARGUMENT_DELTAS,
    });
  }
  const content = (JSON.parse(argumentsText) as { content: string }).content;
  const size = Math.ceil(content.length / ARGUMENT_DELTAS);
  const chunk = (functionCall: unknown) => ({
    candidates: [{ content: { role: 'model', parts: [{ functionCall }] } }],
  });
  const payloads: unknown[] = [chunk({ name: 'write_file', willContinue: true })];
  for (let offset = 0; offset < content.length; offset += size)
    payloads.push(
      chunk({
        partialArgs: [
          { jsonPath: '$.content', stringValue: content.slice(offset, offset + size), willContinue: true },
        ],
        willContinue: true,
      }),
    );
  payloads.push(chunk({ partialArgs: [{ jsonPath: '$.content', stringValue: '' }], willContinue: true }));
  payloads.push({ ...(chunk({}) as object), usageMetadata: { promptTokenCount: 1, totalTokenCount: 2 } });
  return payloads;
}

/** MB/s of argument deltas through the real SDK (SSE parsing included), server time excluded. */
async function streamThroughput(provider: ProviderName, argumentsText: string): Promise<number> {
  const payloads = bigCallPayloads(provider, argumentsText);
  let best = Infinity;
  for (let repeat = 0; repeat < PARSE_REPEATS; repeat += 1) {
    server.enqueue(provider, payloads);
    const session = adapter(provider).createSession({ tools: [] });
    session.addUserMessage('write');
    const serverBefore = server.serverTimeMs;
    const started = performance.now();
    const generator = session.streamStep();
    let result = await generator.next();
    while (result.done !== true) result = await generator.next();
    const elapsed = performance.now() - started - (server.serverTimeMs - serverBefore);
    if (result.value.toolCalls[0]?.arguments.length !== argumentsText.length)
      throw new Error(`${provider}: the big call was not reassembled`);
    best = Math.min(best, elapsed);
  }
  return ARGUMENT_BYTES / (1024 * 1024) / (best / 1000);
}

async function* replay(payloads: readonly unknown[]): AsyncGenerator<never> {
  yield* payloads as never[];
}

/** The same payloads handed to toolport's parser directly: no SDK, no SSE, no HTTP. */
function parserFor(
  provider: ProviderName,
  payloads: readonly unknown[],
): AsyncGenerator<StepEvent, StepOutcome> {
  switch (provider) {
    case 'openai':
      return parseResponsesStream(replay(payloads), []);
    case 'openai-chat':
      return parseChatCompletionsStream(replay(payloads), []);
    case 'anthropic':
      return parseAnthropicStream(replay(payloads), []);
    case 'gemini':
      return parseGeminiStream(replay(payloads), [], new Map(), () => 'gemini_call_1');
    case 'gemini-interactions':
      return parseGeminiInteractionsStream(replay(payloads), { interactionId: undefined });
  }
}

async function parserThroughput(provider: ProviderName, argumentsText: string): Promise<number> {
  const payloads = bigCallPayloads(provider, argumentsText);
  let best = Infinity;
  for (let repeat = 0; repeat < PARSE_REPEATS; repeat += 1) {
    const started = performance.now();
    const generator = parserFor(provider, payloads);
    let result = await generator.next();
    while (result.done !== true) result = await generator.next();
    best = Math.min(best, performance.now() - started);
  }
  return ARGUMENT_BYTES / (1024 * 1024) / (best / 1000);
}

const argumentsText = bigArguments();
process.stdout.write(
  `node ${process.version}; loop: ${TURNS} turns x ${ITERATIONS_PER_TURN} model calls (one trivial tool call each); ` +
    `stream: 1 MiB of arguments in ${ARGUMENT_DELTAS} deltas, best of ${PARSE_REPEATS}\n\n`,
);
process.stdout.write(
  '| adapter | loop overhead per iteration (ms) | argument stream through SDK (MB/s) | parser alone (MB/s) |\n' +
    '|---|---|---|---|\n',
);
for (const provider of PROVIDER_NAMES) {
  const overhead = await loopOverhead(provider);
  const throughput = await streamThroughput(provider, argumentsText);
  const parser = await parserThroughput(provider, argumentsText);
  process.stdout.write(
    `| ${provider} | ${overhead.toFixed(2)} | ${throughput.toFixed(1)} | ${parser.toFixed(1)} |\n`,
  );
}
await server.close();
