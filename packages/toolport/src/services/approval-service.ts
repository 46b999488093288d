import { ToolportError } from '../core/errors.ts';
import type {
  ApprovalDecision,
  ApprovalRemember,
  ApprovalRequest,
  ApproveCallback,
  PermissionCall,
} from '../core/tool-approval.ts';
import type { ToolportLogger } from '../core/tool-types.ts';
import type { AgentRepository } from '../persistence/repositories/agent-repository.ts';
import type {
  ToolApprovalRecord,
  ToolApprovalRepository,
} from '../persistence/repositories/tool-approval-repository.ts';
import type { ToolSettingsRepository } from '../persistence/repositories/tool-settings-repository.ts';
import { coerceStoredPermissionRule, withAllowRules } from '../permissions/permission-rule.ts';
import type { PolicySubject } from '../policy/policy-denied.ts';

export interface ApprovalAnswerInput {
  decision: 'approve' | 'deny';
  remember?: ApprovalRemember;
  message?: string;
}

export interface ApprovalServiceOptions {
  approvals: ToolApprovalRepository;
  toolSettings: ToolSettingsRepository;
  agents: AgentRepository;
  /** How often a waiting turn re-reads its approval (answers may reach another instance). Default 250 ms. */
  pollIntervalMs?: number;
  logger?: ToolportLogger;
  /** Called after an `always` answer wrote allow rules (the runtime service invalidates the user's runtimes). */
  onRulesChanged?: (userId: string) => void;
}

/** The API's view of one approval. */
export interface ApprovalView {
  callId: string;
  toolName: string;
  status: ToolApprovalRecord['status'];
  remember: ApprovalRemember | null;
  message: string | null;
  decidedBy: string | null;
  decidedAt: string | null;
}

function toView(record: ToolApprovalRecord): ApprovalView {
  return {
    callId: record.callId,
    toolName: record.toolName,
    status: record.status,
    remember: record.remember,
    message: record.message,
    decidedBy: record.decidedBy,
    decidedAt: record.decidedAt,
  };
}

/**
 * Issue 16 for chat turns: a turn's `ask` becomes a row in `tool_approvals`; `POST /api/chats/:id/approvals/:callId`
 * decides it on whichever instance receives it; the waiting turn sees the decision at once on its own instance and
 * within one poll interval from another. No answer before the tool's `approvalTimeoutSeconds` denies.
 */
export class ApprovalService {
  readonly #options: ApprovalServiceOptions;
  readonly #wakers = new Map<string, () => void>();

  constructor(options: ApprovalServiceOptions) {
    this.#options = options;
  }

  /** Whether every subject of this call was approved with `remember: 'session'` earlier in the chat. */
  async isApprovedForSession(call: PermissionCall, subjects: readonly string[]): Promise<boolean> {
    if (call.chatId === undefined || subjects.length === 0) return false;
    const approved = await this.#options.approvals.sessionSubjects(call.chatId, call.toolName);
    return subjects.every((subject) => approved.has(subject));
  }

  /** The approver of one chat's turns. */
  approverFor(user: PolicySubject): ApproveCallback {
    return (request) => this.#ask(user, request);
  }

