// WS-1 workspace scripts: per-call overhead of an empty main() in a fresh isolate (cold: created in the call; warm:
// a prepared spare), a 1 MB result, g.http round trips to a loopback server, memory per concurrent call, and what a
// child process would cost instead (the in-process vs child-process decision in docs/workspace-tools.md).
// Goals: empty call ≤ 5 ms p50 cold, ≤ 1 ms p50 warm; 50 concurrent calls with RSS growth < 50 MB × 50.
import { fork } from 'node:child_process';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSafeFetch } from '../src/net/safe-fetch.ts';
import {
  disposeSpareIsolates,
  prepareSpareIsolate,
  runIsolatedScript,
  type ScriptHostHandler,
} from '../src/workspace/isolate-script-runner.ts';
import { performScriptHttpRequest } from '../src/workspace/script-http-request.ts';
import { ScriptLogCollector } from '../src/workspace/script-log-collector.ts';

const MEMORY_MB = 64;
const noHost = async (): Promise<unknown> => null;

function p50(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
function p99(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!;
}
function report(label: string, samples: number[], goal?: string): void {
  console.log(
    `${label.padEnd(46)} p50 ${p50(samples).toFixed(3)} ms   p99 ${p99(samples).toFixed(3)} ms${goal === undefined ? '' : `   (goal ${goal})`}`,
  );
}

const run = (source: string, host: ScriptHostHandler = noHost) =>
  runIsolatedScript({
    source,
    filename: 'bench.js',
    args: { a: 1 },
    timeoutMs: 10_000,
    memoryLimitMb: MEMORY_MB,
    host,
    logs: new ScriptLogCollector(),
  });

const EMPTY = 'async function main() {}';

// Cold: no spare, the call creates its isolate and context.
const cold: number[] = [];
for (let index = 0; index < 120; index += 1) {
  // Let the previous call's refill land, then drop it: this call must create its own isolate.
  await new Promise((resolve) => setTimeout(resolve, 5));
  disposeSpareIsolates();
  const before = performance.now();
  await run(EMPTY);
  cold.push(performance.now() - before);
}
report('empty main(), cold (isolate created in the call)', cold.slice(20), '≤ 5 ms');

// Warm: a prepared spare is waiting (the steady state: one is refilled after every take).
const warm: number[] = [];
for (let index = 0; index < 520; index += 1) {
  await prepareSpareIsolate(MEMORY_MB);
  const before = performance.now();
  await run(EMPTY);
  warm.push(performance.now() - before);
}
report('empty main(), warm (prepared spare isolate)', warm.slice(20), '≤ 1 ms');

const big: number[] = [];
for (let index = 0; index < 60; index += 1) {
  await prepareSpareIsolate(MEMORY_MB);
  const before = performance.now();
  const value = (await run('async function main() { return "x".repeat(1024 * 1024); }')) as string;
  big.push(performance.now() - before);
  if (value.length !== 1024 * 1024) throw new Error('wrong result');
}
report('1 MB result (copied out as JSON)', big.slice(10));

// g.http to a loopback server through NET-1 (the allowlist lets 127.0.0.1 in).
const server = createServer((_request, response) => response.end('{"ok":true}'));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
const safeFetch = createSafeFetch({ allowlist: { cidrs: ['127.0.0.1/32'] } });
const signal = new AbortController().signal;
const httpHost = async (operation: string, payload: unknown) =>
  operation === 'http' ? performScriptHttpRequest(payload, {}, [], safeFetch.client, signal) : null;
const ROUND_TRIPS = 200;
const httpSamples: number[] = [];
for (let index = 0; index < 10; index += 1) {
  const before = performance.now();
  await run(
    `async function main() { for (let i = 0; i < ${ROUND_TRIPS}; i++) await g.http.makeHttpRequest({ url: ${JSON.stringify(url)} }); }`,
    httpHost,
  );
  httpSamples.push((performance.now() - before) / ROUND_TRIPS);
}
report(`g.http round trip to loopback (${ROUND_TRIPS} per call)`, httpSamples);

// Memory: 50 calls at once, each holding its isolate open across a g.http call.
const CONCURRENCY = 50;
global.gc?.();
const rssBefore = process.memoryUsage().rss;
let peak = rssBefore;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 5);
await Promise.all(
  Array.from({ length: CONCURRENCY }, () =>
    run(
      `async function main() { const data = new Array(10000).fill("x"); await g.http.makeHttpRequest({ url: ${JSON.stringify(url)} }); return data.length; }`,
      httpHost,
    ),
  ),
);
clearInterval(sampler);
const growthMb = (peak - rssBefore) / 1024 / 1024;
console.log(
  `${`${CONCURRENCY} concurrent calls: RSS growth`.padEnd(46)} ${growthMb.toFixed(1)} MB total, ${(growthMb / CONCURRENCY).toFixed(2)} MB per call   (goal < ${50 * CONCURRENCY} MB)`,
);
server.close();
await safeFetch.close();

// The alternative: a child process per call (spawn node, create the isolate there, answer over IPC) and the IPC
// round trip a persistent child would add to every g.http/g.secrets call.
const directory = mkdtempSync(join(tmpdir(), 'toolport-bench-child-'));
const childFile = join(directory, 'child.mjs');
writeFileSync(
  childFile,
  `import ivm from ${JSON.stringify(new URL('../../../node_modules/isolated-vm/isolated-vm.js', import.meta.url).pathname)};
process.on('message', async (message) => {
  if (message === 'ping') return process.send('pong');
  const isolate = new ivm.Isolate({ memoryLimit: 64 });
  const context = await isolate.createContext();
  await context.eval('async function main() {}; main()', { promise: true });
  isolate.dispose();
  process.send('done');
});
process.send('ready');`,
);
const perCallChild: number[] = [];
for (let index = 0; index < 12; index += 1) {
  const before = performance.now();
  const child = fork(childFile, [], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('message', resolve));
  child.send('run');
  await new Promise((resolve) => child.once('message', resolve));
  perCallChild.push(performance.now() - before);
  child.kill();
}
report('child process per call (spawn + isolate + IPC)', perCallChild.slice(2));
const persistent = fork(childFile, [], { stdio: 'ignore' });
await new Promise((resolve) => persistent.once('message', resolve));
const ipc: number[] = [];
for (let index = 0; index < 2000; index += 1) {
  const before = performance.now();
  persistent.send('ping');
  await new Promise((resolve) => persistent.once('message', resolve));
  ipc.push(performance.now() - before);
}
report('IPC round trip to a persistent child', ipc.slice(200));
persistent.kill();
rmSync(directory, { recursive: true, force: true });
disposeSpareIsolates();
