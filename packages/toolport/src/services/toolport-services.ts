import { ApprovalService } from './approval-service.ts';
import type { ToolRegistry } from '../core/tool-registry.ts';
import type { OutboundHttpClient, ToolportLogger } from '../core/tool-types.ts';
import type { ToolportDatabase } from '../persistence/database.ts';
import { createRepositories, type Repositories } from '../persistence/repositories.ts';
import type { FileImageStore } from '../providers/images/file-image-store.ts';
import { DEFAULT_OPERATOR_POLICY, type OperatorPolicy } from '../policy/operator-policy.ts';
import { SecretCipher } from '../secrets/secret-cipher.ts';
import { AgentDelegationService } from './agent-delegation-service.ts';
import { AgentService } from './agent-service.ts';
import { AgentToolService } from './agent-tool-service.ts';
import { ApiTokenService } from './api-token-service.ts';
import { ChatService } from './chat-service.ts';
import { McpServerService, type McpServiceOptions } from './mcp-server-service.ts';
import { ChatTurnService } from './chat-turn-service.ts';
import { ProviderConfigService } from './provider-config-service.ts';
import { SecretService } from './secret-service.ts';
import { createTextCompletionService } from './text-completion-service.ts';
import { createToolCatalog, type ToolCatalog, type UserToolSource } from './tool-catalog.ts';
import { ToolRuntimeService } from './tool-runtime-service.ts';
import { ToolSettingsService } from './tool-settings-service.ts';

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
  /** Issue 16: how often a waiting turn re-reads its approval (default 250 ms). */
  approvalPollIntervalMs?: number;
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
  /** Agents with a validated config (AGENT-1). */
  readonly agents: AgentService;
  /** Agent tools: `type: 'agent'` rows that delegate to another agent (AGENT-1). */
  readonly agentTools: AgentToolService;
  /** Users' MCP servers: the process's one client pool. `mcp.close()` on shutdown ends every stdio child. */
  readonly mcp: McpServerService;
  /** Issue 16: pending tool approvals of chat turns and their answers. */
  readonly approvals: ApprovalService;
  readonly providers: ProviderConfigService;
  readonly chatTurns: ChatTurnService;
  readonly imageStore: FileImageStore | undefined;
  /** The operator policy every service enforces (frozen). */
  readonly policy: OperatorPolicy;
  /** Waits for background audit inserts; the caller closes the database. */
  flush(): Promise<void>;
}

export function createToolportServices(options: ToolportServicesOptions): ToolportServices {
  const policy = options.policy ?? DEFAULT_OPERATOR_POLICY;
  const repositories = createRepositories(options.database, options.logger);
  const secrets = new SecretService(repositories.secrets, new SecretCipher(options.secretKey));
  const mcp = new McpServerService({
    ...options.mcp,
    repository: repositories.mcpServers,
    secrets,
    reservedNames: () => options.registry.listEntries().map((entry) => entry.tool.definition.name),
    policy,
    isAdmin: async (userId) => (await repositories.users.findById(userId))?.isAdmin === true,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  const providers = new ProviderConfigService({
    repository: repositories.providerConfigs,
    secrets,
    fallbackEnvironment: options.providerKeyEnvironment,
    policy,
  });
  // The delegation runs sub-turns on the runtime service, which is built after the catalog that holds agent tools.
  let toolRuntimeService: ToolRuntimeService | undefined;
  const delegation = new AgentDelegationService({
    agents: repositories.agents,
    chats: repositories.chats,
    users: repositories.users,
    providers,
    toolRuntime: () => toolRuntimeService!,
    ...(options.providerMaxRetries === undefined ? {} : { maxRetries: options.providerMaxRetries }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  const agentTools = new AgentToolService({
    tools: repositories.customTools,
    agents: repositories.agents,
    delegate: (request, context) => delegation.delegate(request, context),
    reservedNames: () => options.registry.listEntries().map((entry) => entry.tool.definition.name),
    policy: () => policy,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  const catalog = createToolCatalog(options.registry, [
    ...(options.toolSources ?? []),
    mcp.toolSource,
    agentTools.toolSource,
  ]);
  const chats = new ChatService(
    repositories.chats,
    repositories.freshnessLedger,
    policy,
    repositories.agents,
  );
  const approvals = new ApprovalService({
    approvals: repositories.toolApprovals,
    toolSettings: repositories.toolSettings,
    agents: repositories.agents,
    ...(options.approvalPollIntervalMs === undefined
      ? {}
      : { pollIntervalMs: options.approvalPollIntervalMs }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  const toolRuntime = (toolRuntimeService = new ToolRuntimeService({
    isApprovedForSession: (call, subjects) => approvals.isApprovedForSession(call, subjects),
    catalog,
    toolSettings: repositories.toolSettings,
    agents: repositories.agents,
    secrets,
    recorder: repositories.toolExecutions,
    freshnessLedger: repositories.freshnessLedger,
    http: options.http,
    logger: options.logger,
    protectedPaths: options.protectedPaths,
    policy,
    textCompletionFor: (user) =>
      createTextCompletionService(user, {
        providers,
        ...(options.providerMaxRetries === undefined ? {} : { maxRetries: options.providerMaxRetries }),
        ...(options.logger === undefined ? {} : { logger: options.logger }),
      }),
  }));
  return {
    database: options.database,
    repositories,
    catalog,
    tokens: new ApiTokenService(repositories.users, repositories.apiTokens),
    toolSettings: new ToolSettingsService({
      repository: repositories.toolSettings,
      catalog,
      logger: options.logger,
      policy,
    }),
    toolRuntime,
    secrets,
    chats,
    agents: new AgentService(repositories.agents, repositories.providerConfigs),
    agentTools,
    providers,
    chatTurns: new ChatTurnService({
      chats,
      agents: repositories.agents,
      messages: repositories.chatMessages,
      providers,
      toolRuntime,
      approvals,
      imageStore: options.imageStore,
      maxRetries: options.providerMaxRetries,
      logger: options.logger,
    }),
    mcp,
    approvals,
    imageStore: options.imageStore,
    policy,
    flush: () => repositories.toolExecutions.flush(),
  };
}
