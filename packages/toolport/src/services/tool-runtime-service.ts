import type { ToolExecutionRecorder } from '../core/execution-recorder.ts';
import type { RegistryEntry } from '../core/tool-registry.ts';
import { createToolRuntime, type ToolRuntime } from '../core/tool-runtime.ts';
import type {
  FreshnessLedger,
  OutboundHttpClient,
  TextCompletionService,
  ShellSandboxOptions,
  ToolServices,
  ToolSettingsInput,
  ToolportLogger,
} from '../core/tool-types.ts';
import type { AgentRecord, AgentRepository } from '../persistence/repositories/agent-repository.ts';
import type { ChatRecord } from '../persistence/repositories/chat-repository.ts';
import type { UserStateCache } from '../persistence/user-state-cache.ts';
import {
  toSettingsInput,
  type ToolSettingsRepository,
} from '../persistence/repositories/tool-settings-repository.ts';
import { CHILD_ENVIRONMENT_PARAMETER, withoutDeniedChildEnvironment } from '../policy/child-environment.ts';
import { fileAccessFor } from '../policy/file-access.ts';
import { DEFAULT_OPERATOR_POLICY, type OperatorPolicy } from '../policy/operator-policy.ts';
import type { PolicySubject } from '../policy/policy-denied.ts';
import { isToolRemovedByPolicy, toolPolicyVerdict } from '../policy/tool-access.ts';
import type { PermissionCall } from '../core/tool-approval.ts';
import { createPermissionCheck } from '../permissions/permission-check.ts';
import { applyAgentSelection, permissionRulesByTool } from './agent-tool-selection.ts';
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
  /** AUTH-2 (default `DEFAULT_OPERATOR_POLICY`). */
  policy?: OperatorPolicy;
  /** The user's models for tools that summarize (WEB-1, YT-1), on their own provider configurations. */
  textCompletionFor?: (user: PolicySubject) => TextCompletionService;
  /** FS-6 sandbox options for shell tools (ToolServices.shellSandbox). */
  shellSandbox?: ShellSandboxOptions;
  /** WS-1: the tools of an agent-mode chat's working directory that holds a tools.json. */
  workspaceTools?: WorkspaceToolAccess;
  /** Issue 16: `remember: 'session'` answers of earlier calls in the chat. */
  isApprovedForSession?: (call: PermissionCall, subjects: readonly string[]) => Promise<boolean>;
  /** Issue 11: whether a user's rows are unchanged since a runtime was built (`getReusableRuntime`). */
  userState?: Pick<UserStateCache, 'isCurrent' | 'token'>;
  /** The MCP pool's listing version of the user (grows when a server's tool list changes). */
  listingVersion?: (userId: string) => number;
  /** The operator's code tools as loaded now (RegisteredTool objects stay the same while their files do). */
  codeTools?: () => Promise<readonly RegistryEntry[]>;
}

/** How long `getReusableRuntime` keeps a runtime at most (a bound for anything no version covers). */
export const RUNTIME_REUSE_MAX_AGE_MS = 1_000;
const MAX_REUSABLE_RUNTIMES = 1_000;

export interface ReusableRuntimeOptions {
  origin?: WorkspaceToolRequest['origin'];
  maxAgeMs?: number;
}

interface ReusableRuntime {
  runtime: ToolRuntime;
  token: object;
  generation: number;
  listingVersion: number;
  codeTools: readonly RegistryEntry[];
  builtAt: number;
}

function sameEntries(left: readonly RegistryEntry[], right: readonly RegistryEntry[]): boolean {
  return left.length === right.length && left.every((entry, index) => entry.tool === right[index]!.tool);
}

