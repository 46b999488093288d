import type { OperatorPolicy } from './operator-policy.ts';
import { policyDenied, type PolicySubject } from './policy-denied.ts';

/** What `GET /api/settings/tools` shows per tool: whether the policy lets this user enable it, and why not. */
export interface ToolPolicyVerdict {
  allowed: boolean;
  reason?: string;
}

const ALLOWED: ToolPolicyVerdict = Object.freeze({ allowed: true });

/** `tools.disabled`: the tool does not exist on this server, for anyone (not listed, not executable). */
export function isToolRemovedByPolicy(policy: OperatorPolicy, toolName: string): boolean {
  return policy.tools.disabled.includes(toolName);
}

/** `tools.adminOnly`: listed for everyone, enabled (and run) only by admins. */
export function toolPolicyVerdict(
  policy: OperatorPolicy,
  user: PolicySubject,
  toolName: string,
): ToolPolicyVerdict {
  if (user.isAdmin || !policy.tools.adminOnly.includes(toolName)) return ALLOWED;
  return { allowed: false, reason: adminOnlyMessage(toolName) };
}

export function assertToolMayBeEnabled(policy: OperatorPolicy, user: PolicySubject, toolName: string): void {
  const verdict = toolPolicyVerdict(policy, user, toolName);
  if (!verdict.allowed) throw policyDenied('tools.adminOnly', verdict.reason!, { toolName });
}

function adminOnlyMessage(toolName: string): string {
  return (
    `policy "tools.adminOnly" does not allow non-admin users to enable ${toolName}: ` +
    "it runs with the server's privileges. Ask the operator (an admin) if you need it."
  );
}
