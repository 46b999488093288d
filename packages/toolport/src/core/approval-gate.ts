import type { ToolErrorPayload } from './execute-tool.ts';
import type {
  ApprovalAudit,
  ApprovalDecision,
  ApproveCallback,
  PermissionCheck,
  PermissionVerdict,
} from './tool-approval.ts';
import { DEFAULT_APPROVAL_TIMEOUT_SECONDS } from './tool-approval.ts';
import type { PermissionSubjectKind } from './tool-types.ts';

export interface GateCall {
  callId: string;
  toolName: string;
  /** The tool's declared `permissionSubject`. */
  subjectKind: PermissionSubjectKind | undefined;
  arguments: Record<string, unknown>;
  userId: string;
  chatId: string | undefined;
  agentId: string | undefined;
  workingDirectory: string | undefined;
  signal: AbortSignal | undefined;
}

export interface GateOutcome {
  audit?: ApprovalAudit;
  /** Set when the call must not run. */
  refusal?: ToolErrorPayload;
}

function audit(
  decision: ApprovalAudit['decision'],
  decidedBy: string,
  verdict: PermissionVerdict,
  remember: ApprovalAudit['remember'] = null,
): ApprovalAudit {
  return { decision, decidedBy, rule: verdict.rule ?? null, remember, decidedAt: new Date().toISOString() };
}

function waitForDecision(
  approve: ApproveCallback,
  call: GateCall,
  verdict: PermissionVerdict,
): Promise<ApprovalDecision | 'aborted'> {
  const { signal } = call;
  if (signal?.aborted) return Promise.resolve('aborted');
  return new Promise((resolve) => {
    const onAbort = (): void => resolve('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });
    approve({
      callId: call.callId,
      toolName: call.toolName,
      arguments: call.arguments,
      reason: verdict.rule ?? verdict.reason,
      explanation: verdict.reason,
      userId: call.userId,
      ...(call.chatId === undefined ? {} : { chatId: call.chatId }),
      ...(call.agentId === undefined ? {} : { agentId: call.agentId }),
      timeoutMs: verdict.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_SECONDS * 1000,
      subjects: verdict.subjects ?? [],
      askedBy: verdict.askedBy ?? [],
      ...(signal === undefined ? {} : { signal }),
    })
      .catch((error: unknown): ApprovalDecision => ({
        decision: 'deny',
        decidedBy: 'error',
        message: `the approval could not be asked (${error instanceof Error ? error.message : String(error)})`,
      }))
      .then((decision) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(decision);
      });
  });
}

/**
 * Issue 16: runs the permission rules before a tool (outside its time budget). `deny` refuses unasked; `ask` waits
 * for `approve` (refused when there is none); every decision made by a rule or a human comes back as an audit entry.
 */
export async function runApprovalGate(
  check: PermissionCheck,
  approve: ApproveCallback | undefined,
  call: GateCall,
): Promise<GateOutcome> {
  const verdict = await check({
    toolName: call.toolName,
    ...(call.subjectKind === undefined ? {} : { subjectKind: call.subjectKind }),
    arguments: call.arguments,
    workingDirectory: call.workingDirectory,
    chatId: call.chatId,
  });
  if (verdict === undefined) return {};
  const { toolName } = call;
  const details = { rule: verdict.rule ?? null };
  if (verdict.action === 'allow') {
    return {
      audit: verdict.rememberedForSession
        ? audit('approve', 'session', verdict, 'session')
        : audit('approve', 'rule', verdict),
    };
  }
  if (verdict.action === 'deny') {
    return {
      audit: audit('deny', 'rule', verdict),
      refusal: {
        code: 'permission_denied',
        message: `${toolName} was refused by its permission rule ${verdict.rule ?? ''}: ${verdict.reason} Do not retry it; choose another way or ask the user.`,
        details,
      },
    };
  }
  if (approve === undefined) {
    return {
      audit: audit('deny', 'no approver', verdict),
      refusal: {
        code: 'permission_denied',
        message: `${toolName} needs a human's approval (${verdict.reason}), and no one can approve calls here, so it was not run.`,
        details,
      },
    };
  }
  const decision = await waitForDecision(approve, call, verdict);
  if (decision === 'aborted') {
    return { refusal: { code: 'aborted', message: `${toolName} was cancelled while waiting for approval.` } };
  }
  const decidedBy = decision.decidedBy ?? 'approver';
  if (decision.decision === 'approve') {
    return { audit: audit('approve', decidedBy, verdict, decision.remember ?? 'call') };
  }
  const said = decision.message === undefined || decision.message === '' ? '' : `: ${decision.message}`;
  return {
    audit: audit('deny', decidedBy, verdict, decision.remember ?? 'call'),
    refusal: {
      code: 'permission_denied',
      message:
        decidedBy === 'timeout'
          ? `${toolName} was not run: nobody approved it within ${Math.round((verdict.approvalTimeoutMs ?? 0) / 1000)} s${said}.`
          : `The user denied this ${toolName} call${said === '' ? '.' : said}`,
      details: { ...details, decidedBy },
    },
  };
}
