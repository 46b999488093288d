import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolExecutionRecord } from '../../src/core/execution-recorder.ts';
import { migrateDatabase, openDatabase, type ToolportDatabase } from '../../src/persistence/database.ts';
import { createRepositories } from '../../src/persistence/repositories.ts';
import { ToolExecutionRepository } from '../../src/persistence/repositories/tool-execution-repository.ts';
import { SqliteOffThreadWriter } from '../../src/persistence/sqlite-off-thread-writer.ts';

const directories: string[] = [];
const opened: ToolportDatabase[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((database) => database.close().catch(() => {})));
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

async function freshFile(): Promise<{ path: string; database: ToolportDatabase }> {
  const directory = mkdtempSync(join(tmpdir(), 'toolport-offthread-'));
  directories.push(directory);
  const path = join(directory, 'toolport.db');
  const database = openDatabase(`sqlite:${path}`);
  opened.push(database);
  await migrateDatabase(database);
  return { path, database };
}

const record = (userId: string, index: number): ToolExecutionRecord => ({
  callId: `call-${index}`,
  toolName: 'get_item',
  userId,
  chatId: undefined,
  agentId: undefined,
  startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, index % 60)),
  durationMs: index / 10,
  outcome: 'ok',
  resultSize: index,
});

const countRows = async (database: ToolportDatabase, userId: string): Promise<number> =>
  (await database.db.selectFrom('tool_executions').select('id').where('user_id', '=', userId).execute())
    .length;

