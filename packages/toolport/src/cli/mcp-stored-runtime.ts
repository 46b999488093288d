import type { ApprovalRequest } from '../core/tool-approval.ts';
import { randomUUID } from 'node:crypto';
import { isToolportError } from '../core/errors.ts';
import type { RegistryEntry } from '../core/tool-registry.ts';
import type { ToolRuntime } from '../core/tool-runtime.ts';
import type { ToolServices } from '../core/tool-types.ts';
import type { ChatRecord } from '../persistence/repositories/chat-repository.ts';
import type { WorkspaceToolService } from '../workspace/workspace-tool-service.ts';
import { createStderrLogger, type CliIo } from './cli-io.ts';
import { openStoredServices } from './open-existing-store.ts';
import { UsageError } from './usage-error.ts';

export interface StoredMcpRuntimeOptions {
  dataDirectory: string | undefined;
  databaseUrl: string | undefined;
  /** Default: `admin`, the user `toolport serve` creates on first start. */
  userName: string | undefined;
  workingDirectory: string | undefined;
  /** The CLI's confinement (`cliFileServices`), in place of serve's per-user one. */
  fileServices: Pick<ToolServices, 'fileAccess' | 'protectedPaths'>;
}

export const DEFAULT_MCP_USER = 'admin';

/**
 * `toolport mcp --data-dir/--database-url/--user`: a stored user's tools as `toolport serve` would give them — their
 * saved settings, secrets and MCP servers (whose tools are listed at start, so enabled stdio servers are spawned).
 * Loaded only in this mode: the default mode keeps its small cold start.
 */
export async function openStoredMcpRuntime(
  options: StoredMcpRuntimeOptions,
  io: CliIo,
): Promise<{
  /** The user's enabled tools plus `codeTools` (CODE-1, shadowing same-named tools); called again on a reload. */
  buildRuntime(codeTools: readonly RegistryEntry[]): Promise<ToolRuntime>;
  /** WS-1: the user's workspace tools service (the --workdir's tools.json, reloaded on change). */
  workspaceTools: WorkspaceToolService;
  /** Issue 16: an elicitation answered "always" becomes the user's allow rule. */
  rememberAlways: (request: ApprovalRequest) => Promise<void>;
  close(): Promise<void>;
}> {
  const { services, database, close } = await openStoredServices(
    io,
    { dataDirectory: options.dataDirectory, databaseUrl: options.databaseUrl },
    createStderrLogger(io, 'toolport mcp', 'warn'),
  );
  try {
    const userName = options.userName ?? DEFAULT_MCP_USER;
    const user = await services.repositories.users.findByName(userName);
    if (user === undefined) {
      throw new UsageError(
        `no user named ${JSON.stringify(userName)} in ${database.description}: pass --user NAME ` +
          '(toolport user create NAME creates one).',
      );
    }
    const now = new Date().toISOString();
    // A session-scoped chat: the working directory binds like a chat's, and read-before-write state starts fresh.
    const chat: ChatRecord | null =
      options.workingDirectory === undefined
        ? null
        : {
            id: `mcp-stdio-${randomUUID()}`,
            userId: user.id,
            title: 'toolport mcp',
            workingDirectory: options.workingDirectory,
            mode: 'agent',
            agentId: null,
            createdAt: now,
            updatedAt: now,
          };
    // The CLI runs as the local user (LOCAL_USER_POLICY); its own --workdir confinement replaces serve's. WS-1: the
    // --workdir directory is the operator's own choice, so its tools.json needs no trust row; calls over MCP run with
    // origin mcp (g.secrets blocked; header secrets come from this user's store).
    return {
      buildRuntime: (codeTools) =>
        services.toolRuntime.getEnabledToolRuntime(user, chat, null, {
          cliFileServices: options.fileServices,
          extraEntries: codeTools,
          origin: 'mcp',
          workspaceTrusted: true,
        }),
      workspaceTools: services.workspaceTools,
      // Issue 16: an elicitation answered "always" becomes the user's allow rule.
      rememberAlways: (request: ApprovalRequest) => services.approvals.rememberAlways(request),
      close,
    };
  } catch (error) {
    await close();
    if (isToolportError(error)) throw new UsageError(error.message);
    throw error;
  }
}
