import { ToolSettingsError, ToolportError, isToolportError } from '../core/errors.ts';
import {
  getDefaultToolSettings,
  getSafeEffectiveToolSettings,
  normalizeToolParameters,
} from '../core/settings-policy.ts';
import type { RegistryEntry, ToolSourceKind } from '../core/tool-registry.ts';
import type {
  ToolCategory,
  ToolParameterDescriptor,
  ToolParameters,
  ToolportLogger,
} from '../core/tool-types.ts';
import {
  toSettingsInput,
  type StoredToolSettings,
  type ToolSettingsRepository,
} from '../persistence/repositories/tool-settings-repository.ts';
import { CHILD_ENVIRONMENT_PARAMETER, assertChildEnvironmentAllowed } from '../policy/child-environment.ts';
import { DEFAULT_OPERATOR_POLICY, type OperatorPolicy } from '../policy/operator-policy.ts';
import type { PolicySubject } from '../policy/policy-denied.ts';
import {
  assertToolMayBeEnabled,
  isToolRemovedByPolicy,
  toolPolicyVerdict,
  type ToolPolicyVerdict,
} from '../policy/tool-access.ts';
import { DEFAULT_APPROVAL_TIMEOUT_SECONDS } from '../core/tool-approval.ts';
import {
  coerceStoredPermissionRule,
  parseApprovalTimeoutSeconds,
  parsePermissionRule,
  type PermissionRule,
} from '../permissions/permission-rule.ts';
import type { ToolCatalog } from './tool-catalog.ts';

/** What GET /api/settings/tools returns per tool: enough for the UI to render its form (API-1, CORE-1). */
export interface ToolSettingsDescriptor {
  name: string;
  title: string;
  description: string;
  category: ToolCategory;
  source: ToolSourceKind;
  /** A code tool's file (CODE-1). */
  file?: string;
  /** False (with `policy.allowed` false) for a tool the operator policy keeps from this user, whatever was saved. */
  enabled: boolean;
  /** AUTH-2: whether the operator policy lets this user enable the tool, and why not (`tools.adminOnly`). */
  policy: ToolPolicyVerdict;
  enabledByDefault: boolean;
  canDisable: boolean;
  /** Effective values: defaults < saved. */
  parameters: ToolParameters;
  parameterDescriptors: ToolParameterDescriptorView[];
  /** Issue 16: the user's permission rule (`"allow"` when none was saved). */
  permission: PermissionRule;
  approvalTimeoutSeconds: number;
  /** When the user last saved settings for this tool, or null when they never did. */
  updatedAt: string | null;
}

/** A descriptor as the API sends it (a mutable copy of the tool's metadata). */
export type ToolParameterDescriptorView = Omit<ToolParameterDescriptor, 'allowedValues' | 'default'> & {
  default: unknown;
  allowedValues?: string[];
};

function toDescriptorView(descriptor: ToolParameterDescriptor): ToolParameterDescriptorView {
  const { allowedValues, ...rest } = descriptor;
  return allowedValues === undefined ? { ...rest } : { ...rest, allowedValues: [...allowedValues] };
}

/** Issue 11: the views are built once per tool (a listing describes every tool on every request), frozen. */
const descriptorViews = new WeakMap<
  readonly ToolParameterDescriptor[],
  readonly ToolParameterDescriptorView[]
>();

function descriptorViewsOf(descriptors: readonly ToolParameterDescriptor[]): ToolParameterDescriptorView[] {
  let views = descriptorViews.get(descriptors);
  if (views === undefined) {
    views = Object.freeze(descriptors.map((descriptor) => Object.freeze(toDescriptorView(descriptor))));
    descriptorViews.set(descriptors, views);
  }
  return views as ToolParameterDescriptorView[];
}

/** The user's tools (sorted by name) and saved rows, as `ToolSettingsService.list` reads them. */
export interface ToolListingInputs {
  readonly entries: readonly RegistryEntry[];
  readonly saved: ReadonlyMap<string, StoredToolSettings>;
}

/** `PUT /api/settings/tools/:toolName`. A parameter set to `null` goes back to its default. */
export interface ToolSettingsUpdate {
  enabled?: boolean;
  parameters?: Record<string, unknown>;
  /** Issue 16: an action or an ordered pattern → action object; `null` forgets the rule (back to allow). */
  permission?: unknown;
  /** 5–3600; `null` goes back to the default. */
  approvalTimeoutSeconds?: unknown;
}

