import { Type, type Static } from 'typebox';

/**
 * SPEC AUTH-2: what the operator allows users of a shared `toolport serve` to do. One validated document
 * (`<data dir>/policy.json` or `--policy FILE`, plus environment overrides), loaded once at start-up, frozen, and
 * enforced in the services so every front end (API, `/mcp`, chat turns, the inspector) obeys it.
 *
 * Admins are the operator's own accounts: the policy restricts non-admin users, except where a key says it binds
 * everyone (server-wide denied paths, child environment names).
 */

/** Who may do a thing: everyone, admins only, or nobody. */
export const PolicyAudienceSchema = Type.Union([
  Type.Literal('users'),
  Type.Literal('admins'),
  Type.Literal('none'),
]);
export type PolicyAudience = Static<typeof PolicyAudienceSchema>;

export const OperatorPolicySchema = Type.Object(
  {
    tools: Type.Object(
      {
        /** Tools that do not exist on this server at all (for anyone): not listed, not executable. */
        disabled: Type.Array(Type.String()),
        /** Tools non-admin users may not enable; they stay listed, marked as not allowed by the policy. */
        adminOnly: Type.Array(Type.String()),
      },
      { additionalProperties: false },
    ),
    mcp: Type.Object(
      {
        /** Who may add (and enable) stdio MCP servers: they run a command as the server's account. */
        stdio: PolicyAudienceSchema,
        /**
         * When `stdio` is `users`: the commands (program names or absolute paths) non-admins may use. Empty means
         * any command (only sensible on a single-user server).
         */
        stdioCommandAllowlist: Type.Array(Type.String()),
        /** Who may add remote (Streamable HTTP / SSE) MCP servers; their URLs always go through NET-1. */
        remote: PolicyAudienceSchema,
        /**
         * Who may connect remote MCP servers through OAuth (MCP authorization): authorize them (tokens stored per
         * user, encrypted), set an `oauth` client in a server's config, and have toolport use, refresh and register
         * OAuth clients for them. Discovery and token requests go through NET-1 like the server's own URL.
         */
        oauth: PolicyAudienceSchema,
      },
      { additionalProperties: false },
    ),
    /** Absolute directories under which non-admins may bind a chat's working directory (admins: anywhere). */
    workspaceRoots: Type.Array(Type.String()),
    /**
     * Paths no filesystem tool may touch, for anyone, whatever a setting says. The data directory and the SQLite
     * file are always added by `serve`.
     */
    deniedPaths: Type.Array(Type.String()),
    files: Type.Object(
      {
        /**
         * `true` (default): a non-admin's filesystem tools run only inside the chat's bound working directory, and
         * are refused when it has none. `false`: only their own settings and the denied paths limit them.
         */
        confineUsers: Type.Boolean(),
        /**
         * Regular files with more than one hard link are refused (a hard link can expose a denied or outside file:
         * path containment cannot see where the other names are). `true` allows them.
         */
        allowHardLinks: Type.Boolean(),
      },
      { additionalProperties: false },
    ),
    childEnvironment: Type.Object(
      {
        /**
         * Glob patterns of environment names no user, admin included, may pass to a child process through settings
         * (`environmentAllowlist`, MCP stdio `env` is the user's own values and is not affected).
         */
        deniedNames: Type.Array(Type.String()),
        /** Names exempted from `deniedNames` by the operator. */
        allowedNames: Type.Array(Type.String()),
      },
      { additionalProperties: false },
    ),
    providers: Type.Object(
      {
        /**
         * `true` (default): non-admins' provider `baseUrl`s are checked by NET-1 with the outbound allowlist
         * (a local model server on loopback is one allowlist line). Admins' configs are the operator's.
         */
        checkUserBaseUrls: Type.Boolean(),
      },
      { additionalProperties: false },
    ),
    /** `TOOLPORT_OUTBOUND_ALLOW` syntax (hosts and CIDRs, comma-separated) — the only way into blocked ranges. */
    outboundAllow: Type.String(),
    /** CODE-1: project directories whose `.toolport/tools/` (and opencode folders) `serve` loads, for every user. */
    codeToolRoots: Type.Array(Type.String()),
    customTools: Type.Object(
      {
        /** Who may create HTTP tools (their calls go through NET-1). */
        http: PolicyAudienceSchema,
        /** Who may create agent tools (sub-agent delegation). */
        agent: PolicyAudienceSchema,
        /** Who may run workspace script tools (`tools.json`, isolated; secrets of the caller). */
        workspace: PolicyAudienceSchema,
      },
      { additionalProperties: false },
    ),
    shell: Type.Object(
      {
        /** Extra writable paths inside the shell sandbox, besides the working directory. */
        writablePaths: Type.Array(Type.String()),
        /** cgroup `pids.max` per shell call. */
        maxProcesses: Type.Integer({ minimum: 1, maximum: 100_000 }),
        /** cgroup `memory.max` per shell call, in MiB. */
        maxMemoryMb: Type.Integer({ minimum: 16, maximum: 1_048_576 }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export type OperatorPolicy = Static<typeof OperatorPolicySchema>;

/** Environment names that carry credentials (SPEC AUTH-2): refused as child environment unless the policy lists them. */
export const DEFAULT_DENIED_CHILD_ENVIRONMENT_NAMES: readonly string[] = [
  'TOOLPORT_*',
  '*KEY*',
  '*TOKEN*',
  '*SECRET*',
  '*PASSWORD*',
  'DATABASE_URL',
];

/**
 * Safe for untrusted users, and the quick start still works for the local admin (admins are not restricted by the
 * audience keys). Frozen deeply: the policy never changes while a server runs.
 */
export const DEFAULT_OPERATOR_POLICY: OperatorPolicy = deepFreeze({
  tools: { disabled: [], adminOnly: ['bash', 'zsh', 'powershell'] },
  mcp: { stdio: 'admins', stdioCommandAllowlist: [], remote: 'users', oauth: 'users' },
  workspaceRoots: [],
  deniedPaths: ['/proc', '/sys', '/dev'],
  files: { confineUsers: true, allowHardLinks: false },
  childEnvironment: { deniedNames: [...DEFAULT_DENIED_CHILD_ENVIRONMENT_NAMES], allowedNames: [] },
  providers: { checkUserBaseUrls: true },
  outboundAllow: '',
  codeToolRoots: [],
  customTools: { http: 'users', agent: 'users', workspace: 'users' },
  shell: { writablePaths: [], maxProcesses: 256, maxMemoryMb: 1024 },
});

/** True when a caller of this kind may do what `audience` governs. */
export function audienceAllows(audience: PolicyAudience, caller: { isAdmin: boolean }): boolean {
  if (audience === 'none') return false;
  return audience === 'users' || caller.isAdmin;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

export { deepFreeze as freezePolicy };
