import path from 'node:path';
import picomatch from 'picomatch';
import type { PermissionAction } from '../core/tool-approval.ts';
import type { PermissionSubjectKind } from '../core/tool-types.ts';
import { describeRule, isStricter, stricterAction, type PermissionRule } from './permission-rule.ts';
import { parseShellLine } from './shell-commands.ts';
import { escapeWildcard, matchesWildcard } from './wildcard.ts';

export type { PermissionSubjectKind };

const SHELL_TOOLS = new Set(['bash', 'zsh']);
const PATH_TOOLS = new Set(['read_file', 'write_file', 'edit_file', 'list_directory', 'glob', 'grep']);

/**
 * The subject kind the built-in tool of this name declares (`RegisteredTool.permissionSubject`), for callers that
 * evaluate a rule without the tool at hand. The gate uses the running tool's own declaration instead, so a code or
 * MCP tool that happens to be named `bash` is matched by its name, never as a shell line it has no `command` for.
 */
export function permissionKindFor(toolName: string): PermissionSubjectKind {
  if (SHELL_TOOLS.has(toolName)) return 'shell';
  if (toolName === 'powershell') return 'powershell';
  if (PATH_TOOLS.has(toolName)) return 'path';
  return 'name';
}

export interface RuleVerdict {
  action: PermissionAction;
  /** The deciding pattern as a user reads it; the bare action for a string rule. */
  rule: string;
  reason: string;
  /** Exact patterns for the subjects that decided (what `always` writes for an `ask`). */
  subjects: string[];
}

interface Subject {
  /** The text patterns are matched against. */
  text: string;
  /** The pattern that matches exactly this subject. */
  exact: string;
  /** At least this strict, whatever the patterns say (a dynamic command name, an unparsable line). */
  floor?: { action: PermissionAction; why: string };
}

function matchOne(
  rule: Readonly<Record<string, PermissionAction>>,
  matches: (pattern: string) => boolean,
): { pattern: string; action: PermissionAction } | undefined {
  let found: { pattern: string; action: PermissionAction } | undefined;
  for (const [pattern, action] of Object.entries(rule)) if (matches(pattern)) found = { pattern, action };
  return found;
}

const PATH_GLOB_SPECIALS = /[\\*?[\]{}()!+@]/g;

/** A model path as rules see it: relative to the chat's working directory when inside it, absolute otherwise. */
export function pathSubject(input: string, workingDirectory: string | undefined): string {
  const base = workingDirectory ?? process.cwd();
  const absolute = path.resolve(base, input);
  const relative = path.relative(base, absolute);
  if (relative === '') return '.';
  if (relative.startsWith('..') || path.isAbsolute(relative)) return absolute.split(path.sep).join('/');
  return relative.split(path.sep).join('/');
}

function subjectsFor(
  kind: PermissionSubjectKind,
  toolName: string,
  args: Record<string, unknown>,
  workingDirectory: string | undefined,
): Subject[] {
  if (kind === 'shell') {
    const line = typeof args.command === 'string' ? args.command : '';
    const parsed = parseShellLine(line);
    if (!parsed.ok) {
      return [
        {
          text: line,
          exact: escapeWildcard(line),
          floor: { action: 'ask', why: `the line could not be parsed (${parsed.error})` },
        },
      ];
    }
    return parsed.commands.map((command) => ({
      text: command.text,
      exact: escapeWildcard(command.text),
      ...(command.dynamicName
        ? { floor: { action: 'ask' as const, why: 'the command name is computed at run time' } }
        : {}),
    }));
  }
  if (kind === 'powershell') {
    const line = typeof args.command === 'string' ? args.command : '';
    // No PowerShell parser: a line that could chain or substitute commands is never allowed by a pattern alone.
    const chained = /[;|&\n`]|\$\(/.test(line);
    return [
      {
        text: line,
        exact: escapeWildcard(line),
        ...(chained ? { floor: { action: 'ask' as const, why: 'the line may run several commands' } } : {}),
      },
    ];
  }
  if (kind === 'path') {
    const input = typeof args.path === 'string' && args.path !== '' ? args.path : '.';
    const text = pathSubject(input, workingDirectory);
    return [{ text, exact: text.replace(PATH_GLOB_SPECIALS, (char) => `\\${char}`) }];
  }
  return [{ text: toolName, exact: escapeWildcard(toolName) }];
}

function patternMatcher(kind: PermissionSubjectKind, text: string): (pattern: string) => boolean {
  // A lone `*` is "every call" in every rule kind (opencode's catch-all), not picomatch's "one segment".
  if (kind === 'path') return (pattern) => pattern === '*' || picomatch.isMatch(text, pattern, { dot: true });
  return (pattern) => matchesWildcard(pattern, text);
}

/**
 * One rule against one call. A string rule is that action for every call. An object rule is matched per subject,
 * last match wins, no match allows; over a shell line's commands the strictest decision wins.
 */
export function evaluateRule(
  rule: PermissionRule,
  toolName: string,
  args: Record<string, unknown>,
  workingDirectory: string | undefined,
  kind: PermissionSubjectKind = permissionKindFor(toolName),
): RuleVerdict {
  if (typeof rule === 'string') {
    return {
      action: rule,
      rule: describeRule(undefined, rule),
      reason: `${toolName} is set to ${JSON.stringify(rule)}.`,
      subjects:
        rule === 'allow' ? [] : subjectsFor(kind, toolName, args, workingDirectory).map((s) => s.exact),
    };
  }
  let strictest: RuleVerdict | undefined;
  const subjects = subjectsFor(kind, toolName, args, workingDirectory);
  for (const subject of subjects) {
    const match = matchOne(rule, patternMatcher(kind, subject.text));
    let action: PermissionAction = match?.action ?? 'allow';
    const ruleText = match === undefined ? 'no pattern matched' : describeRule(match.pattern, match.action);
    let reason =
      match === undefined
        ? `${JSON.stringify(subject.text)} matches no pattern of ${toolName}'s rule.`
        : `${JSON.stringify(subject.text)} matches ${ruleText}.`;
    if (subject.floor !== undefined && isStricter(subject.floor.action, action)) {
      action = stricterAction(action, subject.floor.action);
      reason = `${JSON.stringify(subject.text)}: ${subject.floor.why}, so it is at least ${JSON.stringify(subject.floor.action)}.`;
    }
    if (strictest === undefined || isStricter(action, strictest.action)) {
      strictest = { action, rule: ruleText, reason, subjects: [subject.exact] };
    } else if (action === strictest.action && !strictest.subjects.includes(subject.exact)) {
      strictest.subjects.push(subject.exact);
    }
  }
  // An empty line (only assignments or comments) runs nothing a pattern could name.
  return (
    strictest ?? { action: 'allow', rule: 'no command', reason: 'The line runs no command.', subjects: [] }
  );
}
