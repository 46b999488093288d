import { TIMEOUT_SECONDS_DESCRIPTOR } from '../../src/core/settings-policy.ts';
import { defineTool, type RegisteredTool, type ToolContext } from '../../src/core/tool-types.ts';

/** A tool with one setting of every descriptor type, for policy tests. */
export function makeSettingsTool(overrides: Partial<RegisteredTool['settings']> = {}): RegisteredTool {
  return defineTool<{ value?: string }>({
    definition: {
      name: 'settings_tool',
      description: 'A tool for settings tests.',
      parameters: {
        type: 'object',
        properties: { value: { type: 'string' } },
        additionalProperties: false,
      },
    },
    settings: {
      title: 'Settings tool',
      description: 'Test tool',
      category: 'system',
      enabledByDefault: true,
      canDisable: true,
      defaultParameters: { maxResults: 100 },
      parameterDescriptors: [
        TIMEOUT_SECONDS_DESCRIPTOR,
        {
          name: 'maxResults',
          title: 'Max results',
          type: 'integer',
          description: '',
          default: 200,
          minimum: 1,
          maximum: 5000,
        },
        {
          name: 'ratio',
          title: 'Ratio',
          type: 'number',
          description: '',
          default: 0.5,
          minimum: 0,
          maximum: 1,
        },
        { name: 'includeDotfiles', title: 'Dotfiles', type: 'boolean', description: '', default: false },
        { name: 'label', title: 'Label', type: 'string', description: '', default: 'none' },
        {
          name: 'quality',
          title: 'Quality',
          type: 'enum',
          description: '',
          default: 'auto',
          allowedValues: ['low', 'high', 'auto'],
        },
        { name: 'allowedPaths', title: 'Allowed paths', type: 'path[]', description: '', default: [] },
      ],
      ...overrides,
    },
    execute: async (args, context) => ({ value: args.value ?? null, settings: context.settings.parameters }),
  });
}

export interface FiveProperties {
  name: string;
  count?: number;
  enabled?: boolean;
  tags?: string[];
  mode?: 'fast' | 'slow';
}

/** The no-op tool with a 5-property schema used by the core benchmark and argument tests. */
export function makeFivePropertyTool(
  execute?: (args: FiveProperties, context: ToolContext) => Promise<unknown>,
): RegisteredTool {
  return defineTool<FiveProperties>({
    definition: {
      name: 'five_props',
      description: 'No-op tool with five properties.',
      parameters: {
        type: 'object',
        properties: {
          name: { type: 'string', minLength: 1 },
          count: { type: 'integer', minimum: 0, maximum: 1000 },
          enabled: { type: 'boolean' },
          tags: { type: 'array', items: { type: 'string' }, maxItems: 10 },
          mode: { type: 'string', enum: ['fast', 'slow'] },
        },
        required: ['name'],
        additionalProperties: false,
      },
    },
    settings: {
      title: 'Five properties',
      description: 'No-op',
      category: 'system',
      enabledByDefault: true,
      canDisable: true,
      defaultParameters: {},
      parameterDescriptors: [TIMEOUT_SECONDS_DESCRIPTOR],
    },
    execute: execute ?? (async (args) => ({ ok: true, name: args.name })),
  });
}
