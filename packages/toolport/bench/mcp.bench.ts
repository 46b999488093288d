// `npm run bench -- mcp`: toolport mcp (the built dist bin) side by side with server-everything, under the same
// official SDK client: cold start to the first tools/list answer, then sequential tools/call round trips.
// Goals (issue 6): cold start ≤ 250 ms, ≥ 5,000 calls/s. "toolport echo" is the same lean stdio server with an echo
// tool (run from src/ with type stripping, so its cold start is not the product's): the like-for-like round trip.
// Then `/mcp` on `toolport serve` (the built bin, its own process, SQLite in a temp data dir) under the same client
// over Streamable HTTP, against `toolport mcp` in the same run. Goal (issue 10): /mcp ≥ 0.5× stdio's calls/s. The HTTP
// client's fetch is toolport's NET-1 fetch (what its own MCP client pool uses); the same subjects run on the global
// fetch too (the SDK's default), so both figures are printed.
// Issue 11: cold starts interleaved, toolport mcp ≤ 0.5× server-everything; 8 calls in flight ≥ 1.0× its echo.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { createSafeFetch } from '../src/net/safe-fetch.ts';
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
  return connectOver(
    new StdioClientTransport({ command: process.execPath, args: subject.args, stderr: 'ignore' }),
  );
}

async function connectOver(transport: Transport): Promise<{ client: Client; startMs: number }> {
  const client = new Client({ name: 'toolport-bench', version: '1.0.0' });
  const started = performance.now();
  await client.connect(transport);
  await client.listTools();
  return { client, startMs: performance.now() - started };
}

interface Measured {
  callsPerSecond: number;
  row: string;
}

/** Sequential tools/call round trips on a connected client. */
async function measureCalls(
  client: Client,
  tool: string,
  args: Record<string, unknown>,
): Promise<{ callsPerSecond: number; latencies: number[] }> {
  const call = () => client.callTool({ name: tool, arguments: args });
  for (let index = 0; index < WARMUP_CALLS; index += 1) await call();
  const latencies: number[] = [];
  const began = performance.now();
  for (let index = 0; index < CALLS; index += 1) {
    const callStarted = performance.now();
    await call();
    latencies.push(performance.now() - callStarted);
  }
  const elapsedMs = performance.now() - began;
  latencies.sort((a, b) => a - b);
  return { callsPerSecond: (CALLS / elapsedMs) * 1000, latencies };
}

function callColumns(callsPerSecond: number, latencies: number[], tool: string): string[] {
  return [
    `${Math.round(callsPerSecond).toLocaleString('en-US')} calls/s`,
    `p50 ${percentile(latencies, 0.5).toFixed(3)} ms`,
    `p99 ${percentile(latencies, 0.99).toFixed(3)} ms`,
    `(${tool})`,
  ];
}

// Cold starts interleaved run by run (the order rotating), so the machine's load hits every subject alike.
const coldStarts = new Map<string, number[]>(subjects.map((subject) => [subject.label, []]));
for (let run = 0; run < COLD_STARTS; run += 1) {
  const rotated = [...subjects.slice(run % subjects.length), ...subjects.slice(0, run % subjects.length)];
  for (const subject of rotated) {
    const { client, startMs } = await connect(subject);
    coldStarts.get(subject.label)!.push(startMs);
    await client.close();
  }
}

const measured = new Map<string, Measured>();
for (const subject of subjects) {
  const starts = coldStarts.get(subject.label)!.sort((a, b) => a - b);
  const { client } = await connect(subject);
  const { callsPerSecond, latencies } = await measureCalls(client, subject.tool, subject.arguments);
  await client.close();
  measured.set(subject.label, {
    callsPerSecond,
    row: [
      subject.label.padEnd(18),
      `cold start median ${percentile(starts, 0.5).toFixed(0)} ms (min ${starts[0]!.toFixed(0)}, max ${starts.at(-1)!.toFixed(0)})`,
      ...callColumns(callsPerSecond, latencies, subject.tool),
    ].join('  '),
  });
}

/** `toolport serve` on a free port with a fresh data dir; resolves with its URL and the admin token. */
async function startServe(
  dataDirectory: string,
  bin = BIN,
): Promise<{ child: ChildProcess; url: string; token: string }> {
  const child = spawn(
    process.execPath,
    [bin, 'serve', '--port', '0', '--data-dir', dataDirectory, '--log-level', 'warn'],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { PATH: process.env.PATH ?? '', HOME: dataDirectory },
    },
  );
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match !== null) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`toolport serve exited ${code}: ${stderr}`)));
  });
  const token = readFileSync(join(dataDirectory, 'admin-token'), 'utf8').trim();
  return { child, url, token };
}

