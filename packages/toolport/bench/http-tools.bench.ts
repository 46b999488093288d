// `npm run bench -- http-tools`: an HTTP tool call (executeTool through the user's runtime: argument validation,
// template rendering with a secret, NET-1's checked client, result shaping and redaction) versus a plain
// `undici.request` to the same loopback upstream, interleaved in one run. Goal (issue 14): ≥ 0.8× plain undici's
// calls/s. The upstream runs in its own process so neither side pays for the server's CPU in-process.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { loadLine } from './support/bench-stats.ts';
import type * as RegistryExports from '../src/core/tool-registry.ts';
import type * as DatabaseExports from '../src/persistence/database.ts';
import type * as ServicesExports from '../src/services/toolport-services.ts';
import type * as ToolsExports from '../src/tools/index.ts';
import { executeTool } from '../src/core/execute-tool.ts';
import { InMemoryExecutionRecorder } from '../src/core/execution-recorder.ts';

const ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 8);
const CALLS_PER_ROUND = Number(process.env.BENCH_HTTP_CALLS ?? 1_000);
const WARMUP = 500;

const UPSTREAM = `
const http = require('node:http');
const body = JSON.stringify({ id: 42, name: 'item', tags: ['a', 'b'], nested: { ok: true } });
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }); res.end(body); });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.2', () => console.log(server.address().port));
`;

const upstream = spawn(process.execPath, ['-e', UPSTREAM], { stdio: ['ignore', 'pipe', 'inherit'] });
const port = Number((await once(createInterface({ input: upstream.stdout! }), 'line'))[0]);
const origin = `http://127.0.0.2:${port}`;

const directory = mkdtempSync(join(tmpdir(), 'toolport-bench-http-'));

type ServicesModule = typeof ServicesExports;
type DatabaseModule = typeof DatabaseExports;
type RegistryModule = typeof RegistryExports;
type ToolsModule = typeof ToolsExports;

/** The bench user's HTTP tool on a fresh SQLite database, built by one source tree's modules. */
async function setUp(root: string, file: string) {
  const load = <T>(path: string): Promise<T> => import(new URL(path, root).href) as Promise<T>;
  const { createToolportServices } = await load<ServicesModule>('src/services/toolport-services.ts');
  const { migrateDatabase, openDatabase } = await load<DatabaseModule>('src/persistence/database.ts');
  const { ToolRegistry } = await load<RegistryModule>('src/core/tool-registry.ts');
  const { registerBuiltinTools } = await load<ToolsModule>('src/tools/index.ts');
  const database = openDatabase(`sqlite:${join(directory, file)}`);
  await migrateDatabase(database);
  const services = createToolportServices({
    database,
    registry: registerBuiltinTools(new ToolRegistry()),
    secretKey: randomBytes(32),
    outboundAllowlist: { cidrs: ['127.0.0.2/32'] },
  });
  const { user } = await services.tokens.createUser('bench');
  const caller = { id: user.id, isAdmin: false };
  await services.secrets.set(user.id, 'BENCH_TOKEN', 'bench-token-value-123');
  await services.httpTools.create(caller, {
    name: 'get_item',
    config: {
      url: `${origin}/items/{{id}}?verbose={{verbose}}`,
      method: 'GET',
      description: 'One item',
      parameters: {
        type: 'object',
        properties: { id: { type: 'string' }, verbose: { type: 'boolean' } },
        required: ['id'],
      },
      auth: { type: 'bearer', value: '{{BENCH_TOKEN}}' },
    },
  });
  const runtime = await services.toolRuntime.getEnabledToolRuntime(user);
  return { database, services, user, runtime };
}

const { database, services, user, runtime } = await setUp(
  new URL('../', import.meta.url).href,
  'bench.sqlite',
);
// BENCH_HTTP_BASELINE=<another checkout's packages/toolport> (e.g. /work/main/packages/toolport): the same tool built
// by that tree, as a "before" subject in the same interleaved rounds.
const baselineRoot = process.env.BENCH_HTTP_BASELINE;
const before =
  baselineRoot === undefined
    ? undefined
    : await setUp(new URL(`file://${baselineRoot.replace(/\/?$/, '/')}`).href, 'baseline.sqlite');