export interface EnabledToolRuntimeOptions {
  /** Per-call extra tools (e.g. the MCP tools a turn already listed); they shadow catalog tools of one name. */
  extraEntries?: readonly RegistryEntry[];
  signal?: AbortSignal;
  /** Per-call services for tools (the user's image generation and image store), added to the shared ones. */
  toolServices?: Pick<ToolServices, 'images' | 'imageStore' | 'delegation'>;
  /**
   * The CLI's own confinement (`--workdir`, `--allow-path`), in place of the policy's per-user one, with its denied
   * paths added to the policy's (which still apply).
   */
  cliFileServices?: Pick<ToolServices, 'fileAccess' | 'protectedPaths'>;
  /** AGENT-1: the runtime of a sub-agent's turn, whose every call is recorded under this delegating call. */
  parentCallId?: string;
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
  readonly #generations = new Map<string, number>();
  readonly #reusable = new Map<string, ReusableRuntime>();

  constructor(options: ToolRuntimeServiceOptions) {
    this.#options = options;
  }

  /**
   * Bumps the user's generation: what their runtime is built from (saved settings, MCP server rows, a tool source's
   * rows) changed in this process. A cache of runtimes (`/mcp`) compares `generation` before reusing one.
   */
  invalidate(userId: string): void {
    this.#generations.set(userId, (this.#generations.get(userId) ?? 0) + 1);
  }

  generation(userId: string): number {
    return this.#generations.get(userId) ?? 0;
  }

