import { parentPort, workerData } from 'node:worker_threads';
import SqliteDatabase from 'better-sqlite3';
import { SQLITE_PRAGMAS, type OffThreadBatch, type OffThreadReply } from './sqlite-off-thread-protocol.ts';

/**
 * The worker side of `SqliteOffThreadWriter`: its own connection to the database file (WAL lets it write beside the
 * main connection; `busy_timeout` makes either wait for the other's transaction), one transaction per batch.
 */
const { path } = workerData as { path: string };
const database = new SqliteDatabase(path);
for (const pragma of SQLITE_PRAGMAS) database.pragma(pragma);
const statements = new Map<string, SqliteDatabase.Statement>();
const runBatch = database.transaction((batch: OffThreadBatch) => {
  let statement = statements.get(batch.sql);
  if (statement === undefined) {
    statement = database.prepare(batch.sql);
    statements.set(batch.sql, statement);
  }
  for (const parameters of batch.rows) statement.run(parameters);
});

parentPort!.on('message', (batch: OffThreadBatch) => {
  let reply: OffThreadReply;
  try {
    // Immediate: take the write lock before the first insert, like the main connection's transactions (database.ts).
    runBatch.immediate(batch);
    reply = { id: batch.id };
  } catch (error) {
    reply = { id: batch.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply);
});
