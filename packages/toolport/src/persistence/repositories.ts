import type { ToolportLogger } from '../core/tool-types.ts';
import type { ToolportDatabase } from './database.ts';
import { AgentRepository } from './repositories/agent-repository.ts';
import { ApiTokenRepository } from './repositories/api-token-repository.ts';
import { ChatMessageRepository } from './repositories/chat-message-repository.ts';
import { ChatRepository } from './repositories/chat-repository.ts';
import { CustomToolRepository } from './repositories/custom-tool-repository.ts';
import { FreshnessLedgerRepository } from './repositories/freshness-ledger-repository.ts';
import { ImageRepository } from './repositories/image-repository.ts';
import { McpOAuthRepository } from './repositories/mcp-oauth-repository.ts';
import { McpServerRepository, type StoredConfigCodec } from './repositories/mcp-server-repository.ts';
import { ProviderConfigRepository } from './repositories/provider-config-repository.ts';
import { SecretRepository } from './repositories/secret-repository.ts';
import { ToolApprovalRepository } from './repositories/tool-approval-repository.ts';
import { ToolExecutionRepository } from './repositories/tool-execution-repository.ts';
import { ToolSettingsRepository } from './repositories/tool-settings-repository.ts';
import { UserRepository } from './repositories/user-repository.ts';
import { WorkspaceTrustRepository } from './repositories/workspace-trust-repository.ts';
import { createLocalWriteObserver, UNCACHED_READS, type UserStateCache } from './user-state-cache.ts';

export interface Repositories {
  users: UserRepository;
  apiTokens: ApiTokenRepository;
  toolSettings: ToolSettingsRepository;
  secrets: SecretRepository;
  chats: ChatRepository;
  agents: AgentRepository;
  customTools: CustomToolRepository;
  mcpServers: McpServerRepository;
  mcpOAuth: McpOAuthRepository;
  freshnessLedger: FreshnessLedgerRepository;
  toolExecutions: ToolExecutionRepository;
  providerConfigs: ProviderConfigRepository;
  chatMessages: ChatMessageRepository;
  images: ImageRepository;
  workspaceTrust: WorkspaceTrustRepository;
  toolApprovals: ToolApprovalRepository;
}

export interface RepositoryOptions {
  /** Encrypts MCP servers' literal header/env values at rest (set by the services, which hold the key). */
  mcpServerConfigCodec?: StoredConfigCodec;
  /**
   * Issue 11: caches the per-user reads a request makes (settings, tool and MCP rows, trust, secrets) under the user's
   * `state_version`; every repository's writes to those tables drop it (a Kysely plugin on the shared handle).
   */
  userState?: UserStateCache;
}

export function createRepositories(
  database: ToolportDatabase,
  logger?: ToolportLogger,
  options: RepositoryOptions = {},
): Repositories {
  const { engine } = database;
  const states = options.userState;
  const db = states === undefined ? database.db : database.db.withPlugin(createLocalWriteObserver(states));
  const reads = states ?? UNCACHED_READS;
  return {
    users: new UserRepository(db),
    apiTokens: new ApiTokenRepository(db, engine),
    toolSettings: new ToolSettingsRepository(db, engine, reads),
    secrets: new SecretRepository(db, reads),
    chats: new ChatRepository(db),
    agents: new AgentRepository(db),
    customTools: new CustomToolRepository(db, reads),
    mcpServers: new McpServerRepository(db, options.mcpServerConfigCodec, reads),
    mcpOAuth: new McpOAuthRepository(db),
    freshnessLedger: new FreshnessLedgerRepository(db),
    toolExecutions: new ToolExecutionRepository(db, logger, database.offThreadWriter),
    providerConfigs: new ProviderConfigRepository(db),
    chatMessages: new ChatMessageRepository(db),
    images: new ImageRepository(db),
    workspaceTrust: new WorkspaceTrustRepository(db, reads),
    toolApprovals: new ToolApprovalRepository(db),
  };
}
