import { describe, expect, it, vi } from 'vitest';
import { makeSettingsTool } from '../../test/support/test-tools.ts';
import { ToolParameterError } from './errors.ts';
import {
  clampIntegerSetting,
  getDefaultToolSettings,
  getSafeEffectiveToolSettings,
  getStringSetting,
  getToolDefinitionsForTools,
  getToolTimeoutMs,
  mergeToolSettings,
  normalizeToolParameters,
} from './settings-policy.ts';
import type { RegisteredTool, ToolportLogger } from './tool-types.ts';

const tool = makeSettingsTool();

function catchParameterError(run: () => unknown): ToolParameterError {
  try {
    run();
  } catch (error) {
    if (error instanceof ToolParameterError) return error;
    throw error;
  }
  throw new Error('expected a ToolParameterError');
}

describe('CORE-3 getDefaultToolSettings', () => {
  it('takes defaultParameters over descriptor defaults and enabledByDefault', () => {
    const defaults = getDefaultToolSettings(tool);
    expect(defaults.enabled).toBe(true);
    expect(defaults.parameters.maxResults).toBe(100); // defaultParameters wins over the descriptor's 200
    expect(defaults.parameters.timeoutSeconds).toBe(30);
    expect(defaults.parameters.quality).toBe('auto');
  });

  it('is disabled for a tool that is disabled by default', () => {
    expect(getDefaultToolSettings(makeSettingsTool({ enabledByDefault: false })).enabled).toBe(false);
  });
});

describe('CORE-3 mergeToolSettings', () => {
  it('layers defaults < saved < overrides', () => {
    const merged = mergeToolSettings(
      tool,
      { enabled: false, parameters: { maxResults: 10, label: 'saved' } },
      { parameters: { label: 'override' } },
    );
    expect(merged.enabled).toBe(false);
    expect(merged.parameters.maxResults).toBe(10);
    expect(merged.parameters.label).toBe('override');
    expect(merged.parameters.timeoutSeconds).toBe(30);
  });

  it('lets an override re-enable a tool the saved layer disabled', () => {
    expect(mergeToolSettings(tool, { enabled: false }, { enabled: true }).enabled).toBe(true);
  });

  it('keeps a tool that cannot be disabled enabled whatever is saved', () => {
    const locked = makeSettingsTool({ canDisable: false, enabledByDefault: true });
    expect(mergeToolSettings(locked, { enabled: false }).enabled).toBe(true);
  });

  it('does not mutate the tool metadata', () => {
    mergeToolSettings(tool, { parameters: { allowedPaths: ['/tmp'] } });
    expect(getDefaultToolSettings(tool).parameters.allowedPaths).toEqual([]);
  });
});

describe('CORE-3 normalizeToolParameters', () => {
  it('accepts valid values of every descriptor type', () => {
    expect(
      normalizeToolParameters(tool, {
        timeoutSeconds: 5,
        maxResults: 5000,
        ratio: 0.25,
        includeDotfiles: true,
        label: 'x',
        quality: 'high',
        allowedPaths: ['/srv', '~/work'],
      }),
    ).toEqual({
      timeoutSeconds: 5,
      maxResults: 5000,
      ratio: 0.25,
      includeDotfiles: true,
      label: 'x',
      quality: 'high',
      allowedPaths: ['/srv', '~/work'],
    });
  });

  it.each([
    ['unknown name', { nope: 1 }, 'nope', /Unknown setting `nope`.*Known settings: timeoutSeconds/],
    [
      'integer given a string',
      { maxResults: '10' },
      'maxResults',
      /must be an integer, received string "10"/,
    ],
    ['integer given a fraction', { maxResults: 1.5 }, 'maxResults', /must be an integer/],
    ['below minimum', { timeoutSeconds: 4 }, 'timeoutSeconds', /between 5 and 600 seconds, received 4/],
    ['above maximum', { timeoutSeconds: 601 }, 'timeoutSeconds', /between 5 and 600/],
    ['number out of bounds', { ratio: 2 }, 'ratio', /between 0 and 1/],
    ['boolean given a string', { includeDotfiles: 'true' }, 'includeDotfiles', /must be a boolean/],
    ['string given a number', { label: 3 }, 'label', /must be a string/],
    ['enum value not allowed', { quality: 'ultra' }, 'quality', /one of "low", "high", "auto"/],
    ['path list with a non-string', { allowedPaths: ['/a', 3] }, 'allowedPaths', /array of strings/],
    ['path list with an empty path', { allowedPaths: [' '] }, 'allowedPaths', /empty path/],
  ])('throws ToolParameterError naming the parameter: %s', (_name, parameters, parameter, message) => {
    const error = catchParameterError(() => normalizeToolParameters(tool, parameters));
    expect(error.parameter).toBe(parameter);
    expect(error.code).toBe('invalid_settings');
    expect(error.message).toMatch(message);
  });
});

