// `npm run bench -- read` (build first): read_file over MCP (`toolport mcp`) against server-filesystem's
// read_text_file on a 6-byte file, the two servers' calls interleaved round by round under the same SDK client; then
// read_file of a 9.5 MiB text file against toolport's own sha256 of it (in process, interleaved). Issue 11 item 3:
// small reads ≥ 1.0× server-filesystem; the large read within 1.5× of the sha256. BENCH_READ_ROUNDS,
// BENCH_READ_CALLS (per round and server) tune it.
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { executeTool } from '../src/core/execute-tool.ts';
import { ToolRegistry } from '../src/core/tool-registry.ts';
import { sha256OfFile } from '../src/fs/hash-file.ts';
import { registerBuiltinTools } from '../src/tools/index.ts';
import {
  connectStdio,
  loadLine,
  mcpPeerEntry,
  median,
  percentile,
  ratio,
  requireBuild,
  TOOLPORT_BIN,
} from './support/bench-stats.ts';

requireBuild();
const ROUNDS = Number(process.env.BENCH_READ_ROUNDS ?? 10);
const CALLS = Number(process.env.BENCH_READ_CALLS ?? 300);

const directory = realpathSync(mkdtempSync(join(tmpdir(), 'toolport-read-bench-')));
const small = join(directory, 'small.txt');
writeFileSync(small, 'hello\n');
const large = join(directory, 'large.txt');
const line = 'export const value = computeSomething(input, options); // a typical line of source code\n';
writeFileSync(large, line.repeat(Math.floor((9.5 * 1024 * 1024) / line.length)));

interface Side {
  label: string;
  client: Client;
  tool: string;
  arguments: Record<string, unknown>;
  rates: number[];
  latencies: number[];
}

const toolport: Side = {
  label: 'toolport read_file',
  client: await connectStdio([TOOLPORT_BIN, 'mcp', '--workdir', directory]),
  tool: 'read_file',
  arguments: { path: small },
  rates: [],
  latencies: [],
};
const filesystem: Side = {
  label: 'server-filesystem read_text_file',
  client: await connectStdio([mcpPeerEntry('@modelcontextprotocol/server-filesystem'), directory]),
  tool: 'read_text_file',
  arguments: { path: small },
  rates: [],
  latencies: [],
};

async function round(side: Side, calls: number, record: boolean): Promise<void> {
  const began = performance.now();
  for (let index = 0; index < calls; index += 1) {
    const started = performance.now();
    const result = await side.client.callTool({ name: side.tool, arguments: side.arguments });
    if (result.isError === true) throw new Error(`${side.label}: ${JSON.stringify(result.content)}`);
    if (record) side.latencies.push(performance.now() - started);
  }
  if (record) side.rates.push((calls / (performance.now() - began)) * 1000);
}

process.stdout.write(`${loadLine()}\n`);
for (const side of [toolport, filesystem]) await round(side, CALLS, false);
for (let index = 0; index < ROUNDS; index += 1) {
  // Alternate which side goes first, so neither always follows the other's garbage or scheduling.
  const order = index % 2 === 0 ? [toolport, filesystem] : [filesystem, toolport];
  for (const side of order) await round(side, CALLS, true);
}
for (const side of [toolport, filesystem]) {
  process.stdout.write(
    `${side.label.padEnd(34)} 6-byte file: ${Math.round(median(side.rates)).toLocaleString('en-US')} calls/s ` +
      `(median of ${ROUNDS} rounds of ${CALLS}), p50 ${percentile(side.latencies, 0.5).toFixed(3)} ms, ` +
      `p99 ${percentile(side.latencies, 0.99).toFixed(3)} ms\n`,
  );
}
const smallRatio = median(toolport.rates) / median(filesystem.rates);
process.stdout.write(
  `small read: toolport/server-filesystem throughput ${smallRatio.toFixed(2)}× ` +
    `(goal ≥ 1.0: ${smallRatio >= 1 ? 'meets' : 'MISSES'})\n`,
);

// The large file: in process, so the figure is read_file's own work, not the JSON-RPC transfer of its window.
const registry = registerBuiltinTools(new ToolRegistry());
const readLarge = async (): Promise<void> => {
  const outcome = await executeTool(
    {
      toolName: 'read_file',
      arguments: { path: large },
      userId: 'bench',
      workingDirectory: directory,
      mode: 'agent',
    },
    { registry },
  );
  if (!outcome.ok) throw new Error(outcome.error.message);
};
const overMcp = async (): Promise<void> => {
  const result = await toolport.client.callTool({ name: 'read_file', arguments: { path: large } });
  if (result.isError === true) throw new Error(JSON.stringify(result.content));
};
const timings = { read: [] as number[], mcp: [] as number[], sha256: [] as number[] };
await readLarge();
await sha256OfFile(large);
for (let index = 0; index < ROUNDS * 2; index += 1) {
  let started = performance.now();
  await readLarge();
  timings.read.push(performance.now() - started);
  started = performance.now();
  await sha256OfFile(large);
  timings.sha256.push(performance.now() - started);
  started = performance.now();
  await overMcp();
  timings.mcp.push(performance.now() - started);
}
const largeRatio = median(timings.read) / median(timings.sha256);
process.stdout.write(
  `9.5 MiB file: read_file ${median(timings.read).toFixed(1)} ms in process (${median(timings.mcp).toFixed(1)} ms ` +
    `over MCP) | sha256OfFile ${median(timings.sha256).toFixed(1)} ms | ratio ${ratio(median(timings.read), median(timings.sha256))} ` +
    `(goal ≤ 1.5: ${largeRatio <= 1.5 ? 'meets' : 'MISSES'})\n`,
);

await toolport.client.close();
await filesystem.client.close();
rmSync(directory, { recursive: true, force: true });
