import { describe, expect, it } from 'vitest';
import { makeFivePropertyTool, makeSettingsTool } from '../../test/support/test-tools.ts';
import { ToolRegistry } from './tool-registry.ts';
import { createToolRuntime } from './tool-runtime.ts';
import type { RegisteredTool } from './tool-types.ts';

function renamed(tool: RegisteredTool, name: string, enabledByDefault = true): RegisteredTool {
  return {
    ...tool,
    definition: { ...tool.definition, name },
    settings: { ...tool.settings, enabledByDefault },
  };
}

describe('CORE-4 createToolRuntime', () => {
  const registry = new ToolRegistry();
  registry.register(makeFivePropertyTool());
  registry.register(renamed(makeFivePropertyTool(), 'off_by_default', false));
  registry.register(makeSettingsTool());

  it('offers enabled tools only, sorted, with saved settings applied', () => {
    const runtime = createToolRuntime({
      entries: registry.listEntries(),
      userId: 'u',
      savedSettings: new Map([
        ['settings_tool', { enabled: false }],
        ['off_by_default', { enabled: true }],
      ]),
    });
    expect(runtime.tools.map((tool) => tool.definition.name)).toEqual(['five_props', 'off_by_default']);
  });

  it('applies the agent selection and denials to the offered list and to execution', async () => {
    const runtime = createToolRuntime({
      entries: registry.listEntries(),
      userId: 'u',
      agentPermissions: { allowedTools: ['five_props', 'settings_tool'], deniedTools: ['settings_tool'] },
    });
    expect(runtime.tools.map((tool) => tool.definition.name)).toEqual(['five_props']);
    const denied = await runtime.execute({ toolName: 'settings_tool', arguments: {} });
    expect(denied.ok || denied.error.code).toBe('permission_denied');
  });

  it('adds per-user extra tools (MCP) that shadow same-named entries and execute through the runtime', async () => {
    const extra = renamed(
      makeFivePropertyTool(async () => 'from mcp'),
      'five_props',
    );
    const runtime = createToolRuntime({
      entries: registry.listEntries(),
      extraEntries: [{ tool: extra, source: { kind: 'mcp', origin: 'mcp:everything' } }],
      userId: 'u',
    });
    expect(runtime.tools.find((tool) => tool.definition.name === 'five_props')?.source.kind).toBe('mcp');
    const outcome = await runtime.execute({ toolName: 'five_props', arguments: '{"name":"n"}' });
    expect(outcome.ok && outcome.result).toBe('from mcp');
  });

  it('executes with the same saved settings the definitions were built from', async () => {
    const runtime = createToolRuntime({
      entries: registry.listEntries(),
      userId: 'u',
      chatId: 'c',
      mode: 'agent',
      workingDirectory: '/w',
      savedSettings: new Map([['settings_tool', { parameters: { label: 'saved' } }]]),
    });
    const outcome = await runtime.execute({ toolName: 'settings_tool', arguments: {} });
    expect(outcome.ok && outcome.result).toMatchObject({ settings: { label: 'saved' } });
    expect(
      runtime.tools.find((tool) => tool.definition.name === 'settings_tool')?.settings.parameters.label,
    ).toBe('saved');
  });
});
