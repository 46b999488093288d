import type { ApprovalRequest } from '../core/tool-approval.ts';
import type { ToolRuntime } from '../core/tool-runtime.ts';
import type { ToolServices } from '../core/tool-types.ts';
import type { ChatRecord } from '../persistence/repositories/chat-repository.ts';
import type { ProviderConfigRecord } from '../persistence/repositories/provider-config-repository.ts';
import { API_KEY_ENVIRONMENT_VARIABLES } from '../providers/api-key-variables.ts';
import type { ProviderName } from '../providers/provider-adapter.ts';
import type { CliIo } from './cli-io.ts';
import { openStoredServices } from './open-existing-store.ts';
import { UsageError } from './usage-error.ts';

export interface StoredUserContext {
  /** The provider configuration `--provider` names (by name, then by wire format), or the user's default. */
  config: ProviderConfigRecord | undefined;
  /** The API key from the user's secrets: the configuration's `apiKeySecret`, else a secret named like the env var. */
  apiKey(provider: ProviderName): Promise<string | undefined>;
  /**
   * The user's enabled tools with their saved settings (CORE-4), bound to `workingDirectory` when given. This connects
   * their enabled MCP servers (spawning stdio ones), so call it once the arguments are known to be good.
   */
  openRuntime(): Promise<ToolRuntime>;
  /** Issue 16: an `a` (always) answer becomes an allow rule in the user's tool settings. */
  rememberAlways(request: ApprovalRequest): Promise<void>;
  /** Ends every MCP connection and stdio child, then the database. Call it on every exit path. */
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
  const { services, database, close } = await openStoredServices(io, {
    dataDirectory: options.dataDirectoryFlag,
    databaseUrl: options.databaseUrlFlag,
  });
  try {
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
    return {
      config,
      apiKey: async (provider) => {
        const secrets = services.secrets.createReader(user.id);
        if (config?.apiKeySecret !== undefined && config.apiKeySecret !== null) {
          const value = await secrets.getSecret(config.apiKeySecret);
          if (value !== undefined) return value;
        }
        return secrets.getSecret(API_KEY_ENVIRONMENT_VARIABLES[provider]);
      },
      // The CLI runs as the local user (LOCAL_USER_POLICY); its own --workdir confinement replaces serve's.
      openRuntime: () =>
        services.toolRuntime.getEnabledToolRuntime(user, chat, null, {
          cliFileServices: options.fileServices,
        }),
      rememberAlways: (request: ApprovalRequest) => services.approvals.rememberAlways(request),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
