import type { ErrorCode } from './error-codes.ts';
import type { ApprovalAudit } from './tool-approval.ts';

/** SPEC CORE-6: every execution is recorded — the audit trail an operator can query. */
export interface ToolExecutionRecord {
  callId: string;
  toolName: string;
  userId: string;
  chatId: string | undefined;
  agentId: string | undefined;
  startedAt: Date;
  durationMs: number;
  outcome: 'ok' | ErrorCode;
  /** Characters of the serialized result (or error) sent to the model. */
  resultSize: number;
  /** AGENT-1: the call that delegated to the sub-agent whose turn made this call. */
  parentCallId?: string;
  /** Issue 16: how the permission rules (or a human) decided, when a rule applied to the call. */
  approval?: ApprovalAudit;
}

export interface ToolExecutionQuery {
  userId?: string;
  toolName?: string;
  chatId?: string;
  /** The calls a sub-agent made for the delegating call with this id. */
  parentCallId?: string;
  outcome?: ToolExecutionRecord['outcome'];
  limit?: number;
}

export interface ToolExecutionRecorder {
  /** Must not throw and must not block the call: persistence failures are the recorder's to log. */
  record(entry: ToolExecutionRecord): void;
}

/** Keeps the newest `capacity` records in memory (a ring buffer); the database recorder replaces it in `serve`. */
export class InMemoryExecutionRecorder implements ToolExecutionRecorder {
  readonly #capacity: number;
  readonly #records: ToolExecutionRecord[] = [];
  /** Where the next record goes once the buffer is full (the oldest record's slot). */
  #next = 0;

  constructor(capacity = 10_000) {
    this.#capacity = Math.max(1, capacity);
  }

  record(entry: ToolExecutionRecord): void {
    if (this.#records.length < this.#capacity) {
      this.#records.push(entry);
      return;
    }
    this.#records[this.#next] = entry;
    this.#next = (this.#next + 1) % this.#capacity;
  }

  /** Newest first. */
  query(filter: ToolExecutionQuery = {}): ToolExecutionRecord[] {
    const matches: ToolExecutionRecord[] = [];
    const count = this.#records.length;
    for (let offset = 1; offset <= count; offset += 1) {
      const entry = this.#records[(this.#next - offset + count) % count]!;
      if (filter.userId !== undefined && entry.userId !== filter.userId) continue;
      if (filter.toolName !== undefined && entry.toolName !== filter.toolName) continue;
      if (filter.chatId !== undefined && entry.chatId !== filter.chatId) continue;
      if (filter.outcome !== undefined && entry.outcome !== filter.outcome) continue;
      matches.push(entry);
      if (filter.limit !== undefined && matches.length >= filter.limit) break;
    }
    return matches;
  }
}
