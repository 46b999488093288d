/** What `SqliteOffThreadWriter` and its worker exchange. */
export interface OffThreadBatch {
  id: number;
  /** One statement with `?` placeholders, run once per entry of `rows` in a single transaction. */
  sql: string;
  rows: unknown[][];
}

export interface OffThreadReply {
  id: number;
  /** Set when the transaction failed and was rolled back: none of the batch's rows were stored. */
  error?: string;
}

/**
 * Every connection to a toolport SQLite file runs with these. WAL lets readers run beside the one writer;
 * synchronous=NORMAL is durable across process crashes in WAL mode (only an OS crash can lose the last transactions)
 * and is several times faster than FULL for small upserts.
 */
export const SQLITE_PRAGMAS = [
  'journal_mode = WAL',
  'synchronous = NORMAL',
  'foreign_keys = ON',
  'busy_timeout = 5000',
] as const;
