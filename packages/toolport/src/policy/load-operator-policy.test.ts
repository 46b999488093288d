import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isToolportError } from '../core/errors.ts';
import { loadOperatorPolicy } from './load-operator-policy.ts';
import { DEFAULT_OPERATOR_POLICY } from './operator-policy.ts';

const directories: string[] = [];
function dataDirectory(policy?: unknown): string {
  const directory = mkdtempSync(join(tmpdir(), 'toolport-policy-load-'));
  directories.push(directory);
  if (policy !== undefined)
    writeFileSync(
      join(directory, 'policy.json'),
      typeof policy === 'string' ? policy : JSON.stringify(policy),
    );
  return directory;
}
const load = (directory: string, env: Record<string, string> = {}, file?: string) =>
  loadOperatorPolicy({
    dataDirectory: directory,
    databaseFile: join(directory, 'toolport.db'),
    env,
    cwd: directory,
    file,
  });
function failure(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(isToolportError(error) && error.code).toBe('validation_failed');
    return (error as Error).message;
  }
  throw new Error('expected the policy to be refused');
}

afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe('AUTH-2 loadOperatorPolicy', () => {
  it('uses the defaults without a policy file, denying /proc, /sys, /dev, the data dir and the database file', () => {
    const directory = dataDirectory();
    const { policy, source } = load(directory);
    expect(source).toBeUndefined();
    expect(policy.tools).toEqual(DEFAULT_OPERATOR_POLICY.tools);
    expect(policy.deniedPaths).toEqual(['/proc', '/sys', '/dev', directory, join(directory, 'toolport.db')]);
    expect(Object.isFrozen(policy) && Object.isFrozen(policy.tools.adminOnly)).toBe(true);
  });

  it('merges objects key by key and replaces arrays, but deniedPaths never drops the mandatory entries', () => {
    const directory = dataDirectory({
      tools: { adminOnly: [] },
      mcp: { remote: 'admins' },
      deniedPaths: ['/srv/private'],
    });
    const { policy, source } = load(directory);
    expect(source).toBe(join(directory, 'policy.json'));
    expect(policy.tools).toEqual({ disabled: [], adminOnly: [] });
    expect(policy.mcp).toEqual({ ...DEFAULT_OPERATOR_POLICY.mcp, remote: 'admins' });
    expect(policy.deniedPaths).toEqual([
      '/proc',
      '/sys',
      '/dev',
      directory,
      join(directory, 'toolport.db'),
      '/srv/private',
    ]);
  });

  it('applies the environment overrides over the file', () => {
    const directory = dataDirectory({ workspaceRoots: ['/from/file'], outboundAllow: '10.0.0.0/8' });
    const { policy } = load(directory, {
      TOOLPORT_WORKSPACE_ROOTS: '/srv/a:/srv/b',
      TOOLPORT_CODE_TOOL_ROOTS: '/opt/tools',
      TOOLPORT_OUTBOUND_ALLOW: '127.0.0.1',
      TOOLPORT_DENIED_PATHS: '/srv/a/secrets',
    });
    expect(policy.workspaceRoots).toEqual(['/srv/a', '/srv/b']);
    expect(policy.codeToolRoots).toEqual(['/opt/tools']);
    expect(policy.outboundAllow).toBe('127.0.0.1');
    expect(policy.deniedPaths).toContain('/srv/a/secrets');
  });

  it('refuses a file that does not validate, naming the JSON path and what was expected', () => {
    expect(failure(() => load(dataDirectory({ tools: { adminOnly: [1] } })))).toMatch(
      /\/tools\/adminOnly\/0 must be string/,
    );
    expect(failure(() => load(dataDirectory({ mcp: { stdio: 'everyone' } })))).toMatch(
      /\/mcp\/stdio must be one of "users", "admins", "none"/,
    );
    expect(failure(() => load(dataDirectory({ shells: true })))).toMatch(/\/shells is not a policy key/);
    expect(failure(() => load(dataDirectory({ workspaceRoots: ['relative/dir'] })))).toMatch(
      /\/workspaceRoots\/0 must be an absolute path/,
    );
    expect(failure(() => load(dataDirectory({ outboundAllow: '10.0.0.0/40' })))).toMatch(
      /\/outboundAllow .*Invalid CIDR/,
    );
    expect(failure(() => load(dataDirectory('{not json')))).toMatch(/is not valid JSON/);
    expect(failure(() => load(dataDirectory('[]')))).toMatch(/must be a JSON object/);
  });

  it('reads --policy FILE (or TOOLPORT_POLICY) instead, and fails when that file is missing', () => {
    const directory = dataDirectory({ tools: { disabled: ['glob'] } });
    const other = join(directory, 'other.json');
    writeFileSync(other, JSON.stringify({ tools: { disabled: ['grep'] } }));
    expect(load(directory, {}, 'other.json').policy.tools.disabled).toEqual(['grep']);
    expect(load(directory, { TOOLPORT_POLICY: other }).policy.tools.disabled).toEqual(['grep']);
    expect(failure(() => load(directory, {}, 'missing.json'))).toMatch(/Cannot read the policy file/);
  });
});