// Issue 10 item 5: `/mcp` on `toolport serve` against `toolport mcp` over stdio, the same SDK client and tool, and the
// transport's own ceiling (a process that answers every POST with a canned result: /mcp cannot beat it), measured in
// interleaved rounds (BENCH_MCP_HTTP_ROUNDS × BENCH_MCP_HTTP_CALLS, alternating the order) so load drift hits all alike.
const HTTP_ROUNDS = Number(process.env.BENCH_MCP_HTTP_ROUNDS ?? 5);
const HTTP_CALLS = Number(process.env.BENCH_MCP_HTTP_CALLS ?? 1_000);
const FLOOR_SERVER = `
import { createServer } from 'node:http';
const server = createServer((request, response) => {
  if (request.method !== 'POST') return void response.writeHead(405).end();
  let body = '';
  request.on('data', (chunk) => (body += chunk));
  request.on('end', () => {
    const message = JSON.parse(body);
    if (message.id === undefined) return void response.writeHead(202).end();
    const result = message.method === 'initialize'
      ? { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'floor', version: '1' } }
      : message.method === 'tools/list'
        ? { tools: [] }
        : { content: [{ type: 'text', text: '{}' }] };
    const text = JSON.stringify({ jsonrpc: '2.0', id: message.id, result });
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
`;
const dataDirectory = mkdtempSync(join(tmpdir(), 'toolport-bench-mcp-http-'));
const closeAfter: Array<() => Promise<void>> = [];
const served = await startServe(dataDirectory);
// BENCH_MCP_BASELINE=<another checkout's packages/toolport, built>: its `serve` joins the rounds as "before: /mcp"
// (same client, toolport's fetch), so a change to the server side is measured against the code before it.
const baselineRoot = process.env.BENCH_MCP_BASELINE;
const baselineDirectory =
  baselineRoot === undefined ? undefined : mkdtempSync(join(tmpdir(), 'toolport-bench-mcp-base-'));
const baseline =
  baselineRoot === undefined
    ? undefined
    : await startServe(baselineDirectory!, join(baselineRoot, 'bin', 'toolport.js')).catch(
        (error: unknown) => {
          // Not started: the finally below is not reached yet, so stop the first serve here.
          served.child.kill('SIGTERM');
          rmSync(dataDirectory, { recursive: true, force: true });
          rmSync(baselineDirectory!, { recursive: true, force: true });
          throw error;
        },
      );
const floor = spawn(process.execPath, ['--input-type=module', '-e', FLOOR_SERVER], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
try {
  const floorPort = await new Promise<string>((resolve) =>
    floor.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())),
  );
  // The HTTP subjects run twice: under toolport's NET-1 fetch (`createSafeFetch().fetch`, on undici's request — what
  // toolport's own MCP client pool uses for remote servers), and under the SDK's default, the global fetch.
  const outbound = createSafeFetch({ allowlist: { cidrs: ['127.0.0.1/32'] } });
  closeAfter.push(() => outbound.close());
  const httpClient = async (url: URL, fetch: typeof globalThis.fetch | undefined, token?: string) =>
    (
      await connectOver(
        new StreamableHTTPClientTransport(url, {
          ...(token === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
          ...(fetch === undefined ? {} : { fetch }),
        }),
      )
    ).client;
  const mcpUrl = new URL('/mcp', served.url);
  const floorUrl = new URL(`http://127.0.0.1:${floorPort}/mcp`);
  const rounds = [
    {
      label: 'toolport mcp',
      detail: 'stdio',
      tool: 'get_current_datetime',
      arguments: { timezone: 'UTC' },
      client: (await connect(subjects[0]!)).client,
    },
    {
      label: 'toolport /mcp',
      detail: 'Streamable HTTP on toolport serve, toolport fetch',
      tool: 'get_current_datetime',
      arguments: { timezone: 'UTC' },
      client: await httpClient(mcpUrl, outbound.fetch, served.token),
    },
    {
      label: 'HTTP floor',
      detail: 'canned answers, same client, toolport fetch',
      tool: 'echo',
      arguments: {},
      client: await httpClient(floorUrl, outbound.fetch),
    },
    ...(baseline === undefined
      ? []
      : [
          {
            label: 'before: toolport /mcp',
            detail: `Streamable HTTP on ${baselineRoot}'s serve, toolport fetch`,
            tool: 'get_current_datetime',
            arguments: { timezone: 'UTC' },
            client: await httpClient(new URL('/mcp', baseline.url), outbound.fetch, baseline.token),
          },
        ]),
    {
      label: 'toolport /mcp, global fetch',
      detail: 'Streamable HTTP on toolport serve, global fetch',
      tool: 'get_current_datetime',
      arguments: { timezone: 'UTC' },
      client: await httpClient(mcpUrl, undefined, served.token),
    },
    {
      label: 'HTTP floor, global fetch',
      detail: 'canned answers, same client, global fetch',
      tool: 'echo',
      arguments: {},
      client: await httpClient(floorUrl, undefined),
    },
  ].map((subject) => ({ ...subject, rates: [] as number[], latencies: [] as number[] }));
  for (const subject of rounds) {
    for (let index = 0; index < WARMUP_CALLS; index += 1) {
      await subject.client.callTool({ name: subject.tool, arguments: subject.arguments });
    }
  }
  for (let round = 0; round < HTTP_ROUNDS; round += 1) {
    for (const subject of round % 2 === 0 ? rounds : [...rounds].reverse()) {
      const began = performance.now();
      for (let index = 0; index < HTTP_CALLS; index += 1) {
        const callStarted = performance.now();
        await subject.client.callTool({ name: subject.tool, arguments: subject.arguments });
        subject.latencies.push(performance.now() - callStarted);
      }
      subject.rates.push((HTTP_CALLS / (performance.now() - began)) * 1000);
    }
  }
  for (const subject of rounds) {
    await subject.client.close();
    subject.latencies.sort((a, b) => a - b);
    const rate = median(subject.rates);
    measured.set(`${subject.label} (interleaved)`, {
      callsPerSecond: rate,
      row: [
        `${subject.label} (interleaved)`.padEnd(42),
        subject.detail,
        ...callColumns(rate, subject.latencies, subject.tool),
      ].join('  '),
    });
  }
} finally {
  served.child.kill('SIGTERM');
  baseline?.child.kill('SIGTERM');
  floor.kill('SIGTERM');
  await new Promise((resolve) => served.child.once('exit', resolve));
  if (baseline !== undefined) await new Promise((resolve) => baseline.child.once('exit', resolve));
  if (baselineDirectory !== undefined) rmSync(baselineDirectory, { recursive: true, force: true });
  for (const close of closeAfter) await close();
  rmSync(dataDirectory, { recursive: true, force: true });
}

