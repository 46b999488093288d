import type { SqliteDatabase, SqliteStatement } from 'kysely';

/**
 * Kysely's SQLite driver prepares every query anew; preparing was the largest single cost of
 * `GET /api/settings/tools` in a profile (~18 % of CPU). Kysely compiles the same builder chain to the same SQL text,
 * so caching prepared statements by text is safe; the cache is bounded so ad-hoc SQL cannot grow it without limit.
 */
export function withStatementCache(
  database: { prepare(sql: string): SqliteStatement; close(): unknown },
  capacity = 256,
): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    prepare(sql) {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = database.prepare(sql);
        if (statements.size >= capacity) statements.delete(statements.keys().next().value!);
        statements.set(sql, statement);
      }
      return statement;
    },
    close() {
      statements.clear();
      database.close();
    },
  };
}