/** Issue 14 item 8: on a SQLite file the audit batches are committed by a worker thread, off the request path. */
describe('CORE-6 audit rows on a SQLite file, written off the main thread', () => {
  it('commits batches on the worker and the main connection reads every row right after flush', async () => {
    const { database } = await freshFile();
    expect(database.offThreadWriter).toBeDefined();
    const { toolExecutions } = createRepositories(database);
    for (let index = 0; index < 450; index += 1) toolExecutions.record(record('worker-user', index));
    await toolExecutions.flush();
    expect(database.offThreadWriter!.committedBatches).toBeGreaterThanOrEqual(3);
    expect(await countRows(database, 'worker-user')).toBe(450);
    const [newest] = await toolExecutions.query({ userId: 'worker-user', limit: 1 });
    expect(newest).toMatchObject({ toolName: 'get_item', outcome: 'ok' });
  });

  it('loses nothing on a clean shutdown: flush, close, and a new connection sees every row', async () => {
    const { path, database } = await freshFile();
    const { toolExecutions } = createRepositories(database);
    for (let index = 0; index < 250; index += 1) toolExecutions.record(record('shutdown-user', index));
    await toolExecutions.flush();
    await database.close();
    const reopened = openDatabase(`sqlite:${path}`);
    opened.push(reopened);
    expect(await countRows(reopened, 'shutdown-user')).toBe(250);
  });

  it('writes on the main connection when the worker cannot run (its database cannot be opened)', async () => {
    const { database } = await freshFile();
    const broken = new SqliteOffThreadWriter(join(tmpdir(), 'toolport-no-such-directory', 'nested', 'x.db'));
    const repository = new ToolExecutionRepository(database.db, undefined, broken);
    for (let index = 0; index < 30; index += 1) repository.record(record('fallback-user', index));
    await repository.flush();
    expect(broken.available).toBe(false);
    expect(broken.committedBatches).toBe(0);
    expect(await countRows(database, 'fallback-user')).toBe(30);
    await broken.close();
  });

  it('reports a batch the worker rejected as an error of that batch, not as a dead worker', async () => {
    const { path, database } = await freshFile();
    const writer = new SqliteOffThreadWriter(path);
    await expect(writer.run('insert into no_such_table (a) values (?)', [[1]])).rejects.toThrow(
      /no_such_table/,
    );
    expect(writer.available).toBe(true);
    await writer.run(
      'insert into tool_executions (id, call_id, tool_name, user_id, started_at, duration_ms, outcome, result_size) values (?, ?, ?, ?, ?, ?, ?, ?)',
      [['a', 'c', 't', 'direct-user', '2026-01-01T00:00:00.000Z', 1, 'ok', 1]],
    );
    expect(await countRows(database, 'direct-user')).toBe(1);
    await writer.close();
    expect(writer.available).toBe(false);
    await expect(writer.run('select 1', [[]])).rejects.toThrow(/closed/);
  });

  const childScript = (path: string, userId: string, rows: number, tail: string): string => {
    const source = (module: string): string =>
      fileURLToPath(new URL(`../../src/persistence/${module}`, import.meta.url));
    return `
      import { openDatabase } from ${JSON.stringify(source('database.ts'))};
      import { createRepositories } from ${JSON.stringify(source('repositories.ts'))};
      const { toolExecutions } = createRepositories(openDatabase(${JSON.stringify(`sqlite:${path}`)}));
      for (let index = 0; index < ${rows}; index += 1) {
        toolExecutions.record({ callId: 'c' + index, toolName: 'grep', userId: ${JSON.stringify(userId)},
          startedAt: new Date(), durationMs: 1, outcome: 'ok', resultSize: 1 });
      }
      ${tail}
    `;
  };
  it('a main-connection transaction that reads, then writes, is not failed by a batch the worker commits meanwhile', async () => {
    const { database } = await freshFile();
    const writer = database.offThreadWriter!;
    const insert =
      'insert into tool_executions (id, call_id, tool_name, user_id, started_at, duration_ms, outcome, result_size) ' +
      'values (?, ?, ?, ?, ?, ?, ?, ?)';
    await writer.run(insert, [['warm', 'c', 't', 'race-user', '2026-01-01T00:00:00.000Z', 1, 'ok', 1]]);
    let batch: Promise<void> | undefined;
    await database.db.transaction().execute(async (transaction) => {
      await transaction.selectFrom('users').select('id').execute();
      // The worker's batch lands between this transaction's read and its write: with a deferred BEGIN the write
      // would fail at once with SQLITE_BUSY (the read snapshot is stale); BEGIN IMMEDIATE makes the batch wait.
      batch = writer.run(insert, [['raced', 'c', 't', 'race-user', '2026-01-01T00:00:00.000Z', 1, 'ok', 1]]);
      await Promise.race([batch, new Promise((resolve) => setTimeout(resolve, 300))]);
      await transaction
        .insertInto('tool_executions')
        .values({
          id: 'main',
          call_id: 'c',
          tool_name: 't',
          user_id: 'race-user',
          started_at: '2026-01-01T00:00:00.000Z',
          duration_ms: 1,
          outcome: 'ok',
          result_size: 1,
        })
        .execute();
    });
    await batch;
    expect(await countRows(database, 'race-user')).toBe(3);
  });

  // A script file, not `-e`: an evaluated script exits without waiting for a referenced worker, which would hide a hang.
  const runChild = (script: string) => {
    const file = join(directories.at(-1)!, 'child.mjs');
    writeFileSync(file, script);
    return spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 20_000 });
  };

  it('a process that records and returns without flush or close still stores every batch before exiting', async () => {
    const { path, database } = await freshFile();
    const child = runChild(childScript(path, 'exit-user', 3000, ''));
    expect(child.stderr).toBe('');
    expect(child.status).toBe(0);
    expect(await countRows(database, 'exit-user')).toBe(3000);
  });

  it('an idle worker does not keep the process alive (a command that never closes its database still exits)', async () => {
    const { path, database } = await freshFile();
    const child = runChild(childScript(path, 'idle-user', 10, 'await toolExecutions.flush();'));
    expect(child.error).toBeUndefined();
    expect(child.signal).toBeNull();
    expect(child.status).toBe(0);
    expect(await countRows(database, 'idle-user')).toBe(10);
  });
});
