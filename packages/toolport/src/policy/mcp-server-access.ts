import picomatch from 'picomatch';
import type { McpServerConfig } from '../mcp/mcp-server-config.ts';
import { audienceAllows, type OperatorPolicy, type PolicyAudience } from './operator-policy.ts';
import { policyDenied, type PolicySubject } from './policy-denied.ts';

/**
 * Environment names that change which program a stdio command really runs (library preloads, interpreter start-up
 * hooks, the PATH lookup itself): refused in a non-admin's stdio `env` when the command allowlist is what lets them
 * in, or an allowlisted `npx` becomes any program.
 */
const PROGRAM_CHANGING_ENVIRONMENT = picomatch(
  [
    'PATH',
    'LD_*',
    'DYLD_*',
    'NODE_OPTIONS',
    'NODE_PATH',
    'PYTHON*',
    'BASH_ENV',
    'ENV',
    'PERL5*',
    'RUBYOPT',
    'RUBYLIB',
  ],
  { nocase: true },
);

function audienceText(audience: PolicyAudience): string {
  return audience === 'none' ? 'nobody' : audience === 'admins' ? 'admins only' : 'every user';
}

/**
 * Why the policy refuses this user this MCP server, or undefined when it may be added, enabled and spawned. Checked
 * on create, update and enable, and again whenever the user's servers are listed: a row stored before the policy
 * changed never spawns.
 */
export function mcpServerPolicyRefusal(
  policy: OperatorPolicy,
  user: PolicySubject,
  config: McpServerConfig,
): { policyKey: string; message: string } | undefined {
  if (config.transport === 'http') {
    if (!audienceAllows(policy.mcp.remote, user)) {
      return {
        policyKey: 'mcp.remote',
        message: `policy "mcp.remote" allows remote MCP servers to ${audienceText(policy.mcp.remote)}: ${JSON.stringify(config.name)} is refused.`,
      };
    }
    if (config.oauth !== undefined) return mcpOAuthPolicyRefusal(policy, user, config);
    return undefined;
  }
  if (!audienceAllows(policy.mcp.stdio, user)) {
    return {
      policyKey: 'mcp.stdio',
      message:
        `policy "mcp.stdio" allows stdio MCP servers to ${audienceText(policy.mcp.stdio)}: a stdio server runs its ` +
        `command as the server's account, so ${JSON.stringify(config.name)} is refused. Use a remote (http) MCP ` +
        'server, or ask the operator to add this one.',
    };
  }
  const allowlist = policy.mcp.stdioCommandAllowlist;
  if (user.isAdmin || allowlist.length === 0) return undefined;
  if (!allowlist.includes(config.command)) {
    return {
      policyKey: 'mcp.stdioCommandAllowlist',
      message:
        `policy "mcp.stdioCommandAllowlist" does not list the command ${JSON.stringify(config.command)}; ` +
        `allowed: ${allowlist.map((entry) => JSON.stringify(entry)).join(', ')}.`,
    };
  }
  const changing = Object.keys(config.env ?? {}).filter((name) => PROGRAM_CHANGING_ENVIRONMENT(name));
  if (changing.length > 0) {
    return {
      policyKey: 'mcp.stdioCommandAllowlist',
      message:
        `policy "mcp.stdioCommandAllowlist" does not allow setting ${changing.join(', ')} in env: it would change ` +
        `which program ${JSON.stringify(config.command)} runs.`,
    };
  }
  return undefined;
}

/**
 * Why the policy refuses this user OAuth for this remote server (`mcp.oauth`), or undefined. Checked on the authorize
 * and callback routes, on a config with an `oauth` client, and before the client pool uses stored tokens. Forgetting
 * an authorization is always allowed.
 */
export function mcpOAuthPolicyRefusal(
  policy: OperatorPolicy,
  user: PolicySubject,
  config: McpServerConfig,
): { policyKey: string; message: string } | undefined {
  if (audienceAllows(policy.mcp.oauth, user)) return undefined;
  return {
    policyKey: 'mcp.oauth',
    message: `policy "mcp.oauth" allows OAuth for remote MCP servers to ${audienceText(policy.mcp.oauth)}: ${JSON.stringify(config.name)} cannot be authorized.`,
  };
}

export function assertMcpOAuthAllowed(
  policy: OperatorPolicy,
  user: PolicySubject,
  config: McpServerConfig,
): void {
  const refusal = mcpOAuthPolicyRefusal(policy, user, config);
  if (refusal !== undefined) throw policyDenied(refusal.policyKey, refusal.message, { server: config.name });
}

export function assertMcpServerAllowed(
  policy: OperatorPolicy,
  user: PolicySubject,
  config: McpServerConfig,
): void {
  const refusal = mcpServerPolicyRefusal(policy, user, config);
  if (refusal !== undefined) throw policyDenied(refusal.policyKey, refusal.message, { server: config.name });
}
