import { isAbsolute } from 'node:path';
import { ToolParameterError, describeReceivedValue } from './errors.ts';
import type {
  EffectiveToolSettings,
  RegisteredTool,
  SettingValue,
  ToolDefinition,
  ToolParameterDescriptor,
  ToolParameters,
  ToolSettingsInput,
  ToolportLogger,
} from './tool-types.ts';

/**
 * SPEC CORE-3: pure functions over a tool's metadata. Stored settings are coerced (they have no model turn to
 * receive a correctable error); overrides and API updates are validated strictly and throw ToolParameterError.
 */

export function getDefaultToolSettings(tool: RegisteredTool): EffectiveToolSettings {
  const parameters: ToolParameters = {};
  for (const descriptor of tool.settings.parameterDescriptors) {
    parameters[descriptor.name] = tool.settings.defaultParameters[descriptor.name] ?? descriptor.default;
  }
  return { enabled: tool.settings.enabledByDefault || !tool.settings.canDisable, parameters };
}

const frozenDefaults = new WeakMap<RegisteredTool, EffectiveToolSettings>();

function getFrozenDefaults(tool: RegisteredTool): EffectiveToolSettings {
  let defaults = frozenDefaults.get(tool);
  if (defaults === undefined) {
    const fresh = getDefaultToolSettings(tool);
    defaults = Object.freeze({ enabled: fresh.enabled, parameters: Object.freeze(fresh.parameters) });
    frozenDefaults.set(tool, defaults);
  }
  return defaults;
}

function findDescriptor(tool: RegisteredTool, name: string): ToolParameterDescriptor {
  const descriptor = tool.settings.parameterDescriptors.find((candidate) => candidate.name === name);
  if (descriptor === undefined) {
    const known = tool.settings.parameterDescriptors.map((candidate) => candidate.name);
    throw new ToolParameterError(
      name,
      `Unknown setting \`${name}\` for tool ${tool.definition.name}. ` +
        (known.length === 0 ? 'This tool has no settings.' : `Known settings: ${known.join(', ')}.`),
    );
  }
  return descriptor;
}

function checkBounds(descriptor: ToolParameterDescriptor, value: number, toolName: string): void {
  const { minimum, maximum, name } = descriptor;
  if ((minimum !== undefined && value < minimum) || (maximum !== undefined && value > maximum)) {
    throw new ToolParameterError(
      name,
      `Setting \`${name}\` of ${toolName} must be between ${minimum ?? '-∞'} and ${maximum ?? '∞'}` +
        `${descriptor.unit === undefined ? '' : ` ${descriptor.unit}`}, received ${value}.`,
    );
  }
}

/** Validates one setting value against its descriptor and returns it (never coerced). */
export function normalizeToolParameter(
  tool: RegisteredTool,
  descriptor: ToolParameterDescriptor,
  value: unknown,
): SettingValue {
  const { name, type } = descriptor;
  const toolName = tool.definition.name;
  const fail = (expected: string): never => {
    throw new ToolParameterError(
      name,
      `Setting \`${name}\` of ${toolName} must be ${expected}, received ${describeReceivedValue(value)}.`,
    );
  };
  switch (type) {
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) return fail('an integer');
      checkBounds(descriptor, value as number, toolName);
      return value as number;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return fail('a finite number');
      checkBounds(descriptor, value as number, toolName);
      return value as number;
    case 'boolean':
      if (typeof value !== 'boolean') return fail('a boolean');
      return value as boolean;
    case 'string':
      if (typeof value !== 'string') return fail('a string');
      return value as string;
    case 'enum': {
      const allowed = descriptor.allowedValues ?? [];
      if (typeof value !== 'string' || !allowed.includes(value)) {
        return fail(`one of ${allowed.map((entry) => JSON.stringify(entry)).join(', ')}`);
      }
      return value as string;
    }
    case 'string[]':
    case 'path[]': {
      if (!Array.isArray(value) || !value.every((entry) => typeof entry === 'string')) {
        return fail('an array of strings');
      }
      const entries = value as string[];
      if (type === 'path[]' && entries.some((entry) => entry.trim() === '')) {
        throw new ToolParameterError(name, `Setting \`${name}\` of ${toolName} contains an empty path.`);
      }
      return [...entries];
    }
  }
}

/** A path list setting holds absolute or `~` paths: a relative one would mean whatever the server's cwd is. */
function isAbsoluteOrHomePath(entry: string): boolean {
  const trimmed = entry.trim();
  return isAbsolute(trimmed) || trimmed === '~' || trimmed.startsWith('~/') || trimmed.startsWith('~\\');
}

