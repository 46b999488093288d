import type { CompiledQuery, Insertable, Kysely } from 'kysely';
import { isErrorCode } from '../../core/error-codes.ts';
import type {
  ToolExecutionQuery,
  ToolExecutionRecord,
  ToolExecutionRecorder,
} from '../../core/execution-recorder.ts';
import { silentLogger } from '../../core/logger.ts';
import type { ApprovalAudit } from '../../core/tool-approval.ts';
import type { ToolportLogger } from '../../core/tool-types.ts';
import { BatchedWriter } from '../batched-writer.ts';
import { OffThreadWriterUnavailable, type SqliteOffThreadWriter } from '../sqlite-off-thread-writer.ts';
import { timeOrderedUuid } from '../time-ordered-id.ts';
import type { DatabaseSchema, ToolExecutionsTable } from '../database-schema.ts';

/** Largest first; a batch is written as chunks of these sizes (each compiled once). */
const INSERT_CHUNK_SIZES = [64, 16, 4, 1] as const;

/** The one mapping from an execution record to its row (a new audit field is added here, and only here). */
export function toExecutionRow(entry: ToolExecutionRecord): Insertable<ToolExecutionsTable> {
  return {
    id: timeOrderedUuid(entry.startedAt.getTime()),
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
  };
}

/** The columns `toExecutionRow` fills, in the order of the compiled inserts' placeholders. */
const EXECUTION_COLUMNS = Object.keys(
  toExecutionRow({
    callId: '',
    toolName: '',
    userId: '',
    chatId: undefined,
    agentId: undefined,
    startedAt: new Date(0),
    durationMs: 0,
    outcome: 'ok',
    resultSize: 0,
  }),
) as Array<keyof Insertable<ToolExecutionsTable>>;

interface QueuedExecution {
  entry: ToolExecutionRecord;
  /** Built once: a batch retried row by row inserts the same ids. */
  row?: Insertable<ToolExecutionsTable>;
}

function rowOf(queued: QueuedExecution): Insertable<ToolExecutionsTable> {
  return (queued.row ??= toExecutionRow(queued.entry));
}

/** One row's values in `EXECUTION_COLUMNS` order (the compiled inserts' placeholders). */
function toParameters(row: Insertable<ToolExecutionsTable>): unknown[] {
  return EXECUTION_COLUMNS.map((column) => row[column] ?? null);
}

/**
 * CORE-6's audit trail in the database. `record` returns at once (it must not slow the call down): rows are written
 * in batches by a `BatchedWriter` (issue 11), one multi-row insert per batch, and a failure is logged, never thrown.
 * `flush()` writes what is queued and waits (shutdown, tests); `query()` flushes first, so this process reads its own
 * records. A crash loses at most the queued batch (under `DEFAULT_BATCH_DELAY_MS`).
 */
export class ToolExecutionRepository implements ToolExecutionRecorder {
  readonly #db: Kysely<DatabaseSchema>;
  /** Queued as the record itself: the row (id, ISO time) is built when its batch is written, off the call's path. */
  readonly #writer: BatchedWriter<QueuedExecution>;
  readonly #compiledInserts = new Map<number, CompiledQuery>();
  readonly #offThread: SqliteOffThreadWriter | undefined;

  /** `offThread`: a SQLite file's worker writer; batches go there while it is available (issue 14 item 8). */
  constructor(
    db: Kysely<DatabaseSchema>,
    logger: ToolportLogger = silentLogger,
    offThread?: SqliteOffThreadWriter,
  ) {
    this.#db = db;
    this.#offThread = offThread;
    this.#writer = new BatchedWriter({
      write: (rows) => this.#insert(rows),
      onError: (rows, error) => {
        for (const { entry } of rows) {
          logger.error(
            {
              tool: entry.toolName,
              callId: entry.callId,
              error: error instanceof Error ? error.message : String(error),
            },
            'could not record tool execution',
          );
        }
      },
    });
  }

  /**
   * One multi-row insert per chunk of a batch. Building a 200-row insert with Kysely cost more than SQLite's own work
   * (~20 µs a row), so each chunk size is compiled once and only its parameters change; the sizes are few, so the
   * statement cache (SQLite) and the server's plan cache see a handful of texts.
   */
  async #insert(queued: readonly QueuedExecution[]): Promise<void> {
    const rows = queued.map(rowOf);
    if (this.#offThread?.available === true) {
      const { sql } = this.#compiledInserts.get(1) ?? this.#compileInsert(1);
      try {
        await this.#offThread.run(sql, rows.map(toParameters));
        return;
      } catch (error) {
        // A dead worker stored nothing it had not acknowledged (SQLite rolled its transaction back; a row it did
        // commit would only collide on its primary key): write the batch here instead. SQL errors go to the caller.
        if (!(error instanceof OffThreadWriterUnavailable)) throw error;
      }
    }
    const statements: CompiledQuery[] = [];
    let offset = 0;
    while (offset < rows.length) {
      const size = INSERT_CHUNK_SIZES.find((candidate) => candidate <= rows.length - offset)!;
      const chunk = rows.slice(offset, offset + size);
      offset += size;
      const compiled = this.#compiledInserts.get(size) ?? this.#compileInsert(size);
      statements.push({
        ...compiled,
        parameters: chunk.flatMap(toParameters),
      });
    }
    if (statements.length === 1) {
      await this.#db.executeQuery(statements[0]!);
      return;
    }
    // One transaction: one commit (one WAL append on SQLite) per batch, not per chunk.
    await this.#db.transaction().execute(async (transaction) => {
      for (const statement of statements) await transaction.executeQuery(statement);
    });
  }

  #compileInsert(size: number): CompiledQuery {
    const placeholder = Object.fromEntries(
      EXECUTION_COLUMNS.map((column) => [column, null]),
    ) as unknown as Insertable<ToolExecutionsTable>;
    const compiled = this.#db
      .insertInto('tool_executions')
      .values(Array.from({ length: size }, () => placeholder))
      .compile();
    this.#compiledInserts.set(size, compiled);
    return compiled;
  }

  record(entry: ToolExecutionRecord): void {
    this.#writer.add({ entry });
  }

  flush(): Promise<void> {
    return this.#writer.flush();
  }

  /** Newest first. */
  async query(filter: ToolExecutionQuery = {}): Promise<ToolExecutionRecord[]> {
    await this.flush();
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