const plainAgent = new Agent();
// The same tool and executeTool with the audit trail in memory: toolport's own cost without a SQLite insert per call
// (the database recorder is shared by every tool, built-ins included).
const entry = (await services.catalog.listExtra(user.id)).find(
  (candidate) => candidate.tool.definition.name === 'get_item',
)!;
const memoryEnvironment = {
  registry: { get: (name: string) => (name === 'get_item' ? entry.tool : undefined) },
  recorder: new InMemoryExecutionRecorder(),
  services: { secrets: services.secrets.createReader(user.id) },
};

const viaTool = async (): Promise<void> => {
  const outcome = await runtime.execute({ toolName: 'get_item', arguments: { id: '42', verbose: true } });
  if (!outcome.ok) throw new Error(outcome.error.message);
};
const viaToolMemoryAudit = async (): Promise<void> => {
  const outcome = await executeTool(
    { toolName: 'get_item', arguments: { id: '42', verbose: true }, userId: user.id },
    memoryEnvironment,
  );
  if (!outcome.ok) throw new Error(outcome.error.message);
};
const viaBaseline = async (): Promise<void> => {
  const outcome = await before!.runtime.execute({
    toolName: 'get_item',
    arguments: { id: '42', verbose: true },
  });
  if (!outcome.ok) throw new Error(outcome.error.message);
};
const viaUndici = async (): Promise<void> => {
  const response = await request(`${origin}/items/42?verbose=true`, {
    dispatcher: plainAgent,
    headers: { authorization: 'Bearer bench-token-value-123' },
  });
  await response.body.json();
};

async function measure(
  run: () => Promise<void>,
  calls: number,
): Promise<{ elapsedMs: number; latencies: number[] }> {
  const latencies: number[] = [];
  const started = performance.now();
  for (let index = 0; index < calls; index += 1) {
    const callStarted = performance.now();
    await run();
    latencies.push(performance.now() - callStarted);
  }
  return { elapsedMs: performance.now() - started, latencies };
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

await measure(viaTool, WARMUP);
await measure(viaToolMemoryAudit, WARMUP);
await measure(viaUndici, WARMUP);
if (before !== undefined) await measure(viaBaseline, WARMUP);

const subjects = {
  'HTTP tool (runtime, SQLite audit)': viaTool,
  'HTTP tool (executeTool, in-memory audit)': viaToolMemoryAudit,
  'plain undici.request': viaUndici,
  ...(before === undefined ? {} : { 'before: HTTP tool (runtime, SQLite audit)': viaBaseline }),
};
const results = new Map<string, { rates: number[]; latencies: number[] }>();
for (let round = 0; round < ROUNDS; round += 1) {
  // Alternate which goes first so drift on a shared machine does not favour one side.
  const order = Object.entries(subjects);
  if (round % 2 === 1) order.reverse();
  for (const [label, run] of order) {
    const { elapsedMs, latencies } = await measure(run, CALLS_PER_ROUND);
    const entry = results.get(label) ?? { rates: [], latencies: [] };
    entry.rates.push((CALLS_PER_ROUND / elapsedMs) * 1000);
    entry.latencies.push(...latencies);
    results.set(label, entry);
  }
}

process.stdout.write(
  `${ROUNDS} interleaved rounds × ${CALLS_PER_ROUND} sequential calls each, upstream in its own process on 127.0.0.2\n`,
);
process.stdout.write(
  '| subject | calls/s (median round) | p50 ms | p99 ms |\n| --- | ---: | ---: | ---: |\n',
);
for (const [label, { rates, latencies }] of results) {
  const sorted = [...latencies].sort((a, b) => a - b);
  process.stdout.write(
    `| ${label} | ${median(rates).toFixed(0)} | ${percentile(sorted, 0.5).toFixed(3)} | ${percentile(sorted, 0.99).toFixed(3)} |\n`,
  );
}
const plainRate = median(results.get('plain undici.request')!.rates);
for (const label of [
  'HTTP tool (runtime, SQLite audit)',
  'HTTP tool (executeTool, in-memory audit)',
  ...(before === undefined ? [] : ['before: HTTP tool (runtime, SQLite audit)']),
]) {
  const ratio = median(results.get(label)!.rates) / plainRate;
  process.stdout.write(`${label}: ${ratio.toFixed(2)}× plain undici (goal ≥ 0.80×)\n`);
}
process.stdout.write(`${loadLine()}\n`);

await services.httpTools.close();
await services.mcp.close();
await services.flush();
await database.close();
if (before !== undefined) {
  await before.services.httpTools.close();
  await before.services.mcp.close();
  await before.services.flush();
  await before.database.close();
}
await plainAgent.close();
upstream.kill();
rmSync(directory, { recursive: true, force: true });
