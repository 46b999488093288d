import { realpath } from 'node:fs/promises';
import { isPathInside } from '../fs/resolve-and-validate-path.ts';
import type { OperatorPolicy } from './operator-policy.ts';
import { policyDenied, type PolicySubject } from './policy-denied.ts';

/**
 * PATH-1 under AUTH-2: a chat's working directory (already a real path) is refused inside a server-wide denied path
 * for everyone, and outside every `workspaceRoots` entry for non-admins (decided on real paths, on segment
 * boundaries; a root that does not exist contains nothing).
 */
export async function assertWorkingDirectoryAllowed(
  policy: OperatorPolicy,
  user: PolicySubject,
  realDirectory: string,
): Promise<void> {
  for (const denied of policy.deniedPaths) {
    const root = await realRoot(denied);
    if (root !== undefined && isPathInside(realDirectory, root)) {
      throw policyDenied(
        'deniedPaths',
        `policy "deniedPaths" denies ${root} to every filesystem tool, so ${realDirectory} cannot be a working directory.`,
        { argument: 'workingDirectory', path: realDirectory },
      );
    }
  }
  if (user.isAdmin) return;
  const roots: string[] = [];
  for (const entry of policy.workspaceRoots) {
    const root = await realRoot(entry);
    if (root !== undefined) roots.push(root);
  }
  if (roots.some((root) => isPathInside(realDirectory, root))) return;
  throw policyDenied(
    'workspaceRoots',
    roots.length === 0
      ? `policy "workspaceRoots" is empty: non-admin users may not bind a working directory on this server (${realDirectory} refused). Ask the operator to add a workspace root.`
      : `policy "workspaceRoots" allows non-admin users working directories only under ${roots.join(', ')}; ${realDirectory} is outside them.`,
    { argument: 'workingDirectory', path: realDirectory },
  );
}

async function realRoot(path: string): Promise<string | undefined> {
  try {
    return await realpath(path);
  } catch {
    return undefined;
  }
}
