import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { isErrorCode } from '../../core/error-codes.ts';
import type {
  ToolExecutionQuery,
  ToolExecutionRecord,
  ToolExecutionRecorder,
} from '../../core/execution-recorder.ts';
import { silentLogger } from '../../core/logger.ts';
import type { ApprovalAudit } from '../../core/tool-approval.ts';
import type { ToolportLogger } from '../../core/tool-types.ts';
import type { DatabaseSchema, ToolExecutionsTable } from '../database-schema.ts';

/**
 * CORE-6's audit trail in the database. `record` returns at once (it must not slow the call down); the insert runs in
 * the background and a failure is logged, never thrown. `flush()` waits for pending inserts (shutdown, tests).
 */
export class ToolExecutionRepository implements ToolExecutionRecorder {
  readonly #db: Kysely<DatabaseSchema>;
  readonly #logger: ToolportLogger;
  readonly #pending = new Set<Promise<void>>();

  constructor(db: Kysely<DatabaseSchema>, logger: ToolportLogger = silentLogger) {
    this.#db = db;
    this.#logger = logger;
  }

  record(entry: ToolExecutionRecord): void {
    const insert = this.insert(entry)
      .catch((error: unknown) => {
        this.#logger.error(
          {
            tool: entry.toolName,
            callId: entry.callId,
            error: error instanceof Error ? error.message : String(error),
          },
          'could not record tool execution',
        );
      })
      .finally(() => this.#pending.delete(insert));
    this.#pending.add(insert);
  }

  async insert(entry: ToolExecutionRecord): Promise<void> {
    await this.#db
      .insertInto('tool_executions')
      .values({
        id: randomUUID(),
        call_id: entry.callId,
        tool_name: entry.toolName,
        user_id: entry.userId,
        chat_id: entry.chatId ?? null,
        agent_id: entry.agentId ?? null,
        started_at: entry.startedAt.toISOString(),
        duration_ms: entry.durationMs,
        outcome: entry.outcome,
        result_size: entry.resultSize,
        parent_call_id: entry.parentCallId ?? null,
        approval: entry.approval === undefined ? null : JSON.stringify(entry.approval),
      })
      .execute();
  }

  async flush(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  /** Newest first. */
  async query(filter: ToolExecutionQuery = {}): Promise<ToolExecutionRecord[]> {
    let query = this.#db.selectFrom('tool_executions').selectAll();
    if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
    if (filter.toolName !== undefined) query = query.where('tool_name', '=', filter.toolName);
    if (filter.chatId !== undefined) query = query.where('chat_id', '=', filter.chatId);
    if (filter.parentCallId !== undefined) query = query.where('parent_call_id', '=', filter.parentCallId);
    if (filter.outcome !== undefined) query = query.where('outcome', '=', filter.outcome);
    const rows = await query
      .orderBy('started_at', 'desc')
      .orderBy('id')
      .limit(filter.limit ?? 100)
      .execute();
    return rows.map(toRecord);
  }
}

function toRecord(row: ToolExecutionsTable): ToolExecutionRecord {
  return {
    callId: row.call_id,
    toolName: row.tool_name,
    userId: row.user_id,
    chatId: row.chat_id ?? undefined,
    agentId: row.agent_id ?? undefined,
    startedAt: new Date(row.started_at),
    durationMs: Number(row.duration_ms),
    outcome: isErrorCode(row.outcome) ? row.outcome : row.outcome === 'ok' ? 'ok' : 'internal_error',
    resultSize: Number(row.result_size),
    ...(row.parent_call_id === null ? {} : { parentCallId: row.parent_call_id }),
    ...(row.approval === null || row.approval === undefined
      ? {}
      : { approval: JSON.parse(row.approval) as ApprovalAudit }),
  };
}
