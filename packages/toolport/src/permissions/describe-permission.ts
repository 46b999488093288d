import type { PermissionAction } from '../core/tool-approval.ts';
import type { ToolPermissionRules } from './permission-check.ts';
import type { PermissionRule } from './permission-rule.ts';

function actionsOf(rule: PermissionRule | undefined): PermissionAction[] {
  if (rule === undefined) return [];
  return typeof rule === 'string' ? [rule] : Object.values(rule);
}

/** The capability inspector's view of a tool's rules: which would ask, which refuse everything. */
export function describePermission(rules: ToolPermissionRules | undefined): {
  user: PermissionRule | null;
  agent: PermissionRule | null;
  mayAsk: boolean;
  alwaysDenied: boolean;
} {
  const all = [...actionsOf(rules?.user), ...actionsOf(rules?.agent)];
  return {
    user: rules?.user ?? null,
    agent: rules?.agent ?? null,
    mayAsk: all.includes('ask'),
    alwaysDenied: rules?.user === 'deny' || rules?.agent === 'deny',
  };
}
