import {
  DEFAULT_APPROVAL_TIMEOUT_SECONDS,
  type PermissionCall,
  type PermissionCheck,
  type PermissionVerdict,
} from '../core/tool-approval.ts';
import { evaluateRule, type RuleVerdict } from './evaluate-rule.ts';
import { isStricter, type PermissionRule } from './permission-rule.ts';

/** A tool's rules for one runtime: the user's (tool settings) and the agent's (agent tool row). */
export interface ToolPermissionRules {
  user?: PermissionRule;
  agent?: PermissionRule;
  approvalTimeoutSeconds?: number;
}

export interface PermissionCheckOptions {
  rulesFor: (toolName: string) => ToolPermissionRules | undefined;
  /** `remember: 'session'`: whether a human already approved these subjects of this tool in this chat. */
  isApprovedForSession?: (call: PermissionCall, subjects: readonly string[]) => Promise<boolean>;
}

/**
 * Issue 16: the gate a runtime gives executeTool. Evaluates the user's and the agent's rule and keeps the stricter
 * (an agent narrows, never widens); an `ask` already answered with `session` in this chat becomes an allow.
 * Returns undefined when the tool has no rule at all (nothing to audit).
 */
export function createPermissionCheck(options: PermissionCheckOptions): PermissionCheck {
  return (call) => {
    const rules = options.rulesFor(call.toolName);
    if (rules === undefined || (rules.user === undefined && rules.agent === undefined)) {
      return undefined;
    }
    // The tool's own declaration (a built-in shell or file tool); any other tool is matched by its name.
    const kind = call.subjectKind ?? 'name';
    const verdicts: { by: 'user' | 'agent'; verdict: RuleVerdict }[] = [];
    if (rules.user !== undefined)
      verdicts.push({
        by: 'user',
        verdict: evaluateRule(rules.user, call.toolName, call.arguments, call.workingDirectory, kind),
      });
    if (rules.agent !== undefined)
      verdicts.push({
        by: 'agent',
        verdict: evaluateRule(rules.agent, call.toolName, call.arguments, call.workingDirectory, kind),
      });
    let deciding = verdicts[0]!;
    for (const candidate of verdicts.slice(1))
      if (isStricter(candidate.verdict.action, deciding.verdict.action)) deciding = candidate;
    const { action } = deciding.verdict;
    const prefix = deciding.by === 'agent' ? 'agent rule ' : '';
    const verdict: PermissionVerdict = {
      action,
      rule: `${prefix}${deciding.verdict.rule}`,
      reason: deciding.verdict.reason,
      approvalTimeoutMs: (rules.approvalTimeoutSeconds ?? DEFAULT_APPROVAL_TIMEOUT_SECONDS) * 1000,
      subjects: [
        ...new Set(verdicts.filter((v) => v.verdict.action === 'ask').flatMap((v) => v.verdict.subjects)),
      ],
      askedBy: verdicts.filter((v) => v.verdict.action === 'ask').map((v) => v.by),
    };
    if (action !== 'ask' || options.isApprovedForSession === undefined || call.chatId === undefined)
      return verdict;
    return options
      .isApprovedForSession(call, verdict.subjects ?? [])
      .then((approved): PermissionVerdict =>
        approved ? { ...verdict, action: 'allow', rememberedForSession: true } : verdict,
      );
  };
}
