import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  Kysely,
  PostgresDialect,
  SqliteDialect,
  type Dialect,
  type PostgresPool,
  type SqliteStatement,
} from 'kysely';
import { Migrator } from 'kysely/migration';
import pg from 'pg';
import { ToolportError } from '../core/errors.ts';
import { SqliteAuthChangeFeed, type AuthChangeFeed } from './auth-change-feed.ts';
import type { DatabaseEngine } from './database-engine.ts';
import type { DatabaseSchema } from './database-schema.ts';
import { createMigrationProvider } from './migrations/index.ts';
import { preparedStatementName } from './prepared-query.ts';
import { SQLITE_PRAGMAS } from './sqlite-off-thread-protocol.ts';
import { SqliteOffThreadWriter } from './sqlite-off-thread-writer.ts';
import { withStatementCache } from './sqlite-statement-cache.ts';

export type { DatabaseEngine } from './database-engine.ts';
export type { DatabaseSchema } from './database-schema.ts';

export interface ToolportDatabase {
  readonly db: Kysely<DatabaseSchema>;
  readonly engine: DatabaseEngine;
  /** For logs: the URL with any password removed. */
  readonly description: string;
  /**
   * SQLite files only: append-only batches (the audit trail) written by a worker thread on its own connection, off
   * the request path. Absent for `:memory:` (a second connection would see another database) and PostgreSQL.
   */
  readonly offThreadWriter?: SqliteOffThreadWriter;
  /**
   * SQLite only: tells a token cache when a token or user row may have changed (auth-change-feed.ts). Absent for
   * PostgreSQL, where no local check can see another instance's commit without a round trip: every request looks its
   * token up there, so a revocation stays immediate on every instance.
   */
  readonly authChanges?: AuthChangeFeed;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** PostgreSQL pool size per instance. */
  maxConnections?: number;
}

/** `sqlite:<path>` (relative paths resolve from `baseDirectory`), `sqlite::memory:`, or `postgres://…`. */
export function openDatabase(
  url: string,
  options: OpenDatabaseOptions & { baseDirectory?: string } = {},
): ToolportDatabase {
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const pool = new pg.Pool({ connectionString: url, max: options.maxConnections ?? 10 });
    // An idle client's error (server restart) must not crash the process; the next query reconnects.
    pool.on('error', () => {});
    return wrapDialect(
      new PostgresDialect({ pool: namePreparedStatements(pool) }),
      'postgres',
      redactUrl(url),
    );
  }
  if (url.startsWith('sqlite:')) {
    const target = url.slice('sqlite:'.length);
    if (target === '')
      throw new ToolportError('bad_request', 'sqlite: URL needs a path, e.g. sqlite:./toolport.db');
    const path = target === ':memory:' ? target : resolve(options.baseDirectory ?? process.cwd(), target);
    if (path !== ':memory:') {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      // Create the file owner-only before SQLite does: its -wal and -shm files copy the database file's mode.
      closeSync(openSync(path, 'a', 0o600));
    }
    const database = new SqliteDatabase(path);
    for (const pragma of SQLITE_PRAGMAS) database.pragma(pragma);
    const dataVersion = database.prepare('PRAGMA data_version').pluck();
    const authChanges = new SqliteAuthChangeFeed(() => dataVersion.get() as number);
    const connection = noticingWrites(withImmediateTransactions(database), () =>
      authChanges.noteLocalWrite(),
    );
    const wrapped = {
      ...wrapDialect(
        new SqliteDialect({ database: withStatementCache(connection) }),
        'sqlite',
        `sqlite:${path}`,
      ),
      authChanges,
    };
    if (path === ':memory:') return wrapped;
    const offThreadWriter = new SqliteOffThreadWriter(path);
    return {
      ...wrapped,
      offThreadWriter,
      close: async () => {
        await offThreadWriter.close();
        await wrapped.close();
      },
    };
  }
  throw new ToolportError(
    'bad_request',
    `Unsupported database URL ${JSON.stringify(redactUrl(url))}: use sqlite:<path> or postgres://user@host:port/database.`,
  );
}

