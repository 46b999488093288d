/**
 * SPEC DB-1: one schema for SQLite and PostgreSQL. Column types are the portable subset on purpose: timestamps are
 * ISO-8601 UTC text (sorts chronologically), booleans are integers 0/1, JSON is text. Both engines then return the
 * same JavaScript values and the repositories need no per-engine code.
 */
import type { Generated } from 'kysely';

export interface UsersTable {
  id: string;
  name: string;
  is_admin: number;
  created_at: string;
  /** Issue 11: grows with every write to a row the user's cached listings are built from (migration 0011). */
  state_version: Generated<number>;
}

export interface ApiTokensTable {
  id: string;
  user_id: string;
  /** sha256 hex of the token; the token itself is never stored. */
  token_hash: string;
  label: string;
  created_at: string;
  last_used_at: string | null;
}

export interface UserToolSettingsTable {
  user_id: string;
  tool_name: string;
  /** 0/1, or null when only parameters were saved. */
  enabled: number | null;
  /** JSON object of saved parameter values. */
  parameters: string;
  updated_at: string;
  /** Issue 16: JSON of a permission rule (an action or pattern → action), null for none. */
  permission: string | null;
  approval_timeout_seconds: number | null;
}

export interface SecretsTable {
  user_id: string;
  name: string;
  /** `v1.<iv>.<tag>.<ciphertext>` (base64url), AES-256-GCM with the owner as associated data. */
  ciphertext: string;
  created_at: string;
  updated_at: string;
}

export interface ToolsTable {
  id: string;
  user_id: string;
  name: string;
  /** `http` or `agent` (SPEC §4 custom tools stored as configuration). */
  type: string;
  config: string;
  enabled: number;
  created_at: string;
  updated_at: string;
}

export interface AgentsTable {
  id: string;
  user_id: string;
  name: string;
  description: string;
  config: string;
  created_at: string;
  updated_at: string;
}

export interface AgentToolsTable {
  agent_id: string;
  tool_name: string;
  /** 1 allowed, 0 denied. */
  enabled: number;
  config: string;
  /** Issue 16: the agent's permission rule for this tool (JSON), null for none. */
  permission: string | null;
}

export interface McpServersTable {
  id: string;
  user_id: string;
  name: string;
  /** `stdio` or `http`. */
  transport: string;
  config: string;
  enabled: number;
  created_at: string;
  updated_at: string;
}

export interface ChatsTable {
  id: string;
  user_id: string;
  title: string;
  working_directory: string | null;
  mode: string;
  agent_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface FreshnessLedgerTable {
  scope: string;
  real_path: string;
  sha256: string;
  recorded_at: string;
}

export interface ToolExecutionsTable {
  id: string;
  call_id: string;
  tool_name: string;
  user_id: string;
  chat_id: string | null;
  agent_id: string | null;
  started_at: string;
  duration_ms: number;
  outcome: string;
  result_size: number;
  parent_call_id: string | null;
  /** Issue 16: JSON `{decision, decidedBy, rule, remember, decidedAt}` when a permission rule applied. */
  approval: string | null;
}

export interface ToolApprovalsTable {
  id: string;
  user_id: string;
  chat_id: string;
  call_id: string;
  tool_name: string;
  arguments: string;
  /** The matched rule. */
  reason: string;
  /** JSON array of exact patterns an `always` writes. */
  subjects: string;
  /** The chat's agent, when its rule is one that asked (`always` writes the allow rule there too). */
  agent_id: string | null;
  /** JSON array: whose rules asked (`user`, `agent`). */
  asked_by: string;
  /** pending | approved | denied | expired */
  status: string;
  remember: string | null;
  message: string | null;
  decided_by: string | null;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
}

export interface ProviderConfigsTable {
  id: string;
  user_id: string;
  name: string;
  provider: string;
  base_url: string | null;
  default_model: string;
  api_key_secret: string | null;
  created_at: string;
  updated_at: string;
}

export interface ChatMessagesTable {
  id: string;
  chat_id: string;
  position: number;
  role: string;
  content: string;
  /** JSON `[{id, name, arguments}]` on assistant messages. */
  tool_calls: string | null;
  tool_call_id: string | null;
  tool_name: string | null;
  is_error: number;
  created_at: string;
}

/** IMG-1: generated images, served to their owner by any instance (`GET /api/images/:id`). */
export interface ImagesTable {
  id: string;
  user_id: string;
  chat_id: string | null;
  call_id: string | null;
  mime_type: string;
  model: string;
  bytes: number;
  data: Uint8Array;
  created_at: string;
}

export interface WorkspaceTrustTable {
  user_id: string;
  directory: string;
  sha256: string;
  created_at: string;
  updated_at: string;
}

export interface DatabaseSchema {
  users: UsersTable;
  api_tokens: ApiTokensTable;
  user_tool_settings: UserToolSettingsTable;
  secrets: SecretsTable;
  tools: ToolsTable;
  agents: AgentsTable;
  agent_tools: AgentToolsTable;
  mcp_servers: McpServersTable;
  chats: ChatsTable;
  freshness_ledger: FreshnessLedgerTable;
  tool_executions: ToolExecutionsTable;
  tool_approvals: ToolApprovalsTable;
  provider_configs: ProviderConfigsTable;
  chat_messages: ChatMessagesTable;
  images: ImagesTable;
  workspace_trust: WorkspaceTrustTable;
}
