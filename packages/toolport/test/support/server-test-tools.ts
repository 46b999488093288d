import { EventEmitter } from 'node:events';
import { toolFailure } from '../../src/core/execute-tool.ts';
import { TIMEOUT_SECONDS_DESCRIPTOR } from '../../src/core/settings-policy.ts';
import { ToolRegistry } from '../../src/core/tool-registry.ts';
import { defineTool, type RegisteredTool } from '../../src/core/tool-types.ts';
import { registerBuiltinTools } from '../../src/tools/index.ts';
import { echoedSecretForms } from './secret-encodings.ts';

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

/**
 * SEC-1: reads the caller's secret `name` and echoes it in every encoding (test/support/secret-encodings.ts) through
 * each surface a tool has: result, partial result, progress message, log line — or an error message and details.
 * `text` is echoed as given (to show another user's secret set does not apply to this caller).
 */
export const secretEncodingsTool: RegisteredTool = defineTool<{
  name: string;
  fail?: boolean;
  text?: string;
}>({
  definition: {
    name: 'secret_encodings',
    description: 'Echoes a secret in many encodings (to prove redaction).',
    parameters: objectSchema(
      { name: { type: 'string' }, fail: { type: 'boolean' }, text: { type: 'string' } },
      ['name'],
    ),
  },
  settings: {
    title: 'Secret encodings',
    description: 'Echoes a secret encoded',
    category: 'system',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: {},
    parameterDescriptors: [],
  },
  execute: async ({ name, fail, text }, context) => {
    const secret = (await context.services.secrets?.getSecret(name)) ?? '';
    const forms = secret === '' ? {} : echoedSecretForms(secret);
    const all = Object.values(forms).join(' | ');
    context.logger.info({ forms }, `echoing ${all}`);
    context.reportProgress({ progress: 1, total: 2, message: `progress ${all}` });
    context.emitPartialResult({ partial: forms });
    if (fail === true) throw toolFailure(`upstream rejected ${all}`, 'execution_failed', { forms });
    return { forms, all, text: text ?? null };
  },
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
  for (const tool of [
    configurableTool,
    alwaysOnTool,
    offByDefaultTool,
    secretEchoTool,
    secretEncodingsTool,
    waitTool,
    ...extra,
  ]) {
    registry.register(tool, { kind: 'custom', origin: 'test' });
  }
  return registry;
}