/**
 * Checks what a well-typed value means: path lists hold absolute or `~` paths, and the tool's own validator (if it
 * declares one for this setting) accepts it. Throws ToolParameterError naming the parameter.
 */
export function checkToolParameterMeaning(
  tool: RegisteredTool,
  descriptor: ToolParameterDescriptor,
  value: SettingValue,
): void {
  const { name } = descriptor;
  const toolName = tool.definition.name;
  if (descriptor.type === 'path[]' && Array.isArray(value)) {
    const relative = (value as readonly string[]).find((entry) => !isAbsoluteOrHomePath(entry));
    if (relative !== undefined)
      throw new ToolParameterError(
        name,
        `Setting \`${name}\` of ${toolName} must list absolute paths or paths starting with ~/; ` +
          `${JSON.stringify(relative)} is relative (it would depend on the server's working directory).`,
      );
  }
  const problem = tool.settings.parameterValidators?.[name]?.(value);
  if (problem !== undefined)
    throw new ToolParameterError(name, `Setting \`${name}\` of ${toolName}: ${problem}`);
}

function normalizeParameters(
  tool: RegisteredTool,
  parameters: Record<string, unknown>,
  checkMeaning: boolean,
): ToolParameters {
  if (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters)) {
    throw new ToolParameterError(
      'parameters',
      `Settings parameters of ${tool.definition.name} must be an object.`,
    );
  }
  const normalized: ToolParameters = {};
  for (const [name, value] of Object.entries(parameters)) {
    const descriptor = findDescriptor(tool, name);
    normalized[name] = normalizeToolParameter(tool, descriptor, value);
    if (checkMeaning) checkToolParameterMeaning(tool, descriptor, normalized[name]);
  }
  return normalized;
}

/**
 * Validates an update or an override: names, types, bounds, allowed values and meaning (path lists absolute, the
 * tool's validators). Throws ToolParameterError naming the parameter.
 */
export function normalizeToolParameters(
  tool: RegisteredTool,
  parameters: Record<string, unknown>,
): ToolParameters {
  return normalizeParameters(tool, parameters, true);
}

function normalizeEnabled(tool: RegisteredTool, enabled: unknown): boolean | undefined {
  if (enabled === undefined) return undefined;
  if (typeof enabled !== 'boolean') {
    throw new ToolParameterError(
      'enabled',
      `Setting \`enabled\` of ${tool.definition.name} must be a boolean, received ${describeReceivedValue(enabled)}.`,
    );
  }
  return enabled;
}

/**
 * defaults < saved < updates. Throws ToolParameterError when any layer is invalid; the meaning of values is checked
 * for updates only (a stored value that stopped passing keeps its old behaviour rather than falling back to a default,
 * which for a path list would widen access).
 */
export function mergeToolSettings(
  tool: RegisteredTool,
  saved?: ToolSettingsInput,
  updates?: ToolSettingsInput,
): EffectiveToolSettings {
  // The common case on every call without saved settings: shared, frozen defaults (no per-call allocation).
  if (saved === undefined && updates === undefined) return getFrozenDefaults(tool);
  const merged = getDefaultToolSettings(tool);
  for (const layer of [saved, updates]) {
    if (layer === undefined) continue;
    const enabled = normalizeEnabled(tool, layer.enabled);
    if (enabled !== undefined) merged.enabled = enabled;
    if (layer.parameters !== undefined)
      Object.assign(merged.parameters, normalizeParameters(tool, layer.parameters, layer === updates));
  }
  // A tool that cannot be disabled is always on, whatever a stored row says.
  if (!tool.settings.canDisable) merged.enabled = true;
  return merged;
}

/** Coerces one stored setting; returns the default when it cannot be made valid. */
function coerceStoredParameter(
  tool: RegisteredTool,
  descriptor: ToolParameterDescriptor,
  value: unknown,
): SettingValue {
  const fallback = tool.settings.defaultParameters[descriptor.name] ?? descriptor.default;
  switch (descriptor.type) {
    case 'integer':
      return clampIntegerSetting(value, {
        minimum: descriptor.minimum,
        maximum: descriptor.maximum,
        fallback: typeof fallback === 'number' ? fallback : 0,
      });
    case 'string':
      return getStringSetting(value, typeof fallback === 'string' ? fallback : '');
    default:
      try {
        return normalizeToolParameter(tool, descriptor, value);
      } catch {
        return fallback;
      }
  }
}

