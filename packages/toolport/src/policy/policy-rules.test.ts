import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isToolportError } from '../core/errors.ts';
import type { McpServerConfig } from '../mcp/mcp-server-config.ts';
import { deniedChildEnvironmentNames } from './child-environment.ts';
import { fileAccessFor } from './file-access.ts';
import { mcpOAuthPolicyRefusal, mcpServerPolicyRefusal } from './mcp-server-access.ts';
import { DEFAULT_OPERATOR_POLICY, type OperatorPolicy } from './operator-policy.ts';
import { assertWorkingDirectoryAllowed } from './workspace-roots.ts';

const admin = { id: 'a', isAdmin: true };
const user = { id: 'u', isAdmin: false };
const withPolicy = (changes: Partial<OperatorPolicy>): OperatorPolicy => ({
  ...DEFAULT_OPERATOR_POLICY,
  ...changes,
});
const stdio = (command: string, env?: Record<string, string>): McpServerConfig => ({
  id: 's',
  name: 'server',
  enabled: true,
  transport: 'stdio',
  command,
  ...(env === undefined ? {} : { env }),
});

describe('AUTH-2 policy rules', () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'toolport-policy-rules-')));
  mkdirSync(join(root, 'ws', 'app'), { recursive: true });
  mkdirSync(join(root, 'wsx'));
  symlinkSync(join(root, 'wsx'), join(root, 'ws', 'escape'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('stdio MCP: admins only by default; a users allowlist is exact and forbids program-changing env', () => {
    expect(mcpServerPolicyRefusal(DEFAULT_OPERATOR_POLICY, admin, stdio('sh'))).toBeUndefined();
    expect(mcpServerPolicyRefusal(DEFAULT_OPERATOR_POLICY, user, stdio('sh'))?.policyKey).toBe('mcp.stdio');
    const listed = withPolicy({
      mcp: { stdio: 'users', stdioCommandAllowlist: ['/opt/mcp/fs-server'], remote: 'users', oauth: 'users' },
    });
    expect(mcpServerPolicyRefusal(listed, user, stdio('/opt/mcp/fs-server'))).toBeUndefined();
    expect(mcpServerPolicyRefusal(listed, user, stdio('fs-server'))?.policyKey).toBe(
      'mcp.stdioCommandAllowlist',
    );
    for (const name of ['PATH', 'LD_PRELOAD', 'node_options', 'PYTHONPATH'])
      expect(
        mcpServerPolicyRefusal(listed, user, stdio('/opt/mcp/fs-server', { [name]: 'x' })),
        name,
      ).toBeDefined();
    expect(
      mcpServerPolicyRefusal(listed, user, stdio('/opt/mcp/fs-server', { API_BASE: 'x' })),
    ).toBeUndefined();
    const nobody = withPolicy({
      mcp: { stdio: 'none', stdioCommandAllowlist: [], remote: 'none', oauth: 'none' },
    });
    expect(mcpServerPolicyRefusal(nobody, admin, stdio('sh'))?.policyKey).toBe('mcp.stdio');
  });

  it('mcp.oauth: an oauth client in a remote config, and OAuth itself, follow the audience (users by default)', () => {
    const remote = {
      id: 'r',
      name: 'notes',
      enabled: true,
      transport: 'http' as const,
      url: 'https://mcp.example.test/mcp',
      oauth: { clientId: 'c' },
    };
    expect(mcpServerPolicyRefusal(DEFAULT_OPERATOR_POLICY, user, remote)).toBeUndefined();
    const admins = withPolicy({ mcp: { ...DEFAULT_OPERATOR_POLICY.mcp, oauth: 'admins' } });
    expect(mcpServerPolicyRefusal(admins, user, remote)?.policyKey).toBe('mcp.oauth');
    expect(mcpServerPolicyRefusal(admins, admin, remote)).toBeUndefined();
    expect(mcpOAuthPolicyRefusal(admins, user, remote)?.message).toContain('admins only');
    const { oauth: _oauth, ...plain } = remote;
    expect(mcpServerPolicyRefusal(admins, user, plain)).toBeUndefined();
  });

  it('child environment: globs match case-insensitively, allowedNames exempt exact names', () => {
    expect(
      deniedChildEnvironmentNames(DEFAULT_OPERATOR_POLICY, [
        'TOOLPORT_SECRET_KEY',
        'openai_api_key',
        'GH_TOKEN',
        'PGPASSWORD',
        'DATABASE_URL',
        'LANG',
        'HOME',
      ]),
    ).toEqual(['TOOLPORT_SECRET_KEY', 'openai_api_key', 'GH_TOKEN', 'PGPASSWORD', 'DATABASE_URL']);
    const exempt = withPolicy({
      childEnvironment: { ...DEFAULT_OPERATOR_POLICY.childEnvironment, allowedNames: ['KEYTIMEOUT'] },
    });
    expect(deniedChildEnvironmentNames(exempt, ['KEYTIMEOUT', 'SSH_KEY'])).toEqual(['SSH_KEY']);
  });

  it('workspace roots: real paths on segment boundaries; admins anywhere outside denied paths', async () => {
    const policy = withPolicy({
      workspaceRoots: [join(root, 'ws')],
      deniedPaths: ['/proc', join(root, 'ws', 'app', 'secret')],
    });
    const refused = async (who: typeof user, directory: string) => {
      try {
        await assertWorkingDirectoryAllowed(policy, who, directory);
        return undefined;
      } catch (error) {
        return isToolportError(error) ? error.details?.policyKey : error;
      }
    };
    expect(await refused(user, join(root, 'ws', 'app'))).toBeUndefined();
    expect(await refused(user, join(root, 'wsx'))).toBe('workspaceRoots');
    // The chat service binds real paths: a symlink inside the root that leads out resolves outside it.
    expect(await refused(user, realpathSync(join(root, 'ws', 'escape')))).toBe('workspaceRoots');
    expect(await refused(admin, join(root, 'wsx'))).toBeUndefined();
    expect(await refused(admin, '/proc')).toBe('deniedPaths');
  });

  it('file access: non-admins confined to the working directory or refused; admins unconfined', () => {
    expect(fileAccessFor(DEFAULT_OPERATOR_POLICY, admin, undefined)).toEqual({ allowHardLinks: false });
    expect(fileAccessFor(DEFAULT_OPERATOR_POLICY, user, '/srv/ws')).toMatchObject({
      confinedTo: ['/srv/ws'],
    });
    expect(fileAccessFor(DEFAULT_OPERATOR_POLICY, user, undefined).refusal?.message).toContain(
      'PATCH /api/chats/',
    );
    const open = withPolicy({ files: { confineUsers: false, allowHardLinks: true } });
    expect(fileAccessFor(open, user, undefined)).toEqual({ allowHardLinks: true });
  });
});
