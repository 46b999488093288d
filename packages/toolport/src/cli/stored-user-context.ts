import type { ApprovalRequest } from '../core/tool-approval.ts';
import { writeAllowRules } from '../services/approval-service.ts';
import { defaultToolRegistry } from '../core/tool-registry.ts';
import type { ToolRuntime } from '../core/tool-runtime.ts';
import type { ToolServices } from '../core/tool-types.ts';
import { migrateDatabase, openDatabase } from '../persistence/database.ts';
import type { ChatRecord } from '../persistence/repositories/chat-repository.ts';
import type { ProviderConfigRecord } from '../persistence/repositories/provider-config-repository.ts';
import { API_KEY_ENVIRONMENT_VARIABLES } from '../providers/create-provider-adapter.ts';
import type { ProviderName } from '../providers/provider-adapter.ts';
import { LOCAL_USER_POLICY } from '../policy/local-user-policy.ts';
import { loadSecretKey } from '../secrets/secret-key.ts';
import { createToolportServices } from '../services/toolport-services.ts';
import { registerBuiltinTools } from '../tools/index.ts';
import type { CliIo } from './cli-io.ts';
import { resolveDataDirectory, resolveDatabaseUrl } from './server-config.ts';
import { UsageError } from './usage-error.ts';

export interface StoredUserContext {
  /** The user's enabled tools with their saved settings (CORE-4), bound to `workingDirectory` when given. */
  runtime: ToolRuntime;
  /** The provider configuration `--provider` names (by name, then by wire format), or the user's default. */
  config: ProviderConfigRecord | undefined;
  /** The API key from the user's secrets: the configuration's `apiKeySecret`, else a secret named like the env var. */
  apiKey(provider: ProviderName): Promise<string | undefined>;
  /** Issue 16: an `a` (always) answer becomes an allow rule in the user's tool settings. */
  rememberAlways(request: ApprovalRequest): Promise<void>;
  close(): Promise<void>;
}

export interface StoredUserOptions {
  userName: string;
  dataDirectoryFlag: string | undefined;
  databaseUrlFlag: string | undefined;
  provider: string | undefined;
  workingDirectory: string | undefined;
  /** The CLI's confinement (`cliFileServices`), in place of serve's per-user one. */
  fileServices: Pick<ToolServices, 'fileAccess' | 'protectedPaths'>;
}

/** `toolport chat --user NAME`: the stored user's tools, settings, provider configuration and secrets. */
export async function openStoredUserContext(
  io: CliIo,
  options: StoredUserOptions,
): Promise<StoredUserContext> {
  const dataDirectory = resolveDataDirectory(options.dataDirectoryFlag, io.env, io.cwd);
  const database = openDatabase(resolveDatabaseUrl(options.databaseUrlFlag, io.env, dataDirectory), {
    baseDirectory: io.cwd,
    maxConnections: 2,
  });
  try {
    await migrateDatabase(database);
    const services = createToolportServices({
      database,
      registry: registerBuiltinTools(defaultToolRegistry),
      policy: LOCAL_USER_POLICY,
      secretKey: loadSecretKey({ environmentValue: io.env.TOOLPORT_SECRET_KEY, dataDirectory }).key,
    });
    const user = await services.repositories.users.findByName(options.userName);
    if (user === undefined)
      throw new UsageError(`--user ${options.userName}: no such user in ${database.description}`);
    const configs = await services.providers.list(user.id);
    const config =
      options.provider === undefined
        ? configs[0]
        : (configs.find((candidate) => candidate.name === options.provider) ??
          configs.find((candidate) => candidate.provider === options.provider));
    const now = new Date().toISOString();
    const chat: ChatRecord | null =
      options.workingDirectory === undefined
        ? null
        : {
            id: 'cli',
            userId: user.id,
            title: '',
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
      config,
      apiKey: async (provider) => {
        const secrets = services.secrets.createReader(user.id);
        if (config?.apiKeySecret !== undefined && config.apiKeySecret !== null) {
          const value = await secrets.getSecret(config.apiKeySecret);
          if (value !== undefined) return value;
        }
        return secrets.getSecret(API_KEY_ENVIRONMENT_VARIABLES[provider]);
      },
      rememberAlways: (request) =>
        writeAllowRules(services.repositories.toolSettings, services.repositories.agents, user.id, {
          ...request,
          agentId: null,
        }),
      close: async () => {
        await services.flush();
        await database.close();
      },
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}
