import type { ApprovalRequest } from '../core/tool-approval.ts';
import { writeAllowRules } from '../services/approval-service.ts';
import { randomUUID } from 'node:crypto';
import { isToolportError } from '../core/errors.ts';
import { defaultToolRegistry } from '../core/tool-registry.ts';
import type { ToolRuntime } from '../core/tool-runtime.ts';
import type { ToolServices, ToolportLogger } from '../core/tool-types.ts';
import { parseOutboundAllowlist } from '../net/parse-outbound-allowlist.ts';
import { migrateDatabase, openDatabase } from '../persistence/database.ts';
import type { ChatRecord } from '../persistence/repositories/chat-repository.ts';
import { LOCAL_USER_POLICY } from '../policy/local-user-policy.ts';
import { loadSecretKey } from '../secrets/secret-key.ts';
import { createToolportServices } from '../services/toolport-services.ts';
import { registerBuiltinTools } from '../tools/index.ts';
import type { CliIo } from './cli-io.ts';
import { resolveDataDirectory, resolveDatabaseUrl } from './server-config.ts';
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
): Promise<{
  runtime: ToolRuntime;
  rememberAlways: (request: ApprovalRequest) => Promise<void>;
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
      policy: LOCAL_USER_POLICY,
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
    // The CLI runs as the local user (LOCAL_USER_POLICY); its own --workdir confinement replaces serve's.
    const runtime = await services.toolRuntime.getEnabledToolRuntime(user, chat, null, {
      cliFileServices: options.fileServices,
    });
    return {
      runtime,
      // Issue 16: an elicitation answered "always" becomes the user's allow rule.
      rememberAlways: (request: ApprovalRequest) =>
        writeAllowRules(services.repositories.toolSettings, services.repositories.agents, user.id, {
          ...request,
          agentId: null,
        }),
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
