import { EventEmitter } from 'node:events';
import { TIMEOUT_SECONDS_DESCRIPTOR } from '../../src/core/settings-policy.ts';
import { ToolRegistry } from '../../src/core/tool-registry.ts';
import { defineTool, type RegisteredTool } from '../../src/core/tool-types.ts';
import { registerBuiltinTools } from '../../src/tools/index.ts';

const objectSchema = (properties: Record<string, unknown> = {}, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

/** Reports the settings it ran with, so tests can see saved settings reach execution. */
export const configurableTool: RegisteredTool = defineTool<object>({
  definition: { name: 'configurable', description: 'Returns its settings.', parameters: objectSchema() },
  settings: {
    title: 'Configurable',
    description: 'A tool with one setting of every kind',
    category: 'system',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: {},
    parameterDescriptors: [
      {
        name: 'maxResults',
        title: 'Max results',
        type: 'integer',
        description: 'Cap',
        default: 10,
        minimum: 1,
        maximum: 100,
      },
      {
        name: 'speed',
        title: 'Speed',
        type: 'enum',
        description: 'How',
        default: 'fast',
        allowedValues: ['fast', 'slow'],
      },
      { name: 'verbose', title: 'Verbose', type: 'boolean', description: 'Talk more', default: false },
      { name: 'allowedPaths', title: 'Allowed paths', type: 'path[]', description: 'Roots', default: [] },
      TIMEOUT_SECONDS_DESCRIPTOR,
    ],
  },
  execute: async (_args, context) => ({
    settings: context.settings.parameters,
    mode: context.mode,
    workingDirectory: context.workingDirectory ?? null,
  }),
});

export const alwaysOnTool: RegisteredTool = defineTool<object>({
  definition: { name: 'always_on', description: 'Cannot be disabled.', parameters: objectSchema() },
  settings: {
    title: 'Always on',
    description: 'Cannot be disabled',
    category: 'system',
    enabledByDefault: true,
    canDisable: false,
    defaultParameters: {},
    parameterDescriptors: [],
  },
  execute: async () => ({ ok: true }),
});

export const offByDefaultTool: RegisteredTool = defineTool<object>({
  definition: { name: 'off_by_default', description: 'Disabled until enabled.', parameters: objectSchema() },
  settings: {
    title: 'Off by default',
    description: 'Disabled until enabled',
    category: 'interaction',
    enabledByDefault: false,
    canDisable: true,
    defaultParameters: {},
    parameterDescriptors: [],
  },
  execute: async () => ({ ran: true }),
});

export const secretEchoTool: RegisteredTool = defineTool<{ name: string }>({
  definition: {
    name: 'secret_echo',
    description: 'Echoes a secret (to prove redaction).',
    parameters: objectSchema({ name: { type: 'string' } }, ['name']),
  },
  settings: {
    title: 'Secret echo',
    description: 'Echoes a secret',
    category: 'system',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: {},
    parameterDescriptors: [],
  },
  execute: async ({ name }, context) => ({ value: await context.services.secrets?.getSecret(name) }),
});

/** Emits `started` when the wait tool begins, so tests can act while it runs without sleeping. */
export const waitToolEvents = new EventEmitter();

/** Runs until its signal aborts (a timeout or the caller's cancellation). */
export const waitTool: RegisteredTool = defineTool<object>({
  definition: { name: 'wait', description: 'Waits until cancelled.', parameters: objectSchema() },
  settings: {
    title: 'Wait',
    description: 'Waits until cancelled',
    category: 'system',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: {},
    parameterDescriptors: [TIMEOUT_SECONDS_DESCRIPTOR],
  },
  execute: (_args, context) =>
    new Promise((resolve) => {
      context.signal.addEventListener('abort', () => resolve({ stopped: true }), { once: true });
      waitToolEvents.emit('started');
    }),
});

export function createTestRegistry(extra: readonly RegisteredTool[] = []): ToolRegistry {
  const registry = registerBuiltinTools(new ToolRegistry());
  for (const tool of [configurableTool, alwaysOnTool, offByDefaultTool, secretEchoTool, waitTool, ...extra]) {
    registry.register(tool, { kind: 'custom', origin: 'test' });
  }
  return registry;
}