/**
 * The settings executeTool runs with. Overrides (an API call's or the CLI's `--settings`) are validated strictly;
 * a corrupt stored row never breaks execution — each bad stored value falls back to its default, and it is logged.
 */
export function getSafeEffectiveToolSettings(
  tool: RegisteredTool,
  saved: ToolSettingsInput | undefined,
  overrides: ToolSettingsInput | undefined,
  logger?: ToolportLogger,
): EffectiveToolSettings {
  try {
    return mergeToolSettings(tool, saved, overrides);
  } catch (error) {
    // Surface an invalid override: it came from the caller now, who can correct it.
    mergeToolSettings(tool, undefined, overrides);
    logger?.warn(
      { tool: tool.definition.name, error: error instanceof Error ? error.message : String(error) },
      'stored tool settings are invalid; falling back to defaults for the invalid values',
    );
    const repaired = getDefaultToolSettings(tool);
    if (typeof saved?.enabled === 'boolean') repaired.enabled = saved.enabled;
    const storedParameters = isPlainRecord(saved?.parameters) ? saved.parameters : {};
    for (const descriptor of tool.settings.parameterDescriptors) {
      if (Object.hasOwn(storedParameters, descriptor.name)) {
        repaired.parameters[descriptor.name] = coerceStoredParameter(
          tool,
          descriptor,
          storedParameters[descriptor.name],
        );
      }
    }
    return mergeToolSettings(tool, repaired, overrides);
  }
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Stored integer settings are clamped into bounds; a non-number falls back. Never used on model output (CORE-5). */
export function clampIntegerSetting(
  value: unknown,
  bounds: { minimum?: number | undefined; maximum?: number | undefined; fallback: number },
): number {
  let number: number;
  if (typeof value === 'number' && Number.isFinite(value)) number = Math.round(value);
  else if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) {
    number = Math.round(Number(value));
  } else return bounds.fallback;
  if (bounds.minimum !== undefined) number = Math.max(bounds.minimum, number);
  if (bounds.maximum !== undefined) number = Math.min(bounds.maximum, number);
  return number;
}

/** Stored string settings: a non-empty string, else the fallback. */
export function getStringSetting(value: unknown, fallback: string): string {
  return typeof value === 'string' && value.trim() !== '' ? value : fallback;
}

/** Enabled tools → the definitions offered to a model, calling `buildDefinition` where a tool has it. */
export function getToolDefinitionsForTools(
  tools: readonly RegisteredTool[],
  settingsByToolName?: ReadonlyMap<string, EffectiveToolSettings> | Record<string, EffectiveToolSettings>,
): ToolDefinition[] {
  const lookup = (name: string): EffectiveToolSettings | undefined =>
    settingsByToolName instanceof Map
      ? settingsByToolName.get(name)
      : (settingsByToolName as Record<string, EffectiveToolSettings> | undefined)?.[name];
  const definitions: ToolDefinition[] = [];
  for (const tool of tools) {
    const settings = lookup(tool.definition.name) ?? getDefaultToolSettings(tool);
    if (!settings.enabled) continue;
    definitions.push(tool.buildDefinition ? tool.buildDefinition(settings) : tool.definition);
  }
  return definitions;
}

/** CORE-6: `timeoutSeconds` where the tool has it (5–600, default 30); 30 s for every other tool. */
export const DEFAULT_TOOL_TIMEOUT_SECONDS = 30;
export const MIN_TOOL_TIMEOUT_SECONDS = 5;
export const MAX_TOOL_TIMEOUT_SECONDS = 600;

export function getToolTimeoutMs(settings: EffectiveToolSettings): number {
  const seconds = clampIntegerSetting(settings.parameters.timeoutSeconds, {
    minimum: MIN_TOOL_TIMEOUT_SECONDS,
    maximum: MAX_TOOL_TIMEOUT_SECONDS,
    fallback: DEFAULT_TOOL_TIMEOUT_SECONDS,
  });
  return seconds * 1000;
}

/** The shared descriptor for tools with a time budget, so every such tool has the same bounds and wording. */
export const TIMEOUT_SECONDS_DESCRIPTOR: ToolParameterDescriptor = {
  name: 'timeoutSeconds',
  title: 'Timeout',
  type: 'integer',
  description: 'How long one call may run before it is cancelled.',
  default: DEFAULT_TOOL_TIMEOUT_SECONDS,
  minimum: MIN_TOOL_TIMEOUT_SECONDS,
  maximum: MAX_TOOL_TIMEOUT_SECONDS,
  unit: 'seconds',
};
