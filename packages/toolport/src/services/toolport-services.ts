import { ApprovalService } from './approval-service.ts';
import { DatabaseImageStore, type ServedImageStore } from './database-image-store.ts';
import type { ToolRegistry } from '../core/tool-registry.ts';
import type { OutboundHttpClient, ShellSandboxOptions, ToolportLogger } from '../core/tool-types.ts';
import { createServerCodeTools, type ServerCodeTools } from '../custom-tools/code-tool-server-source.ts';
import type { ToolportDatabase } from '../persistence/database.ts';
import { createRepositories, type Repositories } from '../persistence/repositories.ts';
import { UserStateCache } from '../persistence/user-state-cache.ts';
import { DEFAULT_OPERATOR_POLICY, type OperatorPolicy } from '../policy/operator-policy.ts';
import { SecretCipher } from '../secrets/secret-cipher.ts';
import { AgentDelegationService } from './agent-delegation-service.ts';
import { AgentService } from './agent-service.ts';
import { AgentToolService } from './agent-tool-service.ts';
import { ConfigCredentials } from '../credentials/config-credentials.ts';
import type { OutboundAllowlist } from '../net/ip-address-policy.ts';
import { mergeOutboundAllowlists, parseOutboundAllowlist } from '../net/parse-outbound-allowlist.ts';
import type { HostResolver } from '../net/outbound-url.ts';
import { HttpToolService } from './http-tool-service.ts';
import { mcpCredentialLayout } from '../mcp/mcp-server-config.ts';
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
  /**
   * Where generate_image keeps images (per user) and `GET /api/images/:id` reads them. Default: the database, so
   * every instance sharing it serves every image; a `FileImageStore` on a shared directory also works.
   */
  imageStore?: ServedImageStore;
  /** Paths no filesystem tool may touch, whatever a user's settings say: `toolport serve` passes its data dir. */
  protectedPaths?: readonly string[];
  /** How shell tools are sandboxed: `writablePaths` (operator policy), the call-record directory, limits. */
  shellSandbox?: ShellSandboxOptions;
  /** The operator's opt-in fallback for provider API keys (see ProviderConfigService). */
  providerKeyEnvironment?: Readonly<Record<string, string | undefined>>;
  /** SDK retries on provider 429/5xx (default 2). */
  providerMaxRetries?: number;
  /** SPEC AUTH-2: what non-admin users may do (default: `DEFAULT_OPERATOR_POLICY`, safe for untrusted users). */
  policy?: OperatorPolicy;
  /**
   * NET-1's operator allowlist for HTTP tools and OpenAPI URLs (default: the MCP pool's, i.e. `TOOLPORT_OUTBOUND_ALLOW`
   * in serve), joined with the policy's `outboundAllow`.
   */
  outboundAllowlist?: OutboundAllowlist;
  /** Resolver for HTTP tools' connections (tests); the system resolver otherwise. */
  outboundResolve?: HostResolver;
  /**
   * CODE-1: project directories whose `.toolport/tools` and `.opencode/tool(s)` are loaded for every user
   * (`--code-tool-roots`, `TOOLPORT_CODE_TOOL_ROOTS`), before the policy's `codeToolRoots`.
   */
  codeToolRoots?: readonly string[];
  /** WS-1 workspace scripts: `TOOLPORT_CHROMIUM_PATH`/PATH for g.nav (default process.env). */
  workspaceEnvironment?: Readonly<Record<string, string | undefined>>;
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
  readonly imageStore: ServedImageStore;
  /** The operator policy every service enforces (frozen). */
  readonly policy: OperatorPolicy;
  /** Users' declarative HTTP tools (HTTP-1); `httpTools.close()` on shutdown ends their connections. */
  readonly httpTools: HttpToolService;
  /** The operator's code tools (CODE-1): part of every user's catalog; their load errors for the settings API. */
  readonly codeTools: ServerCodeTools;
  /** WS-1: every workspace's tools.json, loaded once per directory. `workspaceTools.close()` on shutdown. */
  readonly workspaceTools: WorkspaceToolService;
  /** Waits for background audit inserts; the caller closes the database. */
  flush(): Promise<void>;
}

