import type { AgentToolPermissions } from '../core/execute-tool.ts';
import type { ToolExecutionRecorder } from '../core/execution-recorder.ts';
import type { RegistryEntry } from '../core/tool-registry.ts';
import { createToolRuntime, type ToolRuntime } from '../core/tool-runtime.ts';
import type {
  FreshnessLedger,
  OutboundHttpClient,
  ToolServices,
  ToolSettingsInput,
  ToolportLogger,
} from '../core/tool-types.ts';
import type { AgentRecord, AgentRepository } from '../persistence/repositories/agent-repository.ts';
import type { ChatRecord } from '../persistence/repositories/chat-repository.ts';
import {
  toSettingsInput,
  type ToolSettingsRepository,
} from '../persistence/repositories/tool-settings-repository.ts';
import type { SecretService } from './secret-service.ts';
import type { ToolCatalog } from './tool-catalog.ts';
import type { WorkspaceToolAccess, WorkspaceToolRequest } from './workspace-tool-access.ts';

export interface ToolRuntimeServiceOptions {
  catalog: ToolCatalog;
  toolSettings: ToolSettingsRepository;
  agents: AgentRepository;
  secrets: SecretService;
  recorder: ToolExecutionRecorder;
  freshnessLedger: FreshnessLedger;
  http?: OutboundHttpClient;
  logger?: ToolportLogger;
  maxResultCharacters?: number;
  /** Denied to every filesystem tool (ToolServices.protectedPaths): the server's data directory. */
  protectedPaths?: readonly string[];
  /** WS-1: the tools of an agent-mode chat's working directory that holds a tools.json. */
  workspaceTools?: WorkspaceToolAccess;
}

export interface EnabledToolRuntimeOptions {
  /** Per-call extra tools (e.g. the MCP tools a turn already listed); they shadow catalog tools of one name. */
  extraEntries?: readonly RegistryEntry[];
  signal?: AbortSignal;
  /** Per-call services for tools (the user's image generation and image store), added to the shared ones. */
  toolServices?: Pick<ToolServices, 'images' | 'imageStore'>;
  /** Who the runtime serves (WS-1 script origin: `g.secrets` is blocked under `mcp`). Default `chat`. */
  origin?: WorkspaceToolRequest['origin'];
  /** The working directory was named by the operator (`toolport mcp --workdir`): its tools.json needs no trust row. */
  workspaceTrusted?: boolean;
}

/**
 * SPEC CORE-4: the one place a turn, the capability inspector and the execute endpoint get their tools from, so all
 * three see exactly the same enabled definitions.
 */
export class ToolRuntimeService {
  readonly #options: ToolRuntimeServiceOptions;

  constructor(options: ToolRuntimeServiceOptions) {
    this.#options = options;
  }

  /**
   * Loads the user's saved settings, merges them with defaults, applies the agent's tool selection (agent_tools rows:
   * enabled rows form an allowlist when there are any, disabled rows are denials), adds the user's extra tools
   * (catalog sources and `options.extraEntries`) and returns the enabled definitions with their executor.
   */
  async getEnabledToolRuntime(
    user: { id: string },
    chat?: ChatRecord | null,
    agent?: AgentRecord | null,
    options: EnabledToolRuntimeOptions = {},
  ): Promise<ToolRuntime> {
    const { catalog, toolSettings, secrets } = this.#options;
    const workingDirectory = chat?.workingDirectory ?? undefined;
    const workspaceTools = this.#options.workspaceTools;
    const [saved, catalogExtras, agentPermissions, workspaceEntries] = await Promise.all([
      toolSettings.listForUser(user.id),
      catalog.listExtra(user.id, options.signal),
      agent ? this.#agentPermissions(user.id, agent.id) : Promise.resolve(undefined),
      workspaceTools !== undefined && workingDirectory !== undefined && chat?.mode === 'agent'
        ? workspaceTools(user, workingDirectory, {
            origin: options.origin ?? 'chat',
            ...(options.workspaceTrusted === true ? { trusted: true } : {}),
          })
        : Promise.resolve([]),
    ]);
    const savedSettings = new Map<string, ToolSettingsInput>();
    for (const [name, stored] of saved) savedSettings.set(name, toSettingsInput(stored));
    return createToolRuntime({
      entries: catalog.listRegistered(),
      extraEntries: [...catalogExtras, ...workspaceEntries, ...(options.extraEntries ?? [])],
      savedSettings,
      userId: user.id,
      chatId: chat?.id,
      agentId: agent?.id,
      mode: chat?.mode ?? 'chat',
      workingDirectory,
      agentPermissions,
      environment: {
        recorder: this.#options.recorder,
        logger: this.#options.logger,
        maxResultCharacters: this.#options.maxResultCharacters,
        services: {
          freshnessLedger: this.#options.freshnessLedger,
          secrets: secrets.createReader(user.id),
          ...(this.#options.protectedPaths === undefined
            ? {}
            : { protectedPaths: this.#options.protectedPaths }),
          ...(this.#options.http === undefined ? {} : { http: this.#options.http }),
          ...options.toolServices,
        },
      },
    });
  }

  async #agentPermissions(userId: string, agentId: string): Promise<AgentToolPermissions | undefined> {
    const rows = await this.#options.agents.listTools(userId, agentId);
    if (rows.length === 0) return undefined;
    const allowed = rows.filter((row) => row.enabled).map((row) => row.toolName);
    const denied = rows.filter((row) => !row.enabled).map((row) => row.toolName);
    const permissions: AgentToolPermissions = {};
    if (allowed.length > 0) permissions.allowedTools = allowed;
    if (denied.length > 0) permissions.deniedTools = denied;
    return permissions;
  }
}
