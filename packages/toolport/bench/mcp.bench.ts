// `npm run bench -- mcp`: toolport mcp (the built dist bin) side by side with server-everything, under the same
// official SDK client: cold start to the first tools/list answer, then sequential tools/call round trips.
// Goals (issue 6): cold start ≤ 250 ms, ≥ 5,000 calls/s. "toolport echo" is the same lean stdio server with an echo
// tool (run from src/ with type stripping, so its cold start is not the product's): the like-for-like round trip.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { loadLine, median } from './support/bench-stats.ts';

const BIN = fileURLToPath(new URL('../bin/toolport.js', import.meta.url));
const EVERYTHING = fileURLToPath(
  import.meta
    .resolve('@modelcontextprotocol/server-everything/package.json')
    .replace(/package\.json$/, 'dist/index.js'),
);
if (!existsSync(fileURLToPath(new URL('../dist/cli/mcp-command.js', import.meta.url)))) {
  process.stderr.write('dist/ is missing: run `npm run build` first.\n');
  process.exit(1);
}

const COLD_STARTS = Number(process.env.BENCH_MCP_COLD_STARTS ?? 10);
const CALLS = Number(process.env.BENCH_MCP_CALLS ?? 5_000);
const WARMUP_CALLS = 500;

interface Subject {
  label: string;
  args: string[];
  tool: string;
  arguments: Record<string, unknown>;
}

const subjects: Subject[] = [
  { label: 'toolport mcp', args: [BIN, 'mcp'], tool: 'get_current_datetime', arguments: { timezone: 'UTC' } },
  {
    label: 'toolport echo',
    args: [fileURLToPath(new URL('./mcp-echo-server.ts', import.meta.url))],
    tool: 'echo',
    arguments: { message: 'hi' },
  },
  { label: 'server-everything', args: [EVERYTHING], tool: 'echo', arguments: { message: 'hi' } },
];

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

async function connect(subject: Subject): Promise<{ client: Client; startMs: number }> {
  const client = new Client({ name: 'toolport-bench', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: subject.args,
    stderr: 'ignore',
  });
  const started = performance.now();
  await client.connect(transport);
  await client.listTools();
  return { client, startMs: performance.now() - started };
}

const rows: string[] = [];
for (const subject of subjects) {
  const starts: number[] = [];
  for (let run = 0; run < COLD_STARTS; run += 1) {
    const { client, startMs } = await connect(subject);
    starts.push(startMs);
    await client.close();
  }
  starts.sort((a, b) => a - b);

  const { client } = await connect(subject);
  const call = () => client.callTool({ name: subject.tool, arguments: subject.arguments });
  for (let index = 0; index < WARMUP_CALLS; index += 1) await call();
  const latencies: number[] = [];
  const began = performance.now();
  for (let index = 0; index < CALLS; index += 1) {
    const callStarted = performance.now();
    await call();
    latencies.push(performance.now() - callStarted);
  }
  const elapsedMs = performance.now() - began;
  await client.close();
  latencies.sort((a, b) => a - b);
  rows.push(
    [
      subject.label.padEnd(18),
      `cold start median ${percentile(starts, 0.5).toFixed(0)} ms (min ${starts[0]!.toFixed(0)}, max ${starts.at(-1)!.toFixed(0)})`,
      `${Math.round((CALLS / elapsedMs) * 1000).toLocaleString('en-US')} calls/s`,
      `p50 ${percentile(latencies, 0.5).toFixed(3)} ms`,
      `p99 ${percentile(latencies, 0.99).toFixed(3)} ms`,
      `(${subject.tool})`,
    ].join('  '),
  );
}
process.stdout.write(
  `cold start = spawn to the first tools/list answer (${COLD_STARTS} runs); ${CALLS} sequential tools/call after ${WARMUP_CALLS} warm-up\n`,
);
for (const row of rows) process.stdout.write(`${row}\n`);

// Issue 11 item 5: 8 calls in flight, toolport's get_current_datetime against server-everything's echo, rounds
// interleaved so the machine's load hits both alike. BENCH_MCP_ROUNDS, BENCH_MCP_CONCURRENT_CALLS tune it.
const ROUNDS = Number(process.env.BENCH_MCP_ROUNDS ?? 10);
const CONCURRENT_CALLS = Number(process.env.BENCH_MCP_CONCURRENT_CALLS ?? 2_000);
const IN_FLIGHT = 8;
const concurrent = [subjects[0]!, subjects[2]!].map((subject) => ({ subject, rates: [] as number[] }));
const connected = await Promise.all(concurrent.map(async ({ subject }) => (await connect(subject)).client));
async function concurrentRound(index: number, record: boolean): Promise<void> {
  const { subject, rates } = concurrent[index]!;
  const client = connected[index]!;
  let remaining = CONCURRENT_CALLS;
  const began = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (remaining > 0) {
        remaining -= 1;
        await client.callTool({ name: subject.tool, arguments: subject.arguments });
      }
    }),
  );
  if (record) rates.push((CONCURRENT_CALLS / (performance.now() - began)) * 1000);
}
await concurrentRound(0, false);
await concurrentRound(1, false);
for (let round = 0; round < ROUNDS; round += 1) {
  for (const index of round % 2 === 0 ? [0, 1] : [1, 0]) await concurrentRound(index, true);
}
for (const client of connected) await client.close();
const [oursRate, theirsRate] = concurrent.map(({ rates }) => median(rates));
process.stdout.write(
  `${loadLine()}\n${IN_FLIGHT} in flight (${ROUNDS} interleaved rounds of ${CONCURRENT_CALLS} calls, median): ` +
    `toolport mcp get_current_datetime ${Math.round(oursRate!).toLocaleString('en-US')} calls/s | ` +
    `server-everything echo ${Math.round(theirsRate!).toLocaleString('en-US')} calls/s | ` +
    `ratio ${(oursRate! / theirsRate!).toFixed(2)} (goal ≥ 1.0: ${oursRate! >= theirsRate! ? 'meets' : 'MISSES'})\n`,
);
