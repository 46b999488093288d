// `npm run bench -- mcp`: toolport mcp (the built dist bin) side by side with server-everything, under the same
// official SDK client: cold start to the first tools/list answer, then sequential tools/call round trips.
// Goals (issue 6): cold start ≤ 250 ms, ≥ 5,000 calls/s. "toolport echo" is the same lean stdio server with an echo
// tool (run from src/ with type stripping, so its cold start is not the product's): the like-for-like round trip.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

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
