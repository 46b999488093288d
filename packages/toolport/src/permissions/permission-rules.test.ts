import { describe, expect, it } from 'vitest';
import { runApprovalGate } from '../core/approval-gate.ts';
import { evaluateRule } from './evaluate-rule.ts';
import { createPermissionCheck } from './permission-check.ts';
import { parsePermissionRule, withAllowRules } from './permission-rule.ts';
import { parseShellLine } from './shell-commands.ts';

const DONE_WHEN = { '*': 'ask', 'git status*': 'allow', 'rm -rf *': 'deny' } as const;
const shell = (command: string, rule: Parameters<typeof evaluateRule>[0] = DONE_WHEN) =>
  evaluateRule(rule, 'bash', { command }, '/work');

describe('issue 16 shell rules: every simple command of the parsed line', () => {
  it.each([
    ['git status', 'allow'],
    ['git status --short', 'allow'],
    ['touch build/x', 'ask'],
    ['rm -rf build', 'deny'],
    ['git status; rm -rf build', 'deny'],
    ['git status && rm -rf build', 'deny'],
    ['git status || touch x', 'ask'],
    ['git status | rm -rf build', 'deny'],
    ['(cd x; rm -rf build)', 'deny'],
    ['{ git status; }', 'allow'],
    ['git status $(rm -rf build)', 'deny'],
    ['git status `rm -rf build`', 'deny'],
    ['echo "$(rm -rf build)"', 'deny'],
    ['"rm" -rf \'build\'', 'deny'],
    ['r\\m -rf build', 'deny'],
    ['FOO=1 rm -rf build > out', 'deny'],
    ['git status "a; rm -rf build"', 'allow'],
    ['$CMD -rf build', 'ask'],
    ['r? -rf build', 'ask'],
    ['{rm,x} -rf build', 'ask'],
    ['git   status', 'allow'],
    ['FOO=1 git status', 'allow'],
    ['git status\nrm -rf build', 'deny'],
    ['git status # rm -rf build', 'allow'],
    ['echo "unterminated', 'ask'],
  ])('%s → %s', (command, action) => {
    expect(shell(command).action).toBe(action);
  });

  it('"a*" does not allow `a && rm -rf x`; the last matching pattern wins', () => {
    expect(shell('a && rm -rf x', { '*': 'ask', 'a*': 'allow' }).action).toBe('ask');
    expect(shell('rm -rf x', { 'rm -rf *': 'deny', '*': 'allow' }).action).toBe('allow');
  });

  it('names the deciding rule and the exact commands an always would allow', () => {
    const verdict = shell('git status && touch b*');
    expect(verdict).toMatchObject({ action: 'ask', rule: '"*": "ask"', subjects: ['touch b\\*'] });
    expect(withAllowRules(DONE_WHEN, verdict.subjects)).toEqual({ ...DONE_WHEN, 'touch b\\*': 'allow' });
    expect(shell('touch b*', withAllowRules(DONE_WHEN, verdict.subjects)).action).toBe('allow');
    expect(shell('touch bx', withAllowRules(DONE_WHEN, verdict.subjects)).action).toBe('ask');
  });

  it('parses subshells, substitutions and quotes with a real parser', () => {
    const parsed = parseShellLine('a; (b && c) | d $(e "f g") \'h;i\'');
    expect(parsed.ok && parsed.commands.map((command) => command.text)).toEqual([
      'a',
      'b',
      'c',
      'd $(e "f g") h;i',
      'e f g',
    ]);
  });
});

describe('issue 16 path and name rules', () => {
  const rule = { '*': 'ask', 'src/**': 'allow', '**/.env': 'deny' } as const;
  it.each([
    ['src/a/b.ts', 'allow'],
    ['/work/src/x.ts', 'allow'],
    ['docs/x.md', 'ask'],
    ['src/../docs/x.md', 'ask'],
    ['src/.env', 'deny'],
    ['/etc/passwd', 'ask'],
  ])('write_file %s → %s (relative to the working directory)', (path, action) => {
    expect(evaluateRule(rule, 'write_file', { path, content: '' }, '/work').action).toBe(action);
  });

  it('MCP and custom tools match their name, with wildcards', () => {
    const names = { '*': 'ask', 'github_*': 'allow', 'github_delete_*': 'deny' } as const;
    expect(evaluateRule(names, 'github_list_issues', {}, undefined).action).toBe('allow');
    expect(evaluateRule(names, 'github_delete_repo', {}, undefined).action).toBe('deny');
    expect(evaluateRule(names, 'slack_post', {}, undefined).action).toBe('ask');
  });
});

describe('issue 16 rule validation and precedence', () => {
  it('accepts actions and ordered objects, refuses the rest', () => {
    expect(parsePermissionRule('ask')).toBe('ask');
    expect(Object.keys(parsePermissionRule({ b: 'ask', a: 'allow' }))).toEqual(['b', 'a']);
    for (const bad of ['maybe', {}, { x: 'sometimes' }, { '7': 'ask' }, [], null, 1])
      expect(() => parsePermissionRule(bad)).toThrow(/permission/);
  });

  it('between user and agent the stricter wins (deny over ask over allow)', async () => {
    const check = (user: unknown, agent: unknown) =>
      createPermissionCheck({
        rulesFor: () => ({ user: parsePermissionRule(user), agent: parsePermissionRule(agent) }),
      })({
        toolName: 'bash',
        subjectKind: 'shell',
        arguments: { command: 'ls' },
        workingDirectory: '/w',
        chatId: undefined,
      });
    expect((await check('allow', 'ask'))?.action).toBe('ask');
    expect((await check('ask', 'allow'))?.action).toBe('ask');
    expect((await check({ '*': 'allow' }, { 'ls*': 'deny' }))?.action).toBe('deny');
    expect((await check('deny', 'allow'))?.rule).toBe('"deny"');
    expect((await check('allow', 'deny'))?.rule).toBe('agent rule "deny"');
  });

  it('an ask without an approver is refused; the library approve callback decides otherwise', async () => {
    const permission = createPermissionCheck({ rulesFor: () => ({ user: 'ask' }) });
    const call = {
      callId: 'c1',
      toolName: 'bash',
      subjectKind: 'shell' as const,
      arguments: { command: 'ls' },
      userId: 'u',
      chatId: undefined,
      agentId: undefined,
      workingDirectory: undefined,
      signal: undefined,
    };
    expect((await runApprovalGate(permission, undefined, call)).refusal?.code).toBe('permission_denied');
    const approved = await runApprovalGate(
      permission,
      async () => ({ decision: 'approve', decidedBy: 'me' }),
      call,
    );
    expect(approved.refusal).toBeUndefined();
    expect(approved.audit).toMatchObject({
      decision: 'approve',
      decidedBy: 'me',
      rule: '"ask"',
      remember: 'call',
    });
    const denied = await runApprovalGate(
      permission,
      async () => ({ decision: 'deny', message: 'use ls -la' }),
      call,
    );
    expect(denied.refusal?.message).toContain('use ls -la');
  });
});
