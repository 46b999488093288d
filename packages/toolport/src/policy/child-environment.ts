import picomatch from 'picomatch';
import type { OperatorPolicy } from './operator-policy.ts';
import { policyDenied } from './policy-denied.ts';

/**
 * `childEnvironment`: names no user, admin included, may pass to a child process through settings. Patterns are
 * globs matched case-insensitively (`*KEY*` also catches `openai_api_key`); `allowedNames` are exact exemptions.
 */
export function deniedChildEnvironmentNames(policy: OperatorPolicy, names: readonly string[]): string[] {
  const isDenied = picomatch(policy.childEnvironment.deniedNames as string[], { nocase: true, dot: true });
  const allowed = new Set(policy.childEnvironment.allowedNames);
  return names.filter((name) => !allowed.has(name) && isDenied(name));
}

/** The settings parameter whose names a shell passes through from the server's environment (FS-6). */
export const CHILD_ENVIRONMENT_PARAMETER = 'environmentAllowlist';

export function assertChildEnvironmentAllowed(
  policy: OperatorPolicy,
  toolName: string,
  value: unknown,
): void {
  if (!Array.isArray(value)) return;
  const names = value.filter((entry): entry is string => typeof entry === 'string');
  const denied = deniedChildEnvironmentNames(policy, names);
  if (denied.length === 0) return;
  throw policyDenied(
    'childEnvironment.deniedNames',
    `policy "childEnvironment.deniedNames" does not allow passing ${denied.join(', ')} to ${toolName}'s child ` +
      'processes (credentials of the server). Remove them from environmentAllowlist; an operator can exempt a name ' +
      'in "childEnvironment.allowedNames".',
    { parameter: CHILD_ENVIRONMENT_PARAMETER, names: denied },
  );
}

/** A stored list saved before the policy changed keeps only the names the policy still allows (fail closed). */
export function withoutDeniedChildEnvironment(policy: OperatorPolicy, value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  const denied = new Set(
    deniedChildEnvironmentNames(
      policy,
      value.filter((entry): entry is string => typeof entry === 'string'),
    ),
  );
  return denied.size === 0 ? value : value.filter((entry) => !denied.has(entry as string));
}
