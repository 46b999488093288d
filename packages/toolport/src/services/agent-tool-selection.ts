import type { AgentToolPermissions } from '../core/execute-tool.ts';
import type { RegistryEntry } from '../core/tool-registry.ts';
import { normalizeToolParameters } from '../core/settings-policy.ts';
import type { ToolSettingsInput, ToolportLogger } from '../core/tool-types.ts';
import type { AgentToolRecord } from '../persistence/repositories/agent-repository.ts';
import type { StoredToolSettings } from '../persistence/repositories/tool-settings-repository.ts';
import type { ToolPermissionRules } from '../permissions/permission-check.ts';
import { coerceStoredPermissionRule } from '../permissions/permission-rule.ts';

export interface AgentSelection {
  permissions: AgentToolPermissions | undefined;
  /** Extra entries with the agent's config overlays applied (agent and HTTP tools). */
  extraEntries: RegistryEntry[];
  /** Saved settings with the agent's overlays of built-in (and other settings-configured) tools merged in. */
  savedSettings: Map<string, ToolSettingsInput>;
}

/**
 * AGENT-1 and seed 003's agent tools: an agent's rows (`agent_tools`) decide what it gets on top of the user's
 * settings. Enabled rows form an allowlist when there are any, disabled rows are denials; agent tools (specialists)
 * are offered to an agent only when its selection enables them. A row's `config` is the agent's overlay: merged into
 * the tool's config for tools configured by a row (`withConfigOverlay`), into the settings parameters otherwise.
 */
export function applyAgentSelection(
  rows: readonly AgentToolRecord[],
  registered: readonly RegistryEntry[],
  extras: readonly RegistryEntry[],
  savedSettings: ReadonlyMap<string, ToolSettingsInput>,
  logger?: ToolportLogger,
): AgentSelection {
  const byName = new Map(rows.map((row) => [row.toolName, row]));
  const allowed = rows.filter((row) => row.enabled).map((row) => row.toolName);
  const denied = rows.filter((row) => !row.enabled).map((row) => row.toolName);
  for (const entry of extras) {
    const name = entry.tool.definition.name;
    if (entry.source.kind === 'agent' && byName.get(name)?.enabled !== true && !denied.includes(name))
      denied.push(name);
  }
  const permissions: AgentToolPermissions | undefined =
    allowed.length === 0 && denied.length === 0
      ? undefined
      : {
          ...(allowed.length > 0 ? { allowedTools: allowed } : {}),
          ...(denied.length > 0 ? { deniedTools: denied } : {}),
        };

  const settings = new Map(savedSettings);
  const overlaid = extras.map((entry) => {
    const overlay = byName.get(entry.tool.definition.name)?.config ?? {};
    if (Object.keys(overlay).length === 0 || entry.tool.withConfigOverlay === undefined) return entry;
    try {
      return { ...entry, tool: entry.tool.withConfigOverlay(overlay) };
    } catch (error) {
      // Stored before the tool changed: the agent gets the tool as the user configured it, never a broken one.
      logger?.warn(
        { tool: entry.tool.definition.name, error: String(error) },
        'agent overlay ignored: invalid',
      );
      return entry;
    }
  });
  const configured = new Set(
    overlaid.filter((entry) => entry.tool.withConfigOverlay).map((e) => e.tool.definition.name),
  );
  for (const entry of [...registered, ...extras]) {
    const name = entry.tool.definition.name;
    const overlay = byName.get(name)?.config ?? {};
    if (Object.keys(overlay).length === 0 || configured.has(name)) continue;
    const saved = settings.get(name) ?? {};
    settings.set(name, { ...saved, parameters: { ...(saved.parameters ?? {}), ...overlay } });
  }
  return { permissions, extraEntries: overlaid, savedSettings: settings };
}

/** Checks an agent's merged overlay for one tool before it is stored (422 naming the field or parameter). */
export function validateAgentOverlay(entry: RegistryEntry, overlay: Record<string, unknown>): void {
  if (Object.keys(overlay).length === 0) return;
  if (entry.tool.withConfigOverlay !== undefined) entry.tool.withConfigOverlay(overlay);
  else normalizeToolParameters(entry.tool, overlay);
}

/**
 * Issue 16: each tool's permission rules for a runtime — the user's (tool settings) and the agent's (its tool row);
 * the permission check keeps the stricter of the two, so an agent narrows the user's rules and never widens them.
 */
export function permissionRulesByTool(
  saved: ReadonlyMap<string, StoredToolSettings>,
  agentRows: readonly AgentToolRecord[],
): Map<string, ToolPermissionRules> {
  const rules = new Map<string, ToolPermissionRules>();
  for (const [name, stored] of saved) {
    const user = coerceStoredPermissionRule(stored.permission);
    if (user === undefined && stored.approvalTimeoutSeconds === undefined) continue;
    rules.set(name, {
      ...(user === undefined ? {} : { user }),
      ...(stored.approvalTimeoutSeconds === undefined
        ? {}
        : { approvalTimeoutSeconds: stored.approvalTimeoutSeconds }),
    });
  }
  for (const row of agentRows) {
    const agent = coerceStoredPermissionRule(row.permission);
    if (agent === undefined) continue;
    rules.set(row.toolName, { ...rules.get(row.toolName), agent });
  }
  return rules;
}