export interface ToolSettingsServiceOptions {
  repository: ToolSettingsRepository;
  catalog: ToolCatalog;
  logger?: ToolportLogger;
  policy?: OperatorPolicy;
  /** Called after a user's saved settings changed (runtime caches drop that user's entry). */
  onChange?: (userId: string) => void;
  /**
   * Tools listed for settings only, not offered by the catalog: a user's workspace tools (WS-1, `source:
   * 'workspace'`), which a runtime gets only for a chat bound to their directory.
   */
  listSettingsOnlyEntries?: (userId: string) => Promise<readonly RegistryEntry[]>;
}

/** Seed "Arquitetura": the application layer between the routes and registry + policy + repository. */
export class ToolSettingsService {
  readonly #repository: ToolSettingsRepository;
  readonly #catalog: ToolCatalog;
  readonly #logger: ToolportLogger | undefined;
  readonly #policy: OperatorPolicy;
  readonly #onChange: ((userId: string) => void) | undefined;
  readonly #listSettingsOnlyEntries: ToolSettingsServiceOptions['listSettingsOnlyEntries'];

  constructor(options: ToolSettingsServiceOptions) {
    this.#repository = options.repository;
    this.#catalog = options.catalog;
    this.#logger = options.logger;
    this.#policy = options.policy ?? DEFAULT_OPERATOR_POLICY;
    this.#onChange = options.onChange;
    this.#listSettingsOnlyEntries = options.listSettingsOnlyEntries;
  }

