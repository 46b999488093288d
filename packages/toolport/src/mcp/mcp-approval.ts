import type { ApprovalDecision, ApprovalRequest } from '../core/tool-approval.ts';

/*
 * Issue 16 over MCP: a call a permission rule marks `ask` is put to the human through the client's elicitation
 * (`elicitation/create`) when the client declared the capability; otherwise it is denied with a message saying why.
 * Imports core only: the lean stdio server must not load the SDK.
 */

export interface McpElicitResult {
  action?: unknown;
  content?: unknown;
}

export function elicitationParams(request: ApprovalRequest): Record<string, unknown> {
  return {
    mode: 'form',
    message:
      `toolport: approve ${request.toolName} ${JSON.stringify(request.arguments)}? ` +
      `(permission rule ${request.reason}) Accept to run it, decline to refuse it.`,
    requestedSchema: {
      type: 'object',
      properties: {
        always: {
          type: 'boolean',
          title: 'Always allow exactly this call',
          description: 'Adds an allow rule for this command, path or tool to your tool settings.',
          default: false,
        },
      },
    },
  };
}

export function decisionFromElicitation(result: McpElicitResult): ApprovalDecision {
  if (result.action === 'accept') {
    const content = typeof result.content === 'object' && result.content !== null ? result.content : {};
    const always = (content as Record<string, unknown>).always === true;
    return { decision: 'approve', decidedBy: 'mcp-client', remember: always ? 'always' : 'call' };
  }
  return {
    decision: 'deny',
    decidedBy: 'mcp-client',
    message: result.action === 'cancel' ? 'the user dismissed the approval' : 'the user declined',
  };
}

export function noElicitationDecision(request: ApprovalRequest): ApprovalDecision {
  return {
    decision: 'deny',
    decidedBy: 'mcp (no elicitation)',
    message: `${request.toolName} needs a human's approval (permission rule ${request.reason}), and this MCP client does not support elicitation, so it was denied`,
  };
}

/**
 * Puts one `ask` to the human through `elicit` (an `elicitation/create` round trip), or refuses it when the client
 * cannot elicit. The tool's `approvalTimeoutSeconds` bounds the wait, as in chat turns: a client that never answers
 * (or whose answer reached another `/mcp` instance) denies.
 */
export async function askThroughElicitation(
  request: ApprovalRequest,
  elicit: ((params: Record<string, unknown>, signal: AbortSignal) => Promise<unknown>) | undefined,
  signal: AbortSignal,
): Promise<ApprovalDecision> {
  if (elicit === undefined) return noElicitationDecision(request);
  const expiry = new AbortController();
  const timer = setTimeout(() => expiry.abort(), request.timeoutMs);
  try {
    const result = await elicit(
      elicitationParams(request),
      AbortSignal.any([request.signal ?? signal, expiry.signal]),
    );
    return decisionFromElicitation(
      typeof result === 'object' && result !== null ? (result as McpElicitResult) : {},
    );
  } catch (error) {
    if (expiry.signal.aborted) return { decision: 'deny', decidedBy: 'timeout' };
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