export function createToolportServices(options: ToolportServicesOptions): ToolportServices {
  const policy = options.policy ?? DEFAULT_OPERATOR_POLICY;
  const cipher = new SecretCipher(options.secretKey);
  // Issue 11: per-user reads cached under the `state_version` each authenticated request reads with its token.
  const userState = new UserStateCache();
  const configCredentials = new ConfigCredentials(cipher);
  // HTTP-1/MCP-1: literal credentials in stored configs are sealed at rest; readers get them opened.
  const repositories = createRepositories(options.database, options.logger, {
    userState,
    mcpServerConfigCodec: {
      seal: (userId, transport, config) =>
        configCredentials.seal(userId, config, mcpCredentialLayout(transport)),
      open: (userId, transport, config) => {
        try {
          return configCredentials.open(userId, config, mcpCredentialLayout(transport));
        } catch {
          // A changed key: the row stays sealed, fails validation, and reads as a failed server (never as plaintext).
          return config;
        }
      },
    },
  });
  const imageStore = options.imageStore ?? new DatabaseImageStore(repositories.images);
  const secrets = new SecretService(repositories.secrets, cipher, userState);
  // NET-1's one operator allowlist for every request a model or script causes: the caller's (or the MCP pool's)
  // joined with the policy's `outboundAllow`.
  const outboundAllowlist = mergeOutboundAllowlists(
    options.outboundAllowlist ?? options.mcp?.outboundAllowlist,
    parseOutboundAllowlist(policy.outboundAllow),
  );
  const httpTools = new HttpToolService({
    repository: repositories.customTools,
    users: repositories.users,
    secrets,
    credentials: configCredentials,
    policy,
    outboundAllowlist,
    reservedNames: () => options.registry.listEntries().map((entry) => entry.tool.definition.name),
    ...(options.outboundResolve === undefined ? {} : { resolve: options.outboundResolve }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  secrets.addRedactionSource((userId) => httpTools.literalCredentialValues(userId));
  // SEC-1: an MCP server's literal header (and credential-like env) values are redacted like secrets.
  secrets.addRedactionSource(async (userId) =>
    (await repositories.mcpServers.list(userId)).flatMap((row) =>
      configCredentials.literalValues(userId, row.config, mcpCredentialLayout(row.transport)),
    ),
  );
  const mcp = new McpServerService({
    ...options.mcp,
    // NET-1's one allowlist: the policy's `outboundAllow` unless the caller passed the pool its own.
    outboundAllowlist: options.mcp?.outboundAllowlist ?? parseOutboundAllowlist(policy.outboundAllow),
    repository: repositories.mcpServers,
    secrets,
    reservedNames: () => options.registry.listEntries().map((entry) => entry.tool.definition.name),
    policy,
    isAdmin: async (userId) => (await repositories.users.findById(userId))?.isAdmin === true,
    // MCP-1 OAuth: tokens and registered clients sealed with the same key as secrets.
    oauth: { repository: repositories.mcpOAuth, users: repositories.users, cipher },
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  // SEC-1: a user's OAuth access and refresh tokens and client secrets are redacted like secrets.
  secrets.addRedactionSource(async (userId) => (await mcp.oauth?.literalValues(userId)) ?? []);
  const codeTools = createServerCodeTools([
    ...new Set([...(options.codeToolRoots ?? []), ...policy.codeToolRoots]),
  ]);
  const workspaceTools = createWorkspaceToolService({
    outboundAllowlist,
    ...(options.workspaceEnvironment === undefined ? {} : { env: options.workspaceEnvironment }),
    reservedNames: () => options.registry.listEntries().map((entry) => entry.tool.definition.name),
    ...(options.protectedPaths === undefined ? {} : { deniedPaths: options.protectedPaths }),
    missingSecretsHint: "set it in the user's secrets (PUT /api/secrets/NAME).",
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
  // Code tools first: a user's HTTP/agent tools and MCP tools of the same name shadow them, as they do built-ins.
  const catalog = createToolCatalog(options.registry, [
    () => codeTools.list(),
    ...(options.toolSources ?? []),
    httpTools.toolSource,
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
    // An `always` answer changes the user's rules: cached runtimes (`/mcp`) must pick them up.
    onRulesChanged: (userId) => toolRuntimeService?.invalidate(userId),
  });
  const toolRuntime = (toolRuntimeService = new ToolRuntimeService({
    isApprovedForSession: (call, subjects) => approvals.isApprovedForSession(call, subjects),
    catalog,
    userState,
    listingVersion: (userId) => mcp.pool.listingVersion(userId),
    codeTools: () => codeTools.list(),
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
    shellSandbox: options.shellSandbox,
    workspaceTools: createWorkspaceToolAccess({
      service: workspaceTools,
      users: repositories.users,
      trust: repositories.workspaceTrust,
      policy,
    }),
  }));
  return {
    database: options.database,
    repositories,
    catalog,
    tokens: new ApiTokenService(
      repositories.users,
      repositories.apiTokens,
      userState,
      options.database.authChanges,
    ),
    toolSettings: new ToolSettingsService({
      repository: repositories.toolSettings,
      catalog,
      logger: options.logger,
      policy,
      onChange: (userId) => toolRuntime.invalidate(userId),
      listSettingsOnlyEntries: (userId) =>
        listUserWorkspaceEntries(workspaceTools, repositories.workspaceTrust, chats, userId, userState),
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
      imageStore,
      maxRetries: options.providerMaxRetries,
      logger: options.logger,
    }),
    mcp,
    approvals,
    imageStore,
    policy,
    httpTools,
    codeTools,
    workspaceTools,
    flush: () => repositories.toolExecutions.flush(),
  };
}
