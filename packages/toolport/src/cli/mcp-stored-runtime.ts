import { randomUUID } from 'node:crypto';
import { isToolportError } from '../core/errors.ts';
import { defaultToolRegistry } from '../core/tool-registry.ts';
import type { ToolRuntime } from '../core/tool-runtime.ts';
import type { ToolportLogger } from '../core/tool-types.ts';
import { parseOutboundAllowlist } from '../net/parse-outbound-allowlist.ts';
import { migrateDatabase, openDatabase } from '../persistence/database.ts';
import type { ChatRecord } from '../persistence/repositories/chat-repository.ts';
import { loadSecretKey } from '../secrets/secret-key.ts';
import { createToolportServices } from '../services/toolport-services.ts';
import { registerBuiltinTools } from '../tools/index.ts';
import type { WorkspaceToolService } from '../workspace/workspace-tool-service.ts';
import type { CliIo } from './cli-io.ts';
import { resolveDataDirectory, resolveDatabaseUrl } from './server-config.ts';
import { UsageError } from './usage-error.ts';

export interface StoredMcpRuntimeOptions {
  dataDirectory: string | undefined;
  databaseUrl: string | undefined;
  /** Default: `admin`, the user `toolport serve` creates on first start. */
  userName: string | undefined;
  workingDirectory: string | undefined;
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
): Promise<{
  runtime: ToolRuntime;
  /** Builds the runtime again (a workspace's tools.json reloaded). */
  rebuild(): Promise<ToolRuntime>;
  workspaceTools: WorkspaceToolService;
  close(): Promise<void>;
}> {
  const dataDirectory = resolveDataDirectory(options.dataDirectory, io.env, io.cwd);
  const databaseUrl = resolveDatabaseUrl(options.databaseUrl, io.env, dataDirectory);
  const logger = stderrLogger(io);
  const database = openDatabase(databaseUrl, { baseDirectory: io.cwd });
  try {
    await migrateDatabase(database);
    const services = createToolportServices({
      database,
      registry: registerBuiltinTools(defaultToolRegistry),
      secretKey: loadSecretKey({ environmentValue: io.env.TOOLPORT_SECRET_KEY, dataDirectory, logger }).key,
      logger,
      mcp: { outboundAllowlist: parseOutboundAllowlist(io.env.TOOLPORT_OUTBOUND_ALLOW) },
      workspaceEnvironment: io.env,
    });
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
    // WS-1: the --workdir directory is the operator's own choice, so its tools.json needs no trust row; calls over
    // MCP run with origin mcp (g.secrets blocked; header secrets come from this user's store).
    const rebuild = () =>
      services.toolRuntime.getEnabledToolRuntime(user, chat, undefined, {
        origin: 'mcp',
        workspaceTrusted: true,
      });
    const runtime = await rebuild();
    return {
      runtime,
      rebuild,
      workspaceTools: services.workspaceTools,
      close: async () => {
        await services.mcp.close();
        await services.workspaceTools.close();
        await services.flush();
        await database.close();
      },
    };
  } catch (error) {
    await database.close();
    if (isToolportError(error)) throw new UsageError(error.message);
    throw error;
  }
}
