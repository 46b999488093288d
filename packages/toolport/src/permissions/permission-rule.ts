import { ToolSettingsError } from '../core/errors.ts';
import type { PermissionAction } from '../core/tool-approval.ts';
import { MAX_APPROVAL_TIMEOUT_SECONDS, MIN_APPROVAL_TIMEOUT_SECONDS } from '../core/tool-approval.ts';

/**
 * Issue 16, opencode's shape: an action for every call, or an ordered object of pattern → action where the last
 * matching pattern wins. Object key order is the evaluation order (JSON objects keep insertion order for non-integer
 * keys; a pattern that is a bare integer like `"7"` would be reordered by JavaScript, so it is refused).
 */
export type PermissionRule = PermissionAction | Readonly<Record<string, PermissionAction>>;

export const PERMISSION_ACTIONS: readonly PermissionAction[] = ['allow', 'ask', 'deny'];

const STRICTNESS: Record<PermissionAction, number> = { allow: 0, ask: 1, deny: 2 };

export function isPermissionAction(value: unknown): value is PermissionAction {
  return typeof value === 'string' && (PERMISSION_ACTIONS as readonly string[]).includes(value);
}

/** deny over ask over allow. */
export function stricterAction(a: PermissionAction, b: PermissionAction): PermissionAction {
  return STRICTNESS[a] >= STRICTNESS[b] ? a : b;
}

export function isStricter(a: PermissionAction, b: PermissionAction): boolean {
  return STRICTNESS[a] > STRICTNESS[b];
}

const MAX_PATTERNS = 500;
const MAX_PATTERN_LENGTH = 4096;

/** Validates a rule from the API (422 naming `permission`), returning a fresh copy in the same order. */
export function parsePermissionRule(value: unknown, field = 'permission'): PermissionRule {
  if (isPermissionAction(value)) return value;
  if (typeof value === 'string') {
    throw new ToolSettingsError(
      `\`${field}\` must be "allow", "ask" or "deny", or an object of pattern → action; received ${JSON.stringify(value)}.`,
      field,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ToolSettingsError(
      `\`${field}\` must be "allow", "ask" or "deny", or an object of pattern → action.`,
      field,
    );
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) throw new ToolSettingsError(`\`${field}\` has no patterns.`, field);
  if (entries.length > MAX_PATTERNS) {
    throw new ToolSettingsError(`\`${field}\` has more than ${MAX_PATTERNS} patterns.`, field);
  }
  const rule: Record<string, PermissionAction> = {};
  for (const [pattern, action] of entries) {
    if (pattern === '' || pattern.length > MAX_PATTERN_LENGTH) {
      throw new ToolSettingsError(
        `\`${field}\` has an empty or overlong pattern (1–${MAX_PATTERN_LENGTH} characters).`,
        field,
      );
    }
    if (/^(0|[1-9]\d*)$/.test(pattern)) {
      throw new ToolSettingsError(
        `\`${field}\` pattern ${JSON.stringify(pattern)} is a bare number, which JSON objects reorder; write it as a glob (e.g. "${pattern}*").`,
        field,
      );
    }
    if (!isPermissionAction(action)) {
      throw new ToolSettingsError(
        `\`${field}\` pattern ${JSON.stringify(pattern)} must map to "allow", "ask" or "deny"; received ${JSON.stringify(action)}.`,
        field,
      );
    }
    rule[pattern] = action;
  }
  return rule;
}

/** A stored rule that no longer validates is treated as `ask` (fail closed, never silently allow). */
export function coerceStoredPermissionRule(value: unknown): PermissionRule | undefined {
  if (value === undefined || value === null) return undefined;
  try {
    return parsePermissionRule(value);
  } catch {
    return 'ask';
  }
}

export function parseApprovalTimeoutSeconds(value: unknown, field = 'approvalTimeoutSeconds'): number {
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < MIN_APPROVAL_TIMEOUT_SECONDS ||
    value > MAX_APPROVAL_TIMEOUT_SECONDS
  ) {
    throw new ToolSettingsError(
      `\`${field}\` must be an integer between ${MIN_APPROVAL_TIMEOUT_SECONDS} and ${MAX_APPROVAL_TIMEOUT_SECONDS} s.`,
      field,
    );
  }
  return value;
}

/** The rule with `subject → allow` appended for each subject (last match wins, so it overrides earlier patterns). */
export function withAllowRules(
  rule: PermissionRule | undefined,
  patterns: readonly string[],
): PermissionRule {
  const base: Record<string, PermissionAction> =
    rule === undefined ? {} : typeof rule === 'string' ? { '*': rule } : { ...rule };
  for (const pattern of patterns) {
    delete base[pattern];
    base[pattern] = 'allow';
  }
  return base;
}

export function describeRule(pattern: string | undefined, action: PermissionAction): string {
  return pattern === undefined
    ? JSON.stringify(action)
    : `${JSON.stringify(pattern)}: ${JSON.stringify(action)}`;
}
