// `npm run bench -- api`: HTTP load with autocannon on `GET /api/settings/tools`, `POST
// /api/tools/get_current_datetime/execute` and `PUT /api/settings/tools/:name`, on SQLite and PostgreSQL, beside a
// bare Fastify route (the anchor), interleaved round by round in one run. Every server runs in its own process
// (bench/support/api-bench-server.ts, bench/support/bare-fastify-server.ts); this process only generates load, so
// autocannon and the server share the machine's cores. Goals (issue 11 item 2): GET ≥ 12,000 and execute ≥ 6,000
// req/s on SQLite at 10 connections, and ≥ 0.7× those figures on PostgreSQL (8,400 and 4,200 req/s); the ratio to the
// SQLite rates measured in the same run is printed too (a cached SQLite GET makes no round trip at all). PostgreSQL uses a throwaway database on
// 127.0.0.1:5432 (or TOOLPORT_BENCH_POSTGRES_URL, an admin URL) and is skipped when no server answers.
// BENCH_DURATION_SECONDS (default 3), BENCH_ROUNDS (default 3) and BENCH_CONNECTIONS (default 10) tune the run.
// BENCH_API_BASELINE=<another checkout's packages/toolport> (e.g. /work/main/packages/toolport) adds that tree's
// server as "before" subjects (GET and execute) in the same interleaved rounds. BENCH_API_LOG_LEVEL=info makes the
// toolport servers log every request (to a sink), as `toolport serve` does at its default level.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import pg from 'pg';
import { loadLine, median } from './support/bench-stats.ts';