describe('CORE-3 getSafeEffectiveToolSettings', () => {
  function recordingLogger(): ToolportLogger & { warnings: unknown[] } {
    const warnings: unknown[] = [];
    return {
      debug: vi.fn(),
      info: vi.fn(),
      error: vi.fn(),
      warn: (object) => warnings.push(object),
      warnings,
    };
  }

  it('falls back to defaults for corrupt stored values, keeps valid ones, and logs it', () => {
    const logger = recordingLogger();
    const settings = getSafeEffectiveToolSettings(
      tool,
      {
        enabled: true,
        parameters: { maxResults: 99999, quality: 'ultra', label: 7, includeDotfiles: true, bogus: 1 },
      },
      undefined,
      logger,
    );
    expect(settings.parameters.maxResults).toBe(5000); // clamped into bounds
    expect(settings.parameters.quality).toBe('auto'); // invalid enum → default
    expect(settings.parameters.label).toBe('none'); // non-string → default
    expect(settings.parameters.includeDotfiles).toBe(true); // valid value kept
    expect(settings.parameters).not.toHaveProperty('bogus');
    expect(logger.warnings).toHaveLength(1);
  });

  it('survives a stored row whose parameters are not even an object', () => {
    const settings = getSafeEffectiveToolSettings(
      tool,
      { enabled: 'yes', parameters: 'garbage' as never },
      undefined,
    );
    expect(settings).toEqual(getDefaultToolSettings(tool));
  });

  it('still rejects an invalid override: the caller can correct it', () => {
    expect(() =>
      getSafeEffectiveToolSettings(tool, { parameters: { maxResults: -1 } }, { parameters: { ratio: 9 } }),
    ).toThrow(ToolParameterError);
  });

  it('applies valid overrides on top of repaired stored settings', () => {
    const settings = getSafeEffectiveToolSettings(
      tool,
      { parameters: { maxResults: 'x' } },
      { parameters: { label: 'o' } },
    );
    expect(settings.parameters.maxResults).toBe(100);
    expect(settings.parameters.label).toBe('o');
  });
});

describe('CORE-3 stored-value coercion', () => {
  it('clampIntegerSetting clamps, rounds, parses numeric strings and falls back', () => {
    expect(clampIntegerSetting(700, { minimum: 5, maximum: 600, fallback: 30 })).toBe(600);
    expect(clampIntegerSetting(1, { minimum: 5, maximum: 600, fallback: 30 })).toBe(5);
    expect(clampIntegerSetting(12.6, { fallback: 0 })).toBe(13);
    expect(clampIntegerSetting('45', { minimum: 5, maximum: 600, fallback: 30 })).toBe(45);
    expect(clampIntegerSetting('abc', { fallback: 30 })).toBe(30);
    expect(clampIntegerSetting(Number.NaN, { fallback: 30 })).toBe(30);
    expect(clampIntegerSetting(null, { fallback: 30 })).toBe(30);
  });

  it('getStringSetting keeps non-empty strings only', () => {
    expect(getStringSetting('pt-BR', 'en-US')).toBe('pt-BR');
    expect(getStringSetting('  ', 'en-US')).toBe('en-US');
    expect(getStringSetting(42, 'en-US')).toBe('en-US');
  });

  it('getToolTimeoutMs uses timeoutSeconds clamped to 5–600, else 30 s', () => {
    expect(getToolTimeoutMs({ enabled: true, parameters: { timeoutSeconds: 10 } })).toBe(10_000);
    expect(getToolTimeoutMs({ enabled: true, parameters: { timeoutSeconds: 9999 } })).toBe(600_000);
    expect(getToolTimeoutMs({ enabled: true, parameters: {} })).toBe(30_000);
  });
});

describe('CORE-3 getToolDefinitionsForTools', () => {
  const dynamic: RegisteredTool = {
    ...makeSettingsTool(),
    definition: { name: 'dynamic', description: 'static', parameters: { type: 'object', properties: {} } },
    buildDefinition: (settings) => ({
      name: 'dynamic',
      description: `label=${String(settings.parameters.label)}`,
      parameters: { type: 'object', properties: {} },
    }),
  };
  const disabledByDefault: RegisteredTool = {
    ...makeSettingsTool({ enabledByDefault: false }),
    definition: { name: 'off', description: 'off', parameters: { type: 'object', properties: {} } },
  };

  it('filters disabled tools and calls buildDefinition with the effective settings', () => {
    const settings = new Map([['dynamic', mergeToolSettings(dynamic, { parameters: { label: 'custom' } })]]);
    const definitions = getToolDefinitionsForTools([dynamic, disabledByDefault], settings);
    expect(definitions).toEqual([
      { name: 'dynamic', description: 'label=custom', parameters: { type: 'object', properties: {} } },
    ]);
  });

  it('uses defaults for tools without settings and honours an explicit enable', () => {
    expect(getToolDefinitionsForTools([disabledByDefault])).toEqual([]);
    const enabled = { off: mergeToolSettings(disabledByDefault, { enabled: true }) };
    expect(
      getToolDefinitionsForTools([disabledByDefault], enabled).map((definition) => definition.name),
    ).toEqual(['off']);
  });
});
