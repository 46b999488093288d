import {
  executeTool,
  type AgentToolPermissions,
  type ExecuteToolEnvironment,
  type NestedToolEvent,
  type ToolExecutionOutcome,
} from './execute-tool.ts';
import { getSafeEffectiveToolSettings } from './settings-policy.ts';
import type { ApproveCallback, PermissionCheck } from './tool-approval.ts';
import type { RegistryEntry, ToolLookup, ToolSource } from './tool-registry.ts';
import type {
  EffectiveToolSettings,
  RegisteredTool,
  ToolDefinition,
  ToolMode,
  ToolProgress,
  ToolServices,
  ToolSettingsInput,
} from './tool-types.ts';

/**
 * What a turn (and the capability inspector, and the MCP server) needs: the enabled tools with the definitions the
 * provider receives, and a way to execute a call with exactly the settings those definitions were built from.
 * `getEnabledToolRuntime` (services) loads the inputs from the database and calls `createToolRuntime`.
 */
export interface RuntimeTool {
  definition: ToolDefinition;
  source: ToolSource;
  settings: EffectiveToolSettings;
  tool: RegisteredTool;
}

export interface ToolCallRequest {
  callId?: string;
  toolName: string;
  /** Parsed arguments or the model's raw JSON text. */
  arguments: unknown;
}

export interface ToolCallOptions {
  signal?: AbortSignal;
  onProgress?: (progress: ToolProgress) => void;
  onPartialResult?: (partial: unknown) => void;
  onNestedEvent?: (event: NestedToolEvent) => void;
  /** Issue 16: who answers this call's `ask` (the agent loop emits `approval_requested` first). */
  approve?: ApproveCallback;
}

export interface ToolRuntime {
  readonly userId: string;
  readonly chatId: string | undefined;
  readonly agentId: string | undefined;
  readonly mode: ToolMode;
  readonly workingDirectory: string | undefined;
  /** Enabled tools, sorted by name: the list the provider receives. */
  readonly tools: readonly RuntimeTool[];
  /** The services every call receives (the inspector asks shell tools about their sandbox with them). */
  readonly services: ToolServices;
  execute(call: ToolCallRequest, options?: ToolCallOptions): Promise<ToolExecutionOutcome>;
}

export interface CreateToolRuntimeOptions {
  /** Registered tools (built-ins and custom), e.g. `registry.listEntries()`. */
  entries: readonly RegistryEntry[];
  /** Per-user tools that are not in the process registry (MCP tools, per-user HTTP tools). Shadow same-named entries. */
  extraEntries?: readonly RegistryEntry[];
  /** The user's saved settings by tool name. */
  savedSettings?: ReadonlyMap<string, ToolSettingsInput>;
  userId: string;
  chatId?: string;
  agentId?: string;
  mode?: ToolMode;
  workingDirectory?: string;
  agentPermissions?: AgentToolPermissions;
  environment?: Omit<ExecuteToolEnvironment, 'registry'>;
  /** AGENT-1: every call of this runtime is a sub-agent's, made for this delegating call. */
  parentCallId?: string;
  /** Issue 16: the permission rules of every call (`createPermissionCheck`). */
  permission?: PermissionCheck;
  /** Issue 16: the approver used when a call's options bring none (the CLI prompt, an MCP elicitation). */
  approve?: ApproveCallback;
}

function isAllowedForAgent(name: string, permissions: AgentToolPermissions | undefined): boolean {
  if (permissions === undefined) return true;
  if (permissions.deniedTools?.includes(name)) return false;
  return permissions.allowedTools === undefined || permissions.allowedTools.includes(name);
}

/** CORE-4 without the database: merge settings, apply the agent's selection, build the definitions. */
export function createToolRuntime(options: CreateToolRuntimeOptions): ToolRuntime {
  const byName = new Map<string, RegistryEntry>();
  for (const entry of options.entries) byName.set(entry.tool.definition.name, entry);
  for (const entry of options.extraEntries ?? []) byName.set(entry.tool.definition.name, entry);
  const logger = options.environment?.logger;

  const tools: RuntimeTool[] = [];
  for (const [name, entry] of byName) {
    if (!isAllowedForAgent(name, options.agentPermissions)) continue;
    const settings = getSafeEffectiveToolSettings(
      entry.tool,
      options.savedSettings?.get(name),
      undefined,
      logger,
    );
    if (!settings.enabled) continue;
    const definition = entry.tool.buildDefinition
      ? entry.tool.buildDefinition(settings)
      : entry.tool.definition;
    tools.push({ definition, source: entry.source, settings, tool: entry.tool });
  }
  tools.sort((a, b) => a.definition.name.localeCompare(b.definition.name));

  const lookup: ToolLookup = { get: (name) => byName.get(name)?.tool };
  return {
    userId: options.userId,
    chatId: options.chatId,
    agentId: options.agentId,
    mode: options.mode ?? 'chat',
    workingDirectory: options.workingDirectory,
    tools,
    services: options.environment?.services ?? {},
    execute: (call, callOptions = {}) =>
      executeTool(
        {
          toolName: call.toolName,
          arguments: call.arguments,
          callId: call.callId,
          userId: options.userId,
          chatId: options.chatId,
          agentId: options.agentId,
          mode: options.mode,
          workingDirectory: options.workingDirectory,
          savedSettings: options.savedSettings?.get(call.toolName),
          agentPermissions: options.agentPermissions,
          signal: callOptions.signal,
          onProgress: callOptions.onProgress,
          onPartialResult: callOptions.onPartialResult,
          onNestedEvent: callOptions.onNestedEvent,
          parentCallId: options.parentCallId,
          ...(options.permission === undefined ? {} : { permission: options.permission }),
          ...((callOptions.approve ?? options.approve) === undefined
            ? {}
            : { approve: callOptions.approve ?? options.approve }),
        },
        { ...options.environment, registry: lookup },
      ),
  };
}
