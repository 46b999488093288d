import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  migrateDatabase,
  openDatabase,
  wrapDialect,
  type DatabaseEngine,
  type ToolportDatabase,
} from '../../src/persistence/database.ts';
import { PgliteDialect } from './pglite-dialect.ts';

/**
 * The engines every contract suite (`*.case.test.ts`) runs against. PostgreSQL is the server on 127.0.0.1:5432
 * (override with TOOLPORT_TEST_POSTGRES_URL, an admin URL); each test file gets a throwaway database, dropped after.
 * Without a reachable server the PostgreSQL leg runs on in-process PGlite — except under CI=true, where a missing
 * server fails the suite.
 */
export const TEST_ENGINES: readonly DatabaseEngine[] = ['sqlite', 'postgres'];

const ADMIN_URL = process.env.TOOLPORT_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabaseTarget {
  engine: DatabaseEngine;
  /** What the leg runs on: a file path, a server database URL, or `pglite`. */
  label: string;
  /** A URL `openDatabase` accepts; undefined for PGlite (in-process only). */
  url: string | undefined;
  /** Opens a new, migrated connection to the same database (two instances share it). */
  open(): Promise<ToolportDatabase>;
  dispose(): Promise<void>;
}

let postgresReachable: Promise<boolean> | undefined;

async function isPostgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

async function createPostgresTarget(): Promise<TestDatabaseTarget> {
  postgresReachable ??= isPostgresReachable();
  if (await postgresReachable) {
    const name = `toolport_test_${process.pid}_${randomBytes(4).toString('hex')}`;
    await adminQuery(`create database ${name}`);
    const url = new URL(ADMIN_URL);
    url.pathname = `/${name}`;
    const opened: ToolportDatabase[] = [];
    return {
      engine: 'postgres',
      label: `postgres ${name}`,
      url: url.toString(),
      open: async () => {
        const database = openDatabase(url.toString(), { maxConnections: 20 });
        opened.push(database);
        await migrateDatabase(database);
        return database;
      },
      dispose: async () => {
        await Promise.all(opened.map((database) => database.close().catch(() => {})));
        await adminQuery(`drop database if exists ${name} with (force)`);
      },
    };
  }
  if (process.env.CI === 'true') {
    throw new Error(
      `CI=true but no PostgreSQL server answers at ${ADMIN_URL}: the contract suite needs the real server in CI ` +
        '(.ci/run starts it).',
    );
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const pglite = await PGlite.create();
  let database: ToolportDatabase | undefined;
  return {
    engine: 'postgres',
    label: 'pglite (no PostgreSQL server reachable)',
    url: undefined,
    // PGlite is one in-process connection: every "instance" shares it.
    open: async () => {
      if (database === undefined) {
        database = wrapDialect(new PgliteDialect(pglite), 'postgres', 'pglite');
        await migrateDatabase(database);
      }
      return { ...database, close: async () => {} };
    },
    dispose: async () => {
      await database?.close();
      await pglite.close();
    },
  };
}

function createSqliteTarget(): TestDatabaseTarget {
  const directory = mkdtempSync(join(tmpdir(), 'toolport-sqlite-'));
  const url = `sqlite:${join(directory, 'toolport.db')}`;
  const opened: ToolportDatabase[] = [];
  return {
    engine: 'sqlite',
    label: url,
    url,
    open: async () => {
      const database = openDatabase(url);
      opened.push(database);
      await migrateDatabase(database);
      return database;
    },
    dispose: async () => {
      await Promise.all(opened.map((database) => database.close().catch(() => {})));
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

export async function createTestDatabase(engine: DatabaseEngine): Promise<TestDatabaseTarget> {
  return engine === 'sqlite' ? createSqliteTarget() : createPostgresTarget();
}
