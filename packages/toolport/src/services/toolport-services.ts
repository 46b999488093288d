import type { ToolRegistry } from '../core/tool-registry.ts';
import type { OutboundHttpClient, ToolportLogger } from '../core/tool-types.ts';
import type { ToolportDatabase } from '../persistence/database.ts';
import { createRepositories, type Repositories } from '../persistence/repositories.ts';
import type { FileImageStore } from '../providers/images/file-image-store.ts';
import { DEFAULT_OPERATOR_POLICY, type OperatorPolicy } from '../policy/operator-policy.ts';
import { SecretCipher } from '../secrets/secret-cipher.ts';
import { ApiTokenService } from './api-token-service.ts';
import { ChatService } from './chat-service.ts';
import { McpServerService, type McpServiceOptions } from './mcp-server-service.ts';
import { ChatTurnService } from './chat-turn-service.ts';
import { ProviderConfigService } from './provider-config-service.ts';
import { SecretService } from './secret-service.ts';
import { createToolCatalog, type ToolCatalog, type UserToolSource } from './tool-catalog.ts';
import { ToolRuntimeService } from './tool-runtime-service.ts';
import { ToolSettingsService } from './tool-settings-service.ts';
import { createWorkspaceToolAccess, listUserWorkspaceEntries } from './workspace-tool-access.ts';
import { createWorkspaceToolService } from '../workspace/create-workspace-tool-service.ts';
import type { WorkspaceToolService } from '../workspace/workspace-tool-service.ts';

export interface ToolportServicesOptions {
  database: ToolportDatabase;
  registry: ToolRegistry;
  /** 32-byte AES key (secrets/secret-key.ts). */
  secretKey: Buffer;
  /** Per-user tool sources (MCP servers, HTTP/agent tool rows) added by later features. */
  toolSources?: readonly UserToolSource[];
  http?: OutboundHttpClient;
  logger?: ToolportLogger;
  /** The MCP client pool's outbound policy and timeouts (users' MCP servers always join `toolSources`). */
  mcp?: McpServiceOptions;
  /** Where generate_image keeps images (per user) and `GET /api/images/:id` reads them. */
  imageStore?: FileImageStore;
  /** Paths no filesystem tool may touch, whatever a user's settings say: `toolport serve` passes its data dir. */
  protectedPaths?: readonly string[];
  /** The operator's opt-in fallback for provider API keys (see ProviderConfigService). */
  providerKeyEnvironment?: Readonly<Record<string, string | undefined>>;
  /** SDK retries on provider 429/5xx (default 2). */
  providerMaxRetries?: number;
  /** SPEC AUTH-2: what non-admin users may do (default: `DEFAULT_OPERATOR_POLICY`, safe for untrusted users). */
  policy?: OperatorPolicy;
  /** WS-1 workspace scripts: `TOOLPORT_CHROMIUM_PATH`/PATH for g.nav (default process.env). */
  workspaceEnvironment?: Readonly<Record<string, string | undefined>>;
}

/** Everything the HTTP routes, the CLI and later the agent loop call, wired once over one database. */
export interface ToolportServices {
  readonly database: ToolportDatabase;
  readonly repositories: Repositories;
  readonly catalog: ToolCatalog;
  readonly tokens: ApiTokenService;
  readonly toolSettings: ToolSettingsService;
  readonly toolRuntime: ToolRuntimeService;
  readonly secrets: SecretService;
  readonly chats: ChatService;
  /** Users' MCP servers: the process's one client pool. `mcp.close()` on shutdown ends every stdio child. */
  readonly mcp: McpServerService;
  readonly providers: ProviderConfigService;
  readonly chatTurns: ChatTurnService;
  readonly imageStore: FileImageStore | undefined;
  /** The operator policy every service enforces (frozen). */
  readonly policy: OperatorPolicy;
  /** WS-1: every workspace's tools.json, loaded once per directory. `workspaceTools.close()` on shutdown. */
  readonly workspaceTools: WorkspaceToolService;
  /** Waits for background audit inserts; the caller closes the database. */
  flush(): Promise<void>;
}

export function createToolportServices(options: ToolportServicesOptions): ToolportServices {
  const repositories = createRepositories(options.database, options.logger);
  const secrets = new SecretService(repositories.secrets, new SecretCipher(options.secretKey));
  const mcp = new McpServerService({
    ...options.mcp,
    repository: repositories.mcpServers,
    secrets,
    reservedNames: () => options.registry.listEntries().map((entry) => entry.tool.definition.name),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  const catalog = createToolCatalog(options.registry, [...(options.toolSources ?? []), mcp.toolSource]);
  const chats = new ChatService(repositories.chats, repositories.freshnessLedger);
  const policy = options.policy ?? DEFAULT_OPERATOR_POLICY;
  const workspaceTools = createWorkspaceToolService({
    ...(options.mcp?.outboundAllowlist === undefined
      ? {}
      : { outboundAllowlist: options.mcp.outboundAllowlist }),
    ...(options.workspaceEnvironment === undefined ? {} : { env: options.workspaceEnvironment }),
    reservedNames: () => options.registry.listEntries().map((entry) => entry.tool.definition.name),
    ...(options.protectedPaths === undefined ? {} : { deniedPaths: options.protectedPaths }),
    missingSecretsHint: "set it in the user's secrets (PUT /api/secrets/NAME).",
  });
  const providers = new ProviderConfigService({
    repository: repositories.providerConfigs,
    secrets,
    fallbackEnvironment: options.providerKeyEnvironment,
  });
  const toolRuntime = new ToolRuntimeService({
    catalog,
    toolSettings: repositories.toolSettings,
    agents: repositories.agents,
    secrets,
    recorder: repositories.toolExecutions,
    freshnessLedger: repositories.freshnessLedger,
    http: options.http,
    logger: options.logger,
    protectedPaths: options.protectedPaths,
    workspaceTools: createWorkspaceToolAccess({
      service: workspaceTools,
      users: repositories.users,
      trust: repositories.workspaceTrust,
      policy,
    }),
  });
  return {
    database: options.database,
    repositories,
    catalog,
    tokens: new ApiTokenService(repositories.users, repositories.apiTokens),
    toolSettings: new ToolSettingsService({
      repository: repositories.toolSettings,
      catalog,
      logger: options.logger,
      listSettingsOnlyEntries: (userId) =>
        listUserWorkspaceEntries(workspaceTools, repositories.workspaceTrust, chats, userId),
    }),
    toolRuntime,
    secrets,
    chats,
    providers,
    chatTurns: new ChatTurnService({
      chats,
      agents: repositories.agents,
      messages: repositories.chatMessages,
      providers,
      toolRuntime,
      imageStore: options.imageStore,
      maxRetries: options.providerMaxRetries,
      logger: options.logger,
    }),
    mcp,
    imageStore: options.imageStore,
    policy,
    workspaceTools,
    flush: () => repositories.toolExecutions.flush(),
  };
}