  /**
   * The user's runtime outside any chat, reused across requests while nothing it was built from changed: the user's
   * rows (`userState`: a write here, or a new `state_version` read by the request's token lookup — so also a write
   * through another instance), `invalidate`, the MCP listing version, the code tools, and at most `maxAgeMs`. A user
   * whose state is not current (no authenticated request since the last write) gets a fresh build. Issue 11 / 10.5:
   * the execute route and `/mcp` call this once per request.
   */
  async getReusableRuntime(user: PolicySubject, options: ReusableRuntimeOptions = {}): Promise<ToolRuntime> {
    const origin = options.origin ?? 'chat';
    const build = () => this.getEnabledToolRuntime(user, undefined, undefined, { origin });
    const states = this.#options.userState;
    if (states === undefined || !states.isCurrent(user.id)) return build();
    const key = `${user.id}:${user.isAdmin ? 'admin' : 'user'}:${origin}`;
    // Everything is read before the build: a change during it leaves the entry stale at once.
    const token = states.token(user.id);
    const generation = this.generation(user.id);
    const listingVersion = this.#options.listingVersion?.(user.id) ?? 0;
    const codeTools = (await this.#options.codeTools?.()) ?? [];
    const cached = this.#reusable.get(key);
    if (
      cached !== undefined &&
      cached.token === token &&
      cached.generation === generation &&
      cached.listingVersion === listingVersion &&
      sameEntries(cached.codeTools, codeTools) &&
      Date.now() - cached.builtAt < (options.maxAgeMs ?? RUNTIME_REUSE_MAX_AGE_MS)
    ) {
      return cached.runtime;
    }
    const builtAt = Date.now();
    const runtime = await build();
    this.#reusable.delete(key);
    if (this.#reusable.size >= MAX_REUSABLE_RUNTIMES)
      this.#reusable.delete(this.#reusable.keys().next().value!);
    this.#reusable.set(key, { runtime, token, generation, listingVersion, codeTools, builtAt });
    return runtime;
  }

  /**
   * Loads the user's saved settings, merges them with defaults, applies the agent's tool selection (agent_tools rows:
   * enabled rows form an allowlist when there are any, disabled rows are denials), adds the user's extra tools
   * (catalog sources and `options.extraEntries`) and returns the enabled definitions with their executor.
   */
  async getEnabledToolRuntime(
    user: PolicySubject,
    chat?: ChatRecord | null,
    agent?: AgentRecord | null,
    options: EnabledToolRuntimeOptions = {},
  ): Promise<ToolRuntime> {
    const { catalog, toolSettings, secrets } = this.#options;
    const workingDirectory = chat?.workingDirectory ?? undefined;
    const workspaceTools = this.#options.workspaceTools;
    const [saved, catalogExtras, agentRows, workspaceEntries] = await Promise.all([
      toolSettings.listForUser(user.id),
      catalog.listExtra(user.id, options.signal),
      agent ? this.#options.agents.listTools(user.id, agent.id) : Promise.resolve([]),
      // WS-1: the tools.json of an agent-mode chat's working directory.
      workspaceTools !== undefined && workingDirectory !== undefined && chat?.mode === 'agent'
        ? workspaceTools(user, workingDirectory, {
            origin: options.origin ?? 'chat',
            ...(options.workspaceTrusted === true ? { trusted: true } : {}),
          })
        : Promise.resolve([]),
    ]);
    const policy = this.#options.policy ?? DEFAULT_OPERATOR_POLICY;
    const savedSettings = new Map<string, ToolSettingsInput>();
    for (const [name, stored] of saved) savedSettings.set(name, toSettingsInput(stored));
    // AUTH-2: tools the policy removes, or keeps to admins, are never in this user's runtime, whatever a row says.
    const permitted = (entry: RegistryEntry): boolean => {
      const name = entry.tool.definition.name;
      return !isToolRemovedByPolicy(policy, name) && toolPolicyVerdict(policy, user, name).allowed;
    };
    const registered = catalog.listRegistered().filter(permitted);
    const extras = [...catalogExtras, ...workspaceEntries, ...(options.extraEntries ?? [])].filter(permitted);
    const selection = agent
      ? applyAgentSelection(agentRows, registered, extras, savedSettings, this.#options.logger)
      : undefined;
    const effectiveSettings = selection?.savedSettings ?? savedSettings;
    for (const input of effectiveSettings.values()) {
      const names = input.parameters?.[CHILD_ENVIRONMENT_PARAMETER];
      // A list saved (or overlaid by an agent) before the policy changed must not pass a denied name now.
      if (names !== undefined) {
        input.parameters = {
          ...input.parameters,
          [CHILD_ENVIRONMENT_PARAMETER]: withoutDeniedChildEnvironment(policy, names),
        };
      }
    }
    const protectedPaths = [
      ...policy.deniedPaths,
      ...(this.#options.protectedPaths ?? []),
      ...(options.cliFileServices?.protectedPaths ?? []),
    ];
    const fileAccess =
      options.cliFileServices === undefined
        ? fileAccessFor(policy, user, workingDirectory)
        : (options.cliFileServices.fileAccess ?? {});
    const rulesByTool = permissionRulesByTool(saved, agent ? agentRows : []);
    const permission =
      rulesByTool.size === 0
        ? undefined
        : createPermissionCheck({
            rulesFor: (name) => rulesByTool.get(name),
            ...(this.#options.isApprovedForSession === undefined
              ? {}
              : { isApprovedForSession: this.#options.isApprovedForSession }),
          });
    return createToolRuntime({
      ...(permission === undefined ? {} : { permission }),
      entries: registered,
      extraEntries: selection?.extraEntries ?? extras,
      savedSettings: effectiveSettings,
      userId: user.id,
      chatId: chat?.id,
      agentId: agent?.id,
      mode: chat?.mode ?? 'chat',
      workingDirectory,
      agentPermissions: selection?.permissions,
      ...(options.parentCallId === undefined ? {} : { parentCallId: options.parentCallId }),
      environment: {
        recorder: this.#options.recorder,
        logger: this.#options.logger,
        maxResultCharacters: this.#options.maxResultCharacters,
        services: {
          freshnessLedger: this.#options.freshnessLedger,
          secrets: secrets.createReader(user.id),
          protectedPaths,
          fileAccess,
          ...(this.#options.http === undefined ? {} : { http: this.#options.http }),
          ...(this.#options.textCompletionFor === undefined
            ? {}
            : { textCompletion: this.#options.textCompletionFor(user) }),
          ...(this.#options.shellSandbox === undefined ? {} : { shellSandbox: this.#options.shellSandbox }),
          ...options.toolServices,
        },
      },
    });
  }
}