/**
 * Kysely opens SQLite transactions with a deferred `begin`. A file database has a second writer (the audit worker's
 * connection), and a deferred transaction that reads and then writes fails at once with SQLITE_BUSY when that
 * connection committed in between (its read snapshot is stale; the busy timeout does not apply). `begin immediate`
 * takes the write lock first, so the two writers wait for each other instead.
 */
function withImmediateTransactions(database: SqliteDatabase.Database): {
  prepare(sql: string): ReturnType<SqliteDatabase.Database['prepare']>;
  close(): unknown;
} {
  return {
    prepare: (sql) => database.prepare(sql === 'begin' ? 'begin immediate' : sql),
    close: () => database.close(),
  };
}

/**
 * Calls `onWrite` before and after every statement that can write (better-sqlite3's `readonly` is false: DML and DDL,
 * built by Kysely or raw). The main connection's own commits do not change its `data_version`, so this is how the
 * token cache hears of them whatever code path wrote; a read never pays for it. SQLite counts `begin`/`commit` as
 * read-only, and they need no call: every write inside a transaction makes one, and a token lookup cannot run inside
 * another request's transaction (it waits for Kysely's connection mutex, so it reads what the transaction left).
 */
function noticingWrites(
  connection: ReturnType<typeof withImmediateTransactions>,
  onWrite: () => void,
): { prepare(sql: string): SqliteStatement; close(): unknown } {
  const around =
    <Result>(run: (parameters: readonly unknown[]) => Result) =>
    (parameters: readonly unknown[]): Result => {
      onWrite();
      try {
        return run(parameters);
      } finally {
        onWrite();
      }
    };
  return {
    prepare: (sql) => {
      const statement = connection.prepare(sql);
      if (statement.readonly) return statement;
      // A plain object, not a prototype copy: better-sqlite3's getters need the native statement as `this`.
      return {
        reader: statement.reader,
        all: around((parameters) => statement.all(parameters)),
        run: around((parameters) => statement.run(parameters)),
        iterate: (parameters) => {
          onWrite();
          return statement.iterate(parameters);
        },
      };
    },
    close: () => connection.close(),
  };
}

/** Wraps any Kysely dialect of a supported engine (tests use PGlite through this). */
export function wrapDialect(dialect: Dialect, engine: DatabaseEngine, description: string): ToolportDatabase {
  const db = new Kysely<DatabaseSchema>({ dialect });
  return { db, engine, description, close: () => db.destroy() };
}

/**
 * Applies pending migrations. Idempotent; on PostgreSQL Kysely holds an advisory lock while migrating, so instances
 * that start together apply each migration exactly once and the others wait, then see nothing left to do.
 */
export async function migrateDatabase(database: ToolportDatabase): Promise<string[]> {
  const migrator = new Migrator({
    db: database.db,
    provider: createMigrationProvider(database.engine),
    migrationTableName: 'toolport_migrations',
    migrationLockTableName: 'toolport_migrations_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    throw new ToolportError(
      'internal_error',
      `Database migration failed on ${database.description}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  return (results ?? [])
    .filter((result) => result.status === 'Success')
    .map((result) => result.migrationName);
}

/**
 * Kysely's pool, with marked hot queries (prepared-query.ts) sent as named statements: node-postgres parses and plans
 * a named statement once per connection and only binds it afterwards. Everything else passes through unchanged.
 */
function namePreparedStatements(pool: pg.Pool): PostgresPool {
  const patched = new WeakSet<pg.PoolClient>();
  const patch = (client: pg.PoolClient): pg.PoolClient => {
    if (patched.has(client)) return client;
    patched.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args) => {
      const [text, values] = args;
      const name = typeof text === 'string' ? preparedStatementName(text) : undefined;
      return name === undefined ? query(...args) : query({ name, text, values });
    };
    return client;
  };
  return {
    Client: (pool as unknown as { Client?: unknown }).Client,
    options: pool.options,
    connect: async () => patch(await pool.connect()),
    end: () => pool.end(),
  } as unknown as PostgresPool;
}

function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ':***@');
  }
}
