import type { FreshnessLedger, ToolContext } from '../core/tool-types.ts';

/**
 * SPEC FS-1/FS-2: per scope (a chat id, or a session id), real path → sha256 of the whole file at its last read or
 * write by that scope. In memory; the database store (persistence) implements the same `FreshnessLedger` interface.
 */
export class InMemoryFreshnessLedger implements FreshnessLedger {
  readonly #scopes = new Map<string, Map<string, string>>();
  readonly #maxEntriesPerScope: number;

  constructor(options: { maxEntriesPerScope?: number } = {}) {
    this.#maxEntriesPerScope = options.maxEntriesPerScope ?? 10_000;
  }

  async getRecordedHash(scope: string, realPath: string): Promise<string | undefined> {
    return this.#scopes.get(scope)?.get(realPath);
  }

  async recordHash(scope: string, realPath: string, sha256: string): Promise<void> {
    let entries = this.#scopes.get(scope);
    if (entries === undefined) {
      entries = new Map();
      this.#scopes.set(scope, entries);
    }
    // Re-inserting moves the path to the end, so eviction drops the least recently touched file first.
    entries.delete(realPath);
    entries.set(realPath, sha256);
    if (entries.size > this.#maxEntriesPerScope) {
      const oldest = entries.keys().next().value;
      if (oldest !== undefined) entries.delete(oldest);
    }
  }

  /** Forgets a scope (a deleted chat). */
  clearScope(scope: string): void {
    this.#scopes.delete(scope);
  }
}

/** Used when the host passes no ledger: process-wide, so consecutive calls in one process see each other's reads. */
export const processFreshnessLedger = new InMemoryFreshnessLedger();

export function getFreshnessLedger(context: Pick<ToolContext, 'services'>): FreshnessLedger {
  return context.services.freshnessLedger ?? processFreshnessLedger;
}

/** The ledger scope of a call: its chat, else its user (a user's chat-less calls share one scope). */
export function getFreshnessScope(context: Pick<ToolContext, 'chatId' | 'userId'>): string {
  return context.chatId !== undefined ? `chat:${context.chatId}` : `user:${context.userId}`;
}