  async #ask(user: PolicySubject, request: ApprovalRequest): Promise<ApprovalDecision> {
    const { approvals } = this.#options;
    if (request.chatId === undefined) {
      return { decision: 'deny', decidedBy: 'no chat', message: 'approvals need a chat' };
    }
    const record = await approvals.create({
      userId: user.id,
      chatId: request.chatId,
      callId: request.callId,
      toolName: request.toolName,
      arguments: request.arguments,
      reason: request.reason,
      subjects: request.subjects,
      ...(request.agentId === undefined ? {} : { agentId: request.agentId }),
      askedBy: request.askedBy,
      expiresAt: new Date(Date.now() + request.timeoutMs),
    });
    const deadline = Date.now() + request.timeoutMs;
    const poll = this.#options.pollIntervalMs ?? 250;
    const { signal } = request;
    try {
      for (;;) {
        const current = await approvals.getById(record.id);
        if (current === undefined)
          return { decision: 'deny', decidedBy: 'error', message: 'the approval vanished' };
        if (current.status === 'approved' || current.status === 'denied') {
          return {
            decision: current.status === 'approved' ? 'approve' : 'deny',
            ...(current.remember === null ? {} : { remember: current.remember }),
            ...(current.message === null ? {} : { message: current.message }),
            decidedBy: current.decidedBy ?? 'user',
          };
        }
        if (current.status === 'expired')
          return { decision: 'deny', decidedBy: current.decidedBy ?? 'timeout' };
        if (signal?.aborted) {
          await approvals.expire(record.id);
          return { decision: 'deny', decidedBy: 'cancelled' };
        }
        const remaining = deadline - Date.now();
        if (remaining <= 0) {
          if (await approvals.expire(record.id)) return { decision: 'deny', decidedBy: 'timeout' };
          continue;
        }
        await this.#sleep(record.id, Math.min(poll, remaining), signal);
      }
    } finally {
      this.#wakers.delete(record.id);
    }
  }

  #sleep(id: string, ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.#wakers.delete(id);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
      this.#wakers.set(id, done);
    });
  }

  /**
   * An `always` answer given outside a chat's approval rows (`toolport chat --user`'s `a`, an MCP elicitation's
   * "always" box): writes the allow rules for exactly this call where a rule asked, as `answer` does.
   */
  async rememberAlways(request: ApprovalRequest): Promise<void> {
    await writeAllowRules(this.#options.toolSettings, this.#options.agents, request.userId, {
      ...request,
      agentId: request.agentId ?? null,
    });
    this.#options.onRulesChanged?.(request.userId);
  }

  /** `POST /api/chats/:id/approvals/:callId`: 404 for an unknown call or another user's, 409 once decided or expired. */
  async answer(
    user: PolicySubject,
    chatId: string,
    callId: string,
    input: ApprovalAnswerInput,
  ): Promise<ApprovalView> {
    const { approvals } = this.#options;
    const record = await approvals.findLatest(user.id, chatId, callId);
    if (record === undefined) {
      throw new ToolportError(
        'not_found',
        `No approval is waiting for call ${JSON.stringify(callId)} in this chat.`,
        {
          details: { callId },
        },
      );
    }
    const remember = input.remember ?? 'call';
    const decided = await approvals.decide(record.id, {
      decision: input.decision,
      remember,
      message: input.message ?? null,
      decidedBy: `user:${user.id}`,
    });
    if (!decided) {
      const current = (await approvals.getById(record.id)) ?? record;
      throw new ToolportError(
        'conflict',
        current.status === 'pending' || current.status === 'expired'
          ? `The approval of call ${JSON.stringify(callId)} expired.`
          : `Call ${JSON.stringify(callId)} was already ${current.status}.`,
        { details: { callId, status: current.status === 'pending' ? 'expired' : current.status } },
      );
    }
    if (input.decision === 'approve' && remember === 'always') {
      await writeAllowRules(this.#options.toolSettings, this.#options.agents, user.id, record);
      this.#options.onRulesChanged?.(user.id);
    }
    this.#wakers.get(record.id)?.();
    const updated = (await approvals.getById(record.id)) ?? record;
    return toView(updated);
  }
}

/**
 * `remember: 'always'`: writes `allow` rules for exactly this call's subjects (the commands, the path or the tool
 * name, never the wildcard that matched) wherever a rule asked — the user's tool settings, the agent's tool row.
 */
export async function writeAllowRules(
  toolSettings: ToolSettingsRepository,
  agents: AgentRepository,
  userId: string,
  call: {
    toolName: string;
    subjects: readonly string[];
    askedBy: readonly ('user' | 'agent')[];
    agentId: string | null | undefined;
  },
): Promise<void> {
  const askedBy = call.askedBy.length === 0 ? ['user'] : call.askedBy;
  if (askedBy.includes('user')) {
    await toolSettings.update(userId, call.toolName, (current) => ({
      ...(current?.enabled === undefined ? {} : { enabled: current.enabled }),
      parameters: current?.parameters ?? {},
      ...(current?.approvalTimeoutSeconds === undefined
        ? {}
        : { approvalTimeoutSeconds: current.approvalTimeoutSeconds }),
      permission: withAllowRules(coerceStoredPermissionRule(current?.permission), call.subjects),
    }));
  }
  if (askedBy.includes('agent') && call.agentId !== null && call.agentId !== undefined) {
    const row = (await agents.listTools(userId, call.agentId)).find(
      (tool) => tool.toolName === call.toolName,
    );
    await agents.putTool(userId, call.agentId, call.toolName, {
      permission: withAllowRules(coerceStoredPermissionRule(row?.permission), call.subjects),
    });
  }
}
