import { randomUUID } from 'node:crypto';
import { isToolportError } from '../core/errors.ts';
import { defaultToolRegistry, type RegistryEntry } from '../core/tool-registry.ts';
import type { ToolRuntime } from '../core/tool-runtime.ts';
import { parseOutboundAllowlist } from '../net/parse-outbound-allowlist.ts';
import { migrateDatabase, openDatabase } from '../persistence/database.ts';
import type { ChatRecord } from '../persistence/repositories/chat-repository.ts';
import { loadSecretKey } from '../secrets/secret-key.ts';
import { createToolportServices } from '../services/toolport-services.ts';
import { registerBuiltinTools } from '../tools/index.ts';
import { createStderrLogger, type CliIo } from './cli-io.ts';
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
  close(): Promise<void>;
}> {
  const dataDirectory = resolveDataDirectory(options.dataDirectory, io.env, io.cwd);
  const databaseUrl = resolveDatabaseUrl(options.databaseUrl, io.env, dataDirectory);
  const logger = createStderrLogger(io, 'toolport mcp', 'warn');
  const database = openDatabase(databaseUrl, { baseDirectory: io.cwd });
  try {
    await migrateDatabase(database);
    const services = createToolportServices({
      database,
      registry: registerBuiltinTools(defaultToolRegistry),
      secretKey: loadSecretKey({ environmentValue: io.env.TOOLPORT_SECRET_KEY, dataDirectory, logger }).key,
      logger,
      mcp: { outboundAllowlist: parseOutboundAllowlist(io.env.TOOLPORT_OUTBOUND_ALLOW) },
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
    return {
      buildRuntime: (codeTools) =>
        services.toolRuntime.getEnabledToolRuntime(user, chat, null, { extraEntries: codeTools }),
      close: async () => {
        await services.mcp.close();
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
