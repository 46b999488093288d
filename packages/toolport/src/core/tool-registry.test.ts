import { describe, expect, it } from 'vitest';
import { makeFivePropertyTool } from '../../test/support/test-tools.ts';
import { ToolRegistry } from './tool-registry.ts';
import { isToolportError } from './errors.ts';
import type { RegisteredTool } from './tool-types.ts';

function named(name: string, title = name): RegisteredTool {
  const tool = makeFivePropertyTool();
  return { ...tool, definition: { ...tool.definition, name }, settings: { ...tool.settings, title } };
}

describe('CORE-2 registry', () => {
  it('looks tools up by name and lists them sorted', () => {
    const registry = new ToolRegistry();
    registry.register(named('zeta'));
    registry.register(named('alpha'));
    expect(registry.get('alpha')?.definition.name).toBe('alpha');
    expect(registry.get('missing')).toBeUndefined();
    expect(registry.list().map((tool) => tool.definition.name)).toEqual(['alpha', 'zeta']);
  });

  it('lets a custom tool take precedence over a built-in of the same name', () => {
    const registry = new ToolRegistry();
    registry.register(named('read_file', 'builtin version'));
    registry.register(named('read_file', 'custom version'), {
      kind: 'custom',
      origin: '.toolport/tools/read_file.ts',
    });
    expect(registry.get('read_file')?.settings.title).toBe('custom version');
    expect(registry.list()).toHaveLength(1);
    expect(registry.getEntry('read_file')?.source.kind).toBe('custom');
    registry.unregisterCustom('read_file');
    expect(registry.get('read_file')?.settings.title).toBe('builtin version');
  });

  it('refuses a duplicate custom name and names both files', () => {
    const registry = new ToolRegistry();
    registry.register(named('deploy'), { kind: 'custom', origin: '/p/.toolport/tools/deploy.ts' });
    let caught: unknown;
    try {
      registry.register(named('deploy'), {
        kind: 'custom',
        origin: '/home/u/.config/toolport/tools/deploy.js',
      });
    } catch (error) {
      caught = error;
    }
    expect(isToolportError(caught)).toBe(true);
    expect((caught as Error).message).toContain('/p/.toolport/tools/deploy.ts');
    expect((caught as Error).message).toContain('/home/u/.config/toolport/tools/deploy.js');
  });

  it.each(['has space', 'dots.not.allowed', '', 'x'.repeat(65), 'ünïcode', 'slash/name'])(
    'refuses the name %j with a clear message',
    (name) => {
      const registry = new ToolRegistry();
      expect(() => registry.register(named(name))).toThrow(/letters, digits, "_" or "-"/);
    },
  );

  it('accepts names at the 64-character limit with - and _', () => {
    const registry = new ToolRegistry();
    registry.register(named(`a-b_${'c'.repeat(60)}`));
    expect(registry.has(`a-b_${'c'.repeat(60)}`)).toBe(true);
  });
});
