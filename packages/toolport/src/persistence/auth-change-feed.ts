/**
 * Issue 11: what lets an instance reuse a token lookup without making revocation any less immediate. `current()` is
 * an object whose identity changes whenever a token or user row (or anything a user's `state_version` counts) may
 * have changed since it was last returned; a lookup stored under one identity is reused only while `current()`
 * returns that same identity. `undefined` means changes cannot be seen right now: every request looks its token up.
 */
export interface AuthChangeFeed {
  current(): object | undefined;
}

/** The synchronous read of a SQLite connection's `PRAGMA data_version`. */
export type DataVersionReader = () => number;

/**
 * SQLite: `PRAGMA data_version` on the main connection changes whenever another connection committed anything (the
 * CLI in another process, another instance on the same file, the audit worker), and is read synchronously at the
 * request's own check, so a revocation committed anywhere before the request is always seen. The connection's own
 * writes do not change it: those arrive through `noteLocalWrite`. The audit worker's commits (one per batch, some
 * tens a second under load) make the next request of each token look it up again, which is what keeps this exact.
 */
export class SqliteAuthChangeFeed implements AuthChangeFeed {
  readonly #readDataVersion: DataVersionReader;
  #dataVersion: number | undefined;
  #epoch: object = {};

  constructor(readDataVersion: DataVersionReader) {
    this.#readDataVersion = readDataVersion;
  }

  current(): object | undefined {
    let version: number;
    try {
      version = this.#readDataVersion();
    } catch {
      // A closed or failing connection: no reuse, and the lookup reports the real error.
      return undefined;
    }
    if (version !== this.#dataVersion) {
      this.#dataVersion = version;
      this.#epoch = {};
    }
    return this.#epoch;
  }

  /** The main connection ran a statement that can write (`noticingWrites` in database.ts: before and after it). */
  noteLocalWrite(): void {
    this.#epoch = {};
  }
}