  async #listEntries(userId: string): Promise<RegistryEntry[]> {
    const [entries, settingsOnly] = await Promise.all([
      this.#catalog.listForUser(userId),
      this.#listSettingsOnlyEntries?.(userId) ?? Promise.resolve([]),
    ]);
    if (settingsOnly.length === 0) return entries;
    const names = new Set(entries.map((entry) => entry.tool.definition.name));
    const merged = [...entries, ...settingsOnly.filter((entry) => !names.has(entry.tool.definition.name))];
    return merged.sort((a, b) => a.tool.definition.name.localeCompare(b.tool.definition.name));
  }

  /** Every tool the user has, minus those the policy removes (`tools.disabled`); admin-only ones stay, marked. */
  async list(user: PolicySubject): Promise<ToolSettingsDescriptor[]> {
    return this.describeListing(user, await this.listingInputs(user));
  }

  /**
   * What `list` is built from besides the user and the (frozen) policy. `describeListing` is a pure function of them:
   * a caller may keep what it made of one set of inputs while the next set holds the same objects (issue 11:
   * `GET /api/settings/tools` keeps its serialized body, http/tool-listing-cache.ts).
   */
  async listingInputs(user: PolicySubject): Promise<ToolListingInputs> {
    const [entries, saved] = await Promise.all([
      this.#listEntries(user.id),
      this.#repository.listForUser(user.id),
    ]);
    return { entries, saved };
  }

  describeListing(user: PolicySubject, { entries, saved }: ToolListingInputs): ToolSettingsDescriptor[] {
    return entries
      .filter((entry) => !isToolRemovedByPolicy(this.#policy, entry.tool.definition.name))
      .map((entry) => this.#describe(user, entry, saved.get(entry.tool.definition.name)));
  }

  async get(user: PolicySubject, toolName: string): Promise<ToolSettingsDescriptor> {
    const entry = await this.#find(user.id, toolName);
    return this.#describe(user, entry, await this.#repository.get(user.id, toolName));
  }

  /**
   * Validates the update strictly (422 `ToolSettingsError` naming the parameter), then merges it into the saved row
   * atomically. Saved parameters are kept unless the update names them; stale saved values are never re-validated
   * here — they are coerced at run time like any stored value.
   */
  async update(
    user: PolicySubject,
    toolName: string,
    update: ToolSettingsUpdate,
  ): Promise<ToolSettingsDescriptor> {
    const userId = user.id;
    // `approvalTimeoutSeconds` is a setting of every tool, so it is accepted among the parameters too.
    if (update.parameters !== undefined && 'approvalTimeoutSeconds' in update.parameters) {
      const { approvalTimeoutSeconds, ...parameters } = update.parameters;
      update = {
        ...update,
        parameters,
        approvalTimeoutSeconds: update.approvalTimeoutSeconds ?? approvalTimeoutSeconds,
      };
    }
    const entry = await this.#find(userId, toolName);
    const { tool } = entry;
    if (update.enabled === false && !tool.settings.canDisable) {
      throw new ToolSettingsError(`${toolName} cannot be disabled.`, 'enabled');
    }
    if (update.enabled === true) assertToolMayBeEnabled(this.#policy, user, toolName);
    // Binds admins too: a prompt-injected model, not only the user, is the threat (AUTH-2).
    assertChildEnvironmentAllowed(this.#policy, toolName, update.parameters?.[CHILD_ENVIRONMENT_PARAMETER]);
    const resets: string[] = [];
    const changes: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(update.parameters ?? {})) {
      if (value === null) resets.push(name);
      else changes[name] = value;
    }
    let normalized: ToolParameters;
    try {
      normalized = normalizeToolParameters(tool, changes);
      // Unknown names are refused for resets too.
      normalizeToolParameters(
        tool,
        Object.fromEntries(resets.map((name) => [name, getDefaultToolSettings(tool).parameters[name]])),
      );
    } catch (error) {
      if (isToolportError(error)) {
        const parameter = typeof error.details?.parameter === 'string' ? error.details.parameter : undefined;
        throw new ToolSettingsError(error.message, parameter, error);
      }
      throw error;
    }
    const permission =
      update.permission === undefined || update.permission === null
        ? update.permission
        : parsePermissionRule(update.permission);
    const timeout =
      update.approvalTimeoutSeconds === undefined || update.approvalTimeoutSeconds === null
        ? update.approvalTimeoutSeconds
        : parseApprovalTimeoutSeconds(update.approvalTimeoutSeconds);
    const stored = await this.#repository.update(userId, toolName, (current) => {
      const parameters: Record<string, unknown> = { ...current?.parameters, ...normalized };
      for (const name of resets) delete parameters[name];
      const enabled = update.enabled ?? current?.enabled;
      const nextPermission = permission === undefined ? current?.permission : (permission ?? undefined);
      const nextTimeout = timeout === undefined ? current?.approvalTimeoutSeconds : (timeout ?? undefined);
      return {
        ...(enabled === undefined ? {} : { enabled }),
        parameters,
        ...(nextPermission === undefined ? {} : { permission: nextPermission }),
        ...(nextTimeout === undefined ? {} : { approvalTimeoutSeconds: nextTimeout }),
      };
    });
    this.#onChange?.(user.id);
    return this.#describe(user, entry, stored);
  }

  /** Forgets the user's saved settings for a tool: it is back to its defaults. */
  async reset(user: PolicySubject, toolName: string): Promise<ToolSettingsDescriptor> {
    const entry = await this.#find(user.id, toolName);
    await this.#repository.delete(user.id, toolName);
    this.#onChange?.(user.id);
    return this.#describe(user, entry, undefined);
  }

  async #find(userId: string, toolName: string): Promise<RegistryEntry> {
    const entry = isToolRemovedByPolicy(this.#policy, toolName)
      ? undefined
      : (await this.#listEntries(userId)).find((candidate) => candidate.tool.definition.name === toolName);
    if (entry === undefined) {
      throw new ToolportError('not_found', `Unknown tool ${JSON.stringify(toolName)}.`, {
        details: { toolName },
      });
    }
    return entry;
  }

  #describe(
    user: PolicySubject,
    entry: RegistryEntry,
    saved: StoredToolSettings | undefined,
  ): ToolSettingsDescriptor {
    const { tool, source } = entry;
    const policy = toolPolicyVerdict(this.#policy, user, tool.definition.name);
    const effective = getSafeEffectiveToolSettings(
      tool,
      saved === undefined ? undefined : toSettingsInput(saved),
      undefined,
      this.#logger,
    );
    return {
      name: tool.definition.name,
      title: tool.settings.title,
      description: tool.settings.description,
      category: tool.settings.category,
      source: source.kind,
      ...(source.file === undefined ? {} : { file: source.file }),
      enabled: effective.enabled && policy.allowed,
      policy,
      enabledByDefault: tool.settings.enabledByDefault,
      canDisable: tool.settings.canDisable,
      parameters: effective.parameters,
      parameterDescriptors: descriptorViewsOf(tool.settings.parameterDescriptors),
      permission: coerceStoredPermissionRule(saved?.permission) ?? 'allow',
      approvalTimeoutSeconds: saved?.approvalTimeoutSeconds ?? DEFAULT_APPROVAL_TIMEOUT_SECONDS,
      updatedAt: saved?.updatedAt ?? null,
    };
  }
}
