// `npm run bench -- sqlite`: better-sqlite3 vs the built-in node:sqlite with toolport's pragmas (WAL,
// synchronous=NORMAL): user_tool_settings-shaped upserts/s, one per statement (autocommit, as the API does them),
// and reads of one user's rows. The choice and the numbers are in docs/server.md.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite from 'better-sqlite3';

interface Statement {
  run(...values: unknown[]): unknown;
  all(...values: unknown[]): unknown[];
}
interface Connection {
  exec(sql: string): void;
  prepare(sql: string): Statement;
  close(): void;
}

const N = Number(process.env.BENCH_SQLITE_OPERATIONS ?? 20_000);

function measure(label: string, open: (path: string) => Connection, synchronous: string): void {
  const directory = mkdtempSync(join(tmpdir(), 'toolport-sqlite-bench-'));
  const connection = open(join(directory, 'bench.db'));
  try {
    connection.exec(
      `pragma journal_mode = wal; pragma synchronous = ${synchronous};
       create table s (user_id text, tool_name text, enabled integer, parameters text, updated_at text,
                       primary key (user_id, tool_name))`,
    );
    const upsert = connection.prepare(
      `insert into s values (?, ?, ?, ?, ?) on conflict (user_id, tool_name) do update set
       enabled = excluded.enabled, parameters = excluded.parameters, updated_at = excluded.updated_at`,
    );
    const select = connection.prepare('select * from s where user_id = ?');
    let start = performance.now();
    for (let index = 0; index < N; index += 1) {
      upsert.run(
        `u${index % 50}`,
        `tool${index % 40}`,
        1,
        JSON.stringify({ maxResults: index }),
        new Date().toISOString(),
      );
    }
    const upserts = N / ((performance.now() - start) / 1000);
    start = performance.now();
    for (let index = 0; index < N; index += 1) select.all(`u${index % 50}`);
    const reads = N / ((performance.now() - start) / 1000);
    process.stdout.write(
      `${label.padEnd(16)} synchronous=${synchronous.padEnd(6)} ${Math.round(upserts).toString().padStart(7)} upserts/s  ` +
        `${Math.round(reads).toString().padStart(7)} reads of 40 rows/s\n`,
    );
  } finally {
    connection.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

const { DatabaseSync } = await import('node:sqlite');
for (const synchronous of ['NORMAL', 'FULL']) {
  measure('better-sqlite3', (path) => new BetterSqlite(path) as unknown as Connection, synchronous);
  measure('node:sqlite', (path) => new DatabaseSync(path) as unknown as Connection, synchronous);
}
