import { realpathSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { ToolportError } from '../../core/errors.ts';
import type { ChatRecord } from '../../persistence/repositories/chat-repository.ts';
import { assertWorkspaceToolsAllowed } from '../../services/workspace-tool-access.ts';
import type { ToolportServices } from '../../services/toolport-services.ts';

/**
 * WS-1 on `/mcp`: `/mcp?workspace=/abs/dir` serves that workspace's tools and the three meta-tools, for a directory
 * the caller has trusted (`POST /api/workspace-trust`) — the same list the web UI shows. Its tools then run only
 * while the file is the one trusted, like a chat's.
 */
export function workspaceParameter(request: IncomingMessage): string | undefined {
  // Most requests have no query at all: skip parsing a URL for them (this runs on every `/mcp` POST).
  if (request.url === undefined || !request.url.includes('?')) return undefined;
  const value = new URL(request.url ?? '/', 'http://toolport.invalid').searchParams.get('workspace');
  return value === null || value === '' ? undefined : value;
}

export async function resolveMcpWorkspace(
  services: ToolportServices,
  userId: string,
  request: IncomingMessage,
): Promise<string | undefined> {
  const requested = workspaceParameter(request);
  if (requested === undefined) return undefined;
  await assertWorkspaceToolsAllowed(services.repositories.users, services.policy, userId);
  const directory = realWorkspacePath(requested);
  if ((await services.repositories.workspaceTrust.get(userId, directory)) === undefined) {
    throw new ToolportError(
      'permission_denied',
      `${requested} is not one of your trusted workspaces: trust its tools.json first (POST /api/workspace-trust).`,
      { details: { directory: requested } },
    );
  }
  return directory;
}

/** The directory's real path (trust rows and tool sets are keyed by it); the input when it does not resolve. */
export function realWorkspacePath(directory: string): string {
  try {
    return realpathSync(directory);
  } catch {
    return directory;
  }
}

/** A request-scoped chat binding the workspace in agent mode (nothing is stored). */
export function workspaceChat(userId: string, directory: string): ChatRecord {
  const now = new Date().toISOString();
  return {
    id: `mcp-workspace-${userId}`,
    userId,
    title: '/mcp workspace',
    workingDirectory: directory,
    mode: 'agent',
    agentId: null,
    createdAt: now,
    updatedAt: now,
  };
}
