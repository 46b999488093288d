import { randomUUID } from 'node:crypto';
import { isToolportError } from '../core/errors.ts';
import type { ToolRuntime } from '../core/tool-runtime.ts';
import type { ToolServices, ToolportLogger } from '../core/tool-types.ts';
import type { ChatRecord } from '../persistence/repositories/chat-repository.ts';
import type { CliIo } from './cli-io.ts';
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

function stderrLogger(io: CliIo): ToolportLogger {
  const write = (level: string) => (object: Record<string, unknown>, message?: string) =>
    io.stderr(`toolport mcp: ${level} ${message ?? ''} ${JSON.stringify(object)}\n`);
  return { debug: () => {}, info: () => {}, warn: write('warn'), error: write('error') };
}

/**
 * `toolport mcp --data-dir/--database-url/--user`: a stored user's tools as `toolport serve` would give them — their
 * saved settings, secrets and MCP servers (whose tools are listed at start, so enabled stdio servers are spawned).
 * Loaded only in this mode: the default mode keeps its small cold start.
 */
export async function openStoredMcpRuntime(
  options: StoredMcpRuntimeOptions,
  io: CliIo,
): Promise<{ runtime: ToolRuntime; close(): Promise<void> }> {
  const { services, database, close } = await openStoredServices(
    io,
    { dataDirectory: options.dataDirectory, databaseUrl: options.databaseUrl },
    stderrLogger(io),
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
    // The CLI runs as the local user (LOCAL_USER_POLICY); its own --workdir confinement replaces serve's.
    const runtime = await services.toolRuntime.getEnabledToolRuntime(user, chat, null, {
      cliFileServices: options.fileServices,
    });
    return { runtime, close };
  } catch (error) {
    await close();
    if (isToolportError(error)) throw new UsageError(error.message);
    throw error;
  }
}
