import { ToolportError } from '../core/errors.ts';
import type { RegistryEntry } from '../core/tool-registry.ts';
import type { UserRepository } from '../persistence/repositories/user-repository.ts';
import type { WorkspaceTrustRepository } from '../persistence/repositories/workspace-trust-repository.ts';
import type { ChatService } from './chat-service.ts';
import { audienceAllows, type OperatorPolicy } from '../policy/operator-policy.ts';
import type { WorkspaceScriptOrigin } from '../workspace/workspace-script-tool.ts';
import { UNCACHED_READS, type UserReads } from '../persistence/user-state-cache.ts';
import type { WorkspaceToolService } from '../workspace/workspace-tool-service.ts';

export interface WorkspaceToolRequest {
  origin: WorkspaceScriptOrigin;
  /** The CLI and `toolport mcp` trust the directory named with --workdir; serve checks the user's trust. */
  trusted?: boolean;
}

/** What ToolRuntimeService asks for: a user's workspace tools for one directory. */
export type WorkspaceToolAccess = (
  user: { id: string },
  directory: string,
  request: WorkspaceToolRequest,
) => Promise<RegistryEntry[]>;

/** Thrown for a user the operator policy keeps from workspace tools (AUTH-2 `customTools.workspace`). */
export function workspacePolicyDenied(): ToolportError {
  return new ToolportError(
    'permission_denied',
    'Workspace script tools are not allowed for this account by the operator policy (customTools.workspace).',
    { details: { policy: 'customTools.workspace' } },
  );
}

export async function assertWorkspaceToolsAllowed(
  users: UserRepository,
  policy: OperatorPolicy,
  userId: string,
): Promise<void> {
  const user = await users.findById(userId);
  if (user === undefined || !audienceAllows(policy.customTools.workspace, user))
    throw workspacePolicyDenied();
}

/**
 * Serve's rule for a workspace's tools: listed for the chat like any tool, and at each call the operator policy
 * (`customTools.workspace`) and the user's trust in this exact tools.json (its sha256) are checked before the script
 * is read — a new or changed file does not run until the user trusts it (`POST /api/workspace-trust`).
 */
export function createWorkspaceToolAccess(options: {
  service: WorkspaceToolService;
  users: UserRepository;
  trust: WorkspaceTrustRepository;
  policy: OperatorPolicy;
}): WorkspaceToolAccess {
  const { service, users, trust, policy } = options;
  return (user, directory, request) =>
    service.listEntries(directory, {
      origin: request.origin,
      includeMetaTools: request.origin === 'mcp',
      ...(request.trusted === true
        ? {}
        : {
            checkAllowed: async (context, set) => {
              await assertWorkspaceToolsAllowed(users, policy, context.userId);
              const trusted = await trust.get(context.userId, directory);
              if (trusted === undefined || trusted.sha256 !== set.sha256) {
                throw new ToolportError(
                  'permission_denied',
                  `The tools.json of ${directory} is ${trusted === undefined ? 'not trusted' : 'changed since you trusted it'}: ` +
                    `review it, then trust it with POST /api/workspace-trust {"directory": ${JSON.stringify(directory)}, ` +
                    `"sha256": "${set.sha256 ?? ''}"}.`,
                  { details: { directory, sha256: set.sha256 } },
                );
              }
            },
          }),
    });
}

/**
 * For the settings API (`source: 'workspace'`): the tools of every workspace the user trusted or has an agent-mode
 * chat in, so each can be enabled or disabled per user before and after it is trusted.
 */
export async function listUserWorkspaceEntries(
  service: WorkspaceToolService,
  trust: WorkspaceTrustRepository,
  chats: ChatService,
  userId: string,
  reads: UserReads = UNCACHED_READS,
): Promise<RegistryEntry[]> {
  // The directories come from rows (cached per user state); each directory's tools.json is read by `service`.
  const directories = await reads.read(userId, 'workspace-directories', async () => {
    const found = new Set<string>();
    for (const row of await trust.list(userId)) found.add(row.directory);
    for (const chat of await chats.list(userId)) {
      if (chat.workingDirectory !== null && chat.mode === 'agent') found.add(chat.workingDirectory);
    }
    return [...found].sort();
  });
  const lists = await Promise.all(
    directories.map((directory) => service.listEntries(directory, { origin: 'api' })),
  );
  return lists.flat();
}
