import { DEFAULT_OPERATOR_POLICY, freezePolicy, type OperatorPolicy } from './operator-policy.ts';

/**
 * The policy of the CLI's stored mode (`toolport mcp --user`, `toolport chat --user`), which runs as the local user:
 * someone who already has the machine needs no protection from themselves, so the limits on non-admin (network)
 * users are open. What binds everyone stays: `/proc`, `/sys`, `/dev` denied, child environment names, and the CLI's
 * own `--workdir` confinement (`cliFileServices`).
 */
export const LOCAL_USER_POLICY: OperatorPolicy = freezePolicy({
  ...structuredClone(DEFAULT_OPERATOR_POLICY),
  tools: { disabled: [], adminOnly: [] },
  mcp: { stdio: 'users', stdioCommandAllowlist: [], remote: 'users', oauth: 'users' },
  workspaceRoots: ['/'],
  files: { confineUsers: false, allowHardLinks: true },
  providers: { checkUserBaseUrls: false },
});
