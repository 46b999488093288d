import type { CompiledQuery } from 'kysely';

/*
 * Issue 11: "hot queries prepared once". A hot query is built by Kysely once, at start-up; each request only swaps its
 * parameters (no query building). Its text carries a marker naming it, so the PostgreSQL pool runs it as a named
 * prepared statement (parsed and planned once per connection, see `namePreparedStatements` in database.ts); SQLite's
 * statement cache (sqlite-statement-cache.ts) already prepares each text once. Only queries with an explicit column
 * list may be marked: a plan cached for `select *` fails once a later migration adds a column.
 */
const MARKER = /^\/\* toolport:prepared:([a-z0-9_]+) \*\/ /;

/** A compiled query whose text is marked `name`; call the result with each request's parameters. */
export function prepareOnce<Row>(
  name: string,
  compiled: CompiledQuery<Row>,
): (parameters: readonly unknown[]) => CompiledQuery<Row> {
  const sql = `/* toolport:prepared:${name} */ ${compiled.sql}`;
  return (parameters) => ({ ...compiled, sql, parameters });
}

/** The statement name of a marked query text (`toolport_<name>`), or undefined for any other text. */
export function preparedStatementName(sql: string): string | undefined {
  const match = MARKER.exec(sql);
  return match === null ? undefined : `toolport_${match[1]}`;
}
