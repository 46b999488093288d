import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { ApprovalRemember } from '../../core/tool-approval.ts';
import type { DatabaseSchema, ToolApprovalsTable } from '../database-schema.ts';

export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired';

export interface ToolApprovalRecord {
  id: string;
  userId: string;
  chatId: string;
  callId: string;
  toolName: string;
  arguments: Record<string, unknown>;
  reason: string;
  subjects: string[];
  agentId: string | null;
  askedBy: ('user' | 'agent')[];
  status: ApprovalStatus;
  remember: ApprovalRemember | null;
  message: string | null;
  decidedBy: string | null;
  createdAt: string;
  expiresAt: string;
  decidedAt: string | null;
}

export interface NewToolApproval {
  userId: string;
  chatId: string;
  callId: string;
  toolName: string;
  arguments: Record<string, unknown>;
  reason: string;
  subjects: readonly string[];
  agentId?: string;
  askedBy: readonly ('user' | 'agent')[];
  expiresAt: Date;
}

export interface ApprovalAnswer {
  decision: 'approve' | 'deny';
  remember: ApprovalRemember;
  message: string | null;
  decidedBy: string;
}

function parseArray(text: string): string[] {
  try {
    const value = JSON.parse(text) as unknown;
    return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
  } catch {
    return [];
  }
}

function toRecord(row: ToolApprovalsTable): ToolApprovalRecord {
  let args: Record<string, unknown> = {};
  try {
    args = JSON.parse(row.arguments) as Record<string, unknown>;
  } catch {
    // Never written unparsable; an empty object is the safe reading.
  }
  return {
    id: row.id,
    userId: row.user_id,
    chatId: row.chat_id,
    callId: row.call_id,
    toolName: row.tool_name,
    arguments: args,
    reason: row.reason,
    subjects: parseArray(row.subjects),
    agentId: row.agent_id,
    askedBy: parseArray(row.asked_by).filter((by): by is 'user' | 'agent' => by === 'user' || by === 'agent'),
    status: row.status as ApprovalStatus,
    remember: (row.remember as ApprovalRemember | null) ?? null,
    message: row.message,
    decidedBy: row.decided_by,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    decidedAt: row.decided_at,
  };
}

/**
 * Issue 16: pending approvals live here so any instance can answer one and the instance running the turn sees it.
 * Decisions are single compare-and-set updates on `status = 'pending'`: the first answer (or the expiry) wins.
 */
export class ToolApprovalRepository {
  readonly #db: Kysely<DatabaseSchema>;

  constructor(db: Kysely<DatabaseSchema>) {
    this.#db = db;
  }

  async create(approval: NewToolApproval): Promise<ToolApprovalRecord> {
    const row: ToolApprovalsTable = {
      id: randomUUID(),
      user_id: approval.userId,
      chat_id: approval.chatId,
      call_id: approval.callId,
      tool_name: approval.toolName,
      arguments: JSON.stringify(approval.arguments),
      reason: approval.reason,
      subjects: JSON.stringify(approval.subjects),
      agent_id: approval.agentId ?? null,
      asked_by: JSON.stringify(approval.askedBy),
      status: 'pending',
      remember: null,
      message: null,
      decided_by: null,
      created_at: new Date().toISOString(),
      expires_at: approval.expiresAt.toISOString(),
      decided_at: null,
    };
    await this.#db.insertInto('tool_approvals').values(row).execute();
    return toRecord(row);
  }

  async getById(id: string): Promise<ToolApprovalRecord | undefined> {
    const row = await this.#db
      .selectFrom('tool_approvals')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? undefined : toRecord(row);
  }

  /** The newest approval of this call in the user's chat; another user's reads as missing (AUTH-1). */
  async findLatest(userId: string, chatId: string, callId: string): Promise<ToolApprovalRecord | undefined> {
    const row = await this.#db
      .selectFrom('tool_approvals')
      .selectAll()
      .where('user_id', '=', userId)
      .where('chat_id', '=', chatId)
      .where('call_id', '=', callId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirst();
    return row === undefined ? undefined : toRecord(row);
  }

  /** True when this answer decided the approval (it was pending and not past its expiry). */
  async decide(id: string, answer: ApprovalAnswer, now = new Date()): Promise<boolean> {
    const result = await this.#db
      .updateTable('tool_approvals')
      .set({
        status: answer.decision === 'approve' ? 'approved' : 'denied',
        remember: answer.remember,
        message: answer.message,
        decided_by: answer.decidedBy,
        decided_at: now.toISOString(),
      })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where('expires_at', '>', now.toISOString())
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Marks a pending approval expired (the turn stopped waiting); false when an answer got there first. */
  async expire(id: string, now = new Date()): Promise<boolean> {
    const result = await this.#db
      .updateTable('tool_approvals')
      .set({ status: 'expired', decided_by: 'timeout', decided_at: now.toISOString() })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Subjects of this tool approved with `remember: 'session'` in this chat. */
  async sessionSubjects(chatId: string, toolName: string): Promise<Set<string>> {
    const rows = await this.#db
      .selectFrom('tool_approvals')
      .select('subjects')
      .where('chat_id', '=', chatId)
      .where('tool_name', '=', toolName)
      .where('remember', '=', 'session')
      .where('status', '=', 'approved')
      .execute();
    return new Set(rows.flatMap((row) => parseArray(row.subjects)));
  }
}
