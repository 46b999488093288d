// `npm run bench -- api`: HTTP load on GET and PUT /api/settings/tools with autocannon, on SQLite and PostgreSQL.
// The server runs in its own process (bench/support/api-bench-server.ts); this process only generates load.
// Prints requests/s and latency percentiles. PostgreSQL uses a throwaway database on 127.0.0.1:5432 (or
// TOOLPORT_BENCH_POSTGRES_URL, an admin URL) and is skipped when no server answers. BENCH_DURATION_SECONDS (default 5)
// and BENCH_CONNECTIONS (default 20) tune the run.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import pg from 'pg';

const durationSeconds = Number(process.env.BENCH_DURATION_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);
const adminUrl = process.env.TOOLPORT_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TOOL_COUNT = 20;

async function runLoad(url: string, token: string, method: 'GET' | 'PUT'): Promise<autocannon.Result> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  let counter = 0;
  return autocannon({
    url,
    connections,
    duration: durationSeconds,
    requests: [
      method === 'GET'
        ? { method: 'GET', path: '/api/settings/tools', headers }
        : {
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
          },
    ],
  });
}

async function benchEngine(label: string, databaseUrl: string): Promise<void> {
  const server = spawn(
    process.execPath,
    [new URL('./support/api-bench-server.ts', import.meta.url).pathname, databaseUrl],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  try {
    const lines = createInterface({ input: server.stdout });
    const [line] = (await once(lines, 'line')) as [string];
    const { url, token } = JSON.parse(line) as { url: string; token: string };
    for (const method of ['GET', 'PUT'] as const) {
      const result = await runLoad(url, token, method);
      const failures = result.errors + result.timeouts + result.non2xx;
      process.stdout.write(
        `${label.padEnd(10)} ${method.padEnd(3)} /api/settings/tools${method === 'PUT' ? '/:name' : '      '}  ` +
          `${Math.round(result.requests.average).toString().padStart(6)} req/s  ` +
          `p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  max ${result.latency.max} ms  ` +
          `(${result.requests.total} requests, ${failures} failed)\n`,
      );
    }
  } finally {
    server.kill('SIGTERM');
    await once(server, 'exit');
  }
}

process.stdout.write(
  `node ${process.version}, ${connections} connections, ${durationSeconds} s per run, ${TOOL_COUNT + 1} tools\n`,
);

const directory = mkdtempSync(join(tmpdir(), 'toolport-bench-'));
try {
  await benchEngine('sqlite', `sqlite:${join(directory, 'bench.db')}`);
} finally {
  rmSync(directory, { recursive: true, force: true });
}

const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 });
let reachable = true;
try {
  await admin.connect();
} catch {
  reachable = false;
}
if (!reachable) {
  process.stdout.write(`postgres   skipped: no server at ${adminUrl}\n`);
} else {
  const name = `toolport_bench_${process.pid}`;
  await admin.query(`create database ${name}`);
  try {
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    await benchEngine('postgres', url.toString());
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}