const durationSeconds = Number(process.env.BENCH_DURATION_SECONDS ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const adminUrl = process.env.TOOLPORT_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TOOL_COUNT = 20;
/** The bare Fastify route's rate on the machine issue 11's goals were set on. */
const ISSUE_BARE_RATE = 65_000;

type Route = 'bare' | 'GET' | 'execute' | 'PUT';

interface Server {
  child: ChildProcess;
  url: string;
  token: string;
}

const baseline = process.env.BENCH_API_BASELINE;

async function startServer(script: string, args: string[]): Promise<Server> {
  const path = script.startsWith('/') ? script : new URL(script, import.meta.url).pathname;
  const child = spawn(process.execPath, [path, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // A server that dies before it is ready (a broken checkout) must fail the run, not hang it.
  const [line] = (await Promise.race([
    once(createInterface({ input: child.stdout! }), 'line'),
    once(child, 'exit').then(([code]) => Promise.reject(new Error(`${path} exited ${String(code)}`))),
  ])) as [string];
  const { url, token } = JSON.parse(line) as { url: string; token?: string };
  return { child, url, token: token ?? '' };
}

async function stopServer(server: Server): Promise<void> {
  server.child.kill('SIGTERM');
  if (server.child.exitCode === null) await once(server.child, 'exit');
}

function requestFor(route: Route, token: string): autocannon.Request {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  switch (route) {
    case 'bare':
      return { method: 'GET', path: '/bare' };
    case 'GET':
      return { method: 'GET', path: '/api/settings/tools', headers };
    case 'execute':
      return {
        method: 'POST',
        path: '/api/tools/get_current_datetime/execute',
        headers,
        body: JSON.stringify({ args: { timezone: 'UTC' } }),
      };
    case 'PUT': {
      let counter = 0;
      return {
        method: 'PUT',
        headers,
        setupRequest: (request) => {
          counter += 1;
          return {
            ...request,
            path: `/api/settings/tools/bench_${counter % TOOL_COUNT}`,
            body: JSON.stringify({
              enabled: counter % 3 !== 0,
              parameters: { maxResults: 1 + (counter % 5000) },
            }),
          };
        },
      };
    }
  }
}

interface Subject {
  label: string;
  route: Route;
  server: Server;
  rates: number[];
  p50: number[];
  p99: number[];
  failures: number;
}

async function load(subject: Subject, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url: subject.server.url,
    connections,
    duration: seconds,
    requests: [requestFor(subject.route, subject.server.token)],
  });
}

const directory = mkdtempSync(join(tmpdir(), 'toolport-bench-'));
const servers: Server[] = [];
const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 });
const postgresDatabases: string[] = [];
const postgresUrl = async (suffix: string): Promise<string> => {
  const name = `toolport_bench_${process.pid}_${suffix}`;
  await admin.query(`create database ${name}`);
  postgresDatabases.push(name);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
};
try {
  const bare = await startServer('./support/bare-fastify-server.ts', []);
  servers.push(bare);
  const sqlite = await startServer('./support/api-bench-server.ts', [
    `sqlite:${join(directory, 'bench.db')}`,
  ]);
  servers.push(sqlite);
  let postgres: Server | undefined;
  try {
    await admin.connect();
    postgres = await startServer('./support/api-bench-server.ts', [await postgresUrl('after')]);
    servers.push(postgres);
  } catch (error) {
    process.stdout.write(`postgres skipped: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  const before: Array<{ label: string; server: Server }> = [];
  if (baseline !== undefined) {
    const script = join(baseline, 'bench/support/api-bench-server.ts');
    const server = await startServer(script, [`sqlite:${join(directory, 'baseline.db')}`]);
    servers.push(server);
    before.push({ label: 'before: sqlite', server });
    if (postgres !== undefined) {
      const pgServer = await startServer(script, [await postgresUrl('before')]);
      servers.push(pgServer);
      before.push({ label: 'before: postgres', server: pgServer });
    }
  }

  const subject = (label: string, route: Route, server: Server): Subject => ({
    label,
    route,
    server,
    rates: [],
    p50: [],
    p99: [],
    failures: 0,
  });
  const subjects: Subject[] = [
    subject('bare Fastify route', 'bare', bare),
    subject('sqlite GET /api/settings/tools', 'GET', sqlite),
    subject('sqlite POST …/get_current_datetime/execute', 'execute', sqlite),
    subject('sqlite PUT /api/settings/tools/:name', 'PUT', sqlite),
    ...(postgres === undefined
      ? []
      : [
          subject('postgres GET /api/settings/tools', 'GET', postgres),
          subject('postgres POST …/get_current_datetime/execute', 'execute', postgres),
          subject('postgres PUT /api/settings/tools/:name', 'PUT', postgres),
        ]),
    ...before.flatMap(({ label, server }) => [
      subject(`${label} GET /api/settings/tools`, 'GET', server),
      subject(`${label} POST …/get_current_datetime/execute`, 'execute', server),
    ]),
  ];

  process.stdout.write(
    `node ${process.version}, ${connections} connections, ${rounds} interleaved rounds of ${durationSeconds} s per subject, ` +
      `${TOOL_COUNT + 1}+ tools; ${loadLine()}\n`,
  );
  for (const each of subjects) await load(each, 1); // warm-up: JIT, statement caches, the user's caches
  for (let round = 0; round < rounds; round += 1) {
    // Alternate the order so drift on a shared machine does not favour one subject.
    for (const each of round % 2 === 0 ? subjects : [...subjects].reverse()) {
      const result = await load(each, durationSeconds);
      each.rates.push(result.requests.average);
      each.p50.push(result.latency.p50);
      each.p99.push(result.latency.p99);
      each.failures += result.errors + result.timeouts + result.non2xx;
    }
  }

  process.stdout.write(
    '| subject | req/s (median) | p50 ms | p99 ms | failed | ÷ bare |\n|---|---:|---:|---:|---:|---:|\n',
  );
  const rateOf = (label: string): number | undefined => {
    const found = subjects.find((each) => each.label === label);
    return found === undefined ? undefined : median(found.rates);
  };
  const bareRate = rateOf('bare Fastify route')!;
  for (const each of subjects) {
    const rate = median(each.rates);
    process.stdout.write(
      `| ${each.label} | ${Math.round(rate).toLocaleString('en-US')} | ${median(each.p50)} | ${median(each.p99)} | ` +
        `${each.failures} | ${(rate / bareRate).toFixed(2)} |\n`,
    );
  }
  const verdict = (ok: boolean) => (ok ? 'meets' : 'MISSES');
  const sqliteGet = rateOf('sqlite GET /api/settings/tools')!;
  const sqliteExecute = rateOf('sqlite POST …/get_current_datetime/execute')!;
  process.stdout.write(
    `sqlite GET ${Math.round(sqliteGet)} req/s (goal ≥ 12,000: ${verdict(sqliteGet >= 12_000)}); ` +
      `sqlite execute ${Math.round(sqliteExecute)} req/s (goal ≥ 6,000: ${verdict(sqliteExecute >= 6_000)})\n`,
  );
  const postgresGet = rateOf('postgres GET /api/settings/tools');
  const postgresExecute = rateOf('postgres POST …/get_current_datetime/execute');
  if (postgresGet !== undefined && postgresExecute !== undefined) {
    process.stdout.write(
      `postgres GET ${Math.round(postgresGet)} req/s (goal ≥ 0.7 × 12,000 = 8,400: ${verdict(postgresGet >= 8_400)}); ` +
        `postgres execute ${Math.round(postgresExecute)} req/s (goal ≥ 0.7 × 6,000 = 4,200: ` +
        `${verdict(postgresExecute >= 4_200)})\n` +
        `postgres ÷ sqlite in this run: GET ${(postgresGet / sqliteGet).toFixed(2)}, execute ` +
        `${(postgresExecute / sqliteExecute).toFixed(2)}\n`,
    );
  }
  // The issue set its goals on a machine where the bare route served 65,000 req/s. The same goals as shares of the
  // anchor carry to a slower or faster machine; both verdicts are printed, the absolute one first.
  const share = (rate: number | undefined, goal: number): string =>
    rate === undefined
      ? ''
      : `${(rate / bareRate).toFixed(3)} (goal ≥ ${(goal / ISSUE_BARE_RATE).toFixed(3)}: ${verdict(rate / bareRate >= goal / ISSUE_BARE_RATE)})`;
  process.stdout.write(
    `÷ bare route, against the issue's goals ÷ its 65,000: sqlite GET ${share(sqliteGet, 12_000)}, execute ` +
      `${share(sqliteExecute, 6_000)}` +
      (postgresGet === undefined
        ? '\n'
        : `; postgres GET ${share(postgresGet, 8_400)}, execute ${share(postgresExecute, 4_200)}\n`),
  );
  for (const { label } of before) {
    for (const route of ['GET /api/settings/tools', 'POST …/get_current_datetime/execute']) {
      const after = rateOf(`${label.replace('before: ', '')} ${route}`);
      const was = rateOf(`${label} ${route}`);
      if (after !== undefined && was !== undefined) {
        process.stdout.write(
          `${label.replace('before: ', '')} ${route}: ${(after / was).toFixed(2)}× before\n`,
        );
      }
    }
  }
  process.stdout.write(`${loadLine()}\n`);
} finally {
  for (const server of servers) await stopServer(server);
  rmSync(directory, { recursive: true, force: true });
  for (const name of postgresDatabases) await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end().catch(() => {});
}