process.stdout.write(
  `cold start = spawn to the first tools/list answer (${COLD_STARTS} runs); ${CALLS} sequential tools/call after ${WARMUP_CALLS} warm-up, same SDK client\n`,
);
process.stdout.write(`${loadLine()}\n`);
for (const { row } of measured.values()) process.stdout.write(`${row}\n`);
const coldRatio = median(coldStarts.get('toolport mcp')!) / median(coldStarts.get('server-everything')!);
process.stdout.write(
  `cold start toolport mcp ÷ server-everything (interleaved, medians): ${coldRatio.toFixed(2)} ` +
    `(issue 11 goal ≤ 0.50: ${coldRatio <= 0.5 ? 'meets' : 'MISSES'})\n`,
);
const rateOf = (label: string): number => measured.get(`${label} (interleaved)`)!.callsPerSecond;
const ratio = (a: string, b: string): string => (rateOf(a) / rateOf(b)).toFixed(2);
process.stdout.write(
  `${HTTP_ROUNDS} interleaved rounds × ${HTTP_CALLS} calls (median round), HTTP clients on toolport's fetch: ` +
    `/mcp ÷ stdio calls/s: ${ratio('toolport /mcp', 'toolport mcp')} (goal ≥ 0.50: ` +
    `${rateOf('toolport /mcp') >= 0.5 * rateOf('toolport mcp') ? 'meets' : 'MISSES'}); /mcp ÷ HTTP floor: ` +
    `${ratio('toolport /mcp', 'HTTP floor')}; HTTP floor ÷ stdio: ${ratio('HTTP floor', 'toolport mcp')}\n` +
    `the same on the global fetch (the SDK's default): /mcp ÷ stdio ${ratio('toolport /mcp, global fetch', 'toolport mcp')}; ` +
    `/mcp ÷ HTTP floor ${ratio('toolport /mcp, global fetch', 'HTTP floor, global fetch')}; HTTP floor ÷ stdio ` +
    `${ratio('HTTP floor, global fetch', 'toolport mcp')}; toolport fetch ÷ global fetch on /mcp ` +
    `${ratio('toolport /mcp', 'toolport /mcp, global fetch')}\n` +
    (baseline === undefined
      ? ''
      : `server before → after (same client): /mcp ÷ before ${ratio('toolport /mcp', 'before: toolport /mcp')}; ` +
        `before /mcp ÷ stdio ${ratio('before: toolport /mcp', 'toolport mcp')}\n`) +
    `${loadLine()}\n`,
);
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
