/**
 * Issue 16: the permission gate executeTool runs before a tool. Core only defines the shapes; the rules (shell
 * parsing, path globs) live in `src/permissions/` and reach executeTool as a `PermissionCheck`.
 */

import type { PermissionSubjectKind } from './tool-types.ts';

export type PermissionAction = 'allow' | 'ask' | 'deny';

/** What the rules say about one call. */
export interface PermissionVerdict {
  action: PermissionAction;
  /** The rule that decided, as a user reads it (`"rm -rf *": "deny"`, `agent: "ask"`); absent for the default. */
  rule?: string;
  /** A sentence for the human and the model: why this call is allowed, asked or refused. */
  reason: string;
  /** How long a human has to answer an `ask` (the tool's `approvalTimeoutSeconds`). */
  approvalTimeoutMs?: number;
  /** What an `always` answer allows: the commands (shells), the path (file tools) or the tool name. */
  subjects?: readonly string[];
  /** Where the asking rule came from, so `always` writes the rule there (and the user's). */
  askedBy?: readonly ('user' | 'agent')[];
  /** True when a human already answered for this chat (`remember: 'session'`). */
  rememberedForSession?: boolean;
}

export interface PermissionCall {
  toolName: string;
  /** What the rule's patterns read: the tool's declared `permissionSubject` (default `name`). */
  subjectKind?: PermissionSubjectKind;
  /** The validated arguments. */
  arguments: Record<string, unknown>;
  workingDirectory: string | undefined;
  chatId: string | undefined;
}

/** Undefined when no rule applies to the tool (nothing to decide, nothing to audit). */
export type PermissionCheck = (
  call: PermissionCall,
) => PermissionVerdict | undefined | Promise<PermissionVerdict | undefined>;

export type ApprovalRemember = 'call' | 'session' | 'always';

/** `approval_requested`'s fields, plus what the approver needs to wait and remember. */
export interface ApprovalRequest {
  callId: string;
  toolName: string;
  arguments: Record<string, unknown>;
  /** The matched rule (`"*": "ask"`), as `approval_requested.reason` shows it. */
  reason: string;
  /** A sentence saying which part of the call matched it. */
  explanation: string;
  userId: string;
  chatId?: string;
  agentId?: string;
  timeoutMs: number;
  subjects: readonly string[];
  askedBy: readonly ('user' | 'agent')[];
  /** Aborts when the caller cancels: stop waiting. */
  signal?: AbortSignal;
}

export interface ApprovalDecision {
  decision: 'approve' | 'deny';
  remember?: ApprovalRemember;
  /** The human's words, read by the model on a deny. */
  message?: string;
  /** Who decided: `user:<id>`, `timeout`, `cli`, `cli --yes`, `mcp-client`… (recorded in the audit). */
  decidedBy?: string;
}

export type ApproveCallback = (request: ApprovalRequest) => Promise<ApprovalDecision>;

/** Recorded with the execution (issue 16 item 3) and shown by `GET /api/executions`. */
export interface ApprovalAudit {
  decision: 'approve' | 'deny';
  decidedBy: string;
  rule: string | null;
  remember: ApprovalRemember | null;
  decidedAt: string;
}

export const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 300;
export const MIN_APPROVAL_TIMEOUT_SECONDS = 5;
export const MAX_APPROVAL_TIMEOUT_SECONDS = 3600;
