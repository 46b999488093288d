// executeTool overhead over calling the executor directly (issue: ≤ 5 µs p50 for a 5-property schema).
import { executeTool } from '../src/core/execute-tool.ts';
import { InMemoryExecutionRecorder } from '../src/core/execution-recorder.ts';
import { getDefaultToolSettings } from '../src/core/settings-policy.ts';
import { ToolRegistry } from '../src/core/tool-registry.ts';
import type { RegisteredTool, ToolContext } from '../src/core/tool-types.ts';
import { silentLogger } from '../src/core/logger.ts';
import { registerBuiltinTools } from '../src/tools/index.ts';
import { makeFivePropertyTool } from '../test/support/test-tools.ts';

const ITERATIONS = 100_000;
const WARMUP = 20_000;

function percentile(sorted: Float64Array, fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

async function measure(label: string, call: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  for (let index = 0; index < WARMUP; index += 1) await call();
  const samples = new Float64Array(ITERATIONS);
  const started = performance.now();
  for (let index = 0; index < ITERATIONS; index += 1) {
    const before = performance.now();
    await call();
    samples[index] = performance.now() - before;
  }
  const elapsedMs = performance.now() - started;
  samples.sort();
  const p50 = percentile(samples, 0.5) * 1000;
  const p99 = percentile(samples, 0.99) * 1000;
  const perSecond = Math.round(ITERATIONS / (elapsedMs / 1000));
  console.log(
    `${label.padEnd(44)} ${perSecond.toLocaleString('en-US').padStart(10)} calls/s   p50 ${p50.toFixed(2)} µs   p99 ${p99.toFixed(2)} µs`,
  );
  return { p50, p99 };
}

function directContext(tool: RegisteredTool): ToolContext {
  return {
    toolName: tool.definition.name,
    callId: 'bench',
    userId: 'bench',
    chatId: undefined,
    agentId: undefined,
    workingDirectory: undefined,
    mode: 'chat',
    signal: new AbortController().signal,
    settings: getDefaultToolSettings(tool),
    reportProgress: () => {},
    log: () => {},
    emitPartialResult: () => {},
    services: {},
    logger: silentLogger,
  };
}

const registry = registerBuiltinTools(new ToolRegistry());
const noop = makeFivePropertyTool(async () => ({ ok: true }));
registry.register(noop);
const recorder = new InMemoryExecutionRecorder(1_000);
const fiveArgs = { name: 'bench', count: 3, enabled: true, tags: ['a', 'b'], mode: 'fast' };
const datetime = registry.get('get_current_datetime')!;
const datetimeArgs = { timezone: 'America/Sao_Paulo', locale: 'pt-BR' };

console.log(
  `node ${process.version}, ${ITERATIONS.toLocaleString('en-US')} sequential calls each after ${WARMUP.toLocaleString('en-US')} warm-up calls`,
);
for (const [label, tool, args] of [
  ['no-op tool, 5-property schema', noop, fiveArgs],
  ['get_current_datetime', datetime, datetimeArgs],
] as const) {
  const context = directContext(tool);
  const direct = await measure(`${label}: executor called directly`, () => tool.execute(args, context));
  const wrapped = await measure(`${label}: executeTool`, () =>
    executeTool(
      { toolName: tool.definition.name, arguments: args, userId: 'bench', chatId: 'bench' },
      { registry, recorder },
    ),
  );
  console.log(
    `${label}: executeTool overhead p50 ${(wrapped.p50 - direct.p50).toFixed(2)} µs, p99 ${(wrapped.p99 - direct.p99).toFixed(2)} µs\n`,
  );
}

// SEC-1: a user with five secrets — every result, and its serialized text, is scanned for each secret's forms
// (raw, JSON, percent, Base64 at three alignments); the forms are computed once per secret set, not per call.
const fiveSecrets = [
  'sk-live-4f9a8b7c6d5e',
  'ghp_abcdefghijklmnop1234',
  'xoxb-1234-5678-abcdef',
  'hunter2!',
  'p@ss w0rd/é',
];
const secretServices = {
  secrets: { getSecret: async () => undefined, listSecretValues: async () => fiveSecrets },
};
const withSecrets = await measure('get_current_datetime, 5 secrets: executeTool', () =>
  executeTool(
    { toolName: 'get_current_datetime', arguments: datetimeArgs, userId: 'bench', chatId: 'bench' },
    { registry, recorder, services: secretServices },
  ),
);
const withoutSecrets = await measure('get_current_datetime, no secrets: executeTool', () =>
  executeTool(
    { toolName: 'get_current_datetime', arguments: datetimeArgs, userId: 'bench', chatId: 'bench' },
    { registry, recorder },
  ),
);
console.log(
  `redaction of 5 secrets adds p50 ${(withSecrets.p50 - withoutSecrets.p50).toFixed(2)} µs per call\n`,
);
