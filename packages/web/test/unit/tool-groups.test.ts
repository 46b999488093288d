import { describe, expect, it } from 'vitest';
import type { ToolDescriptor } from '../../src/api/types';
import { groupTools, loadErrorsOf, TOOL_GROUPS, toolGroupOf } from '../../src/pages/tool-groups';

const tool = (name: string, source: string, category: string): ToolDescriptor => ({
  name,
  title: name,
  description: `${name} does things`,
  category,
  source,
  enabled: true,
  policy: { allowed: true },
  enabledByDefault: true,
  canDisable: true,
  parameters: {},
  parameterDescriptors: [],
  permission: 'allow',
  approvalTimeoutSeconds: 300,
  updatedAt: null,
});

describe('UI-1 Tools page grouping', () => {
  it('maps sources to the six headings, and unknown ones to Other', () => {
    expect(
      ['builtin', 'custom', 'code', 'workspace', 'http', 'http-tool', 'mcp', 'agent', 'plugin'].map(
        toolGroupOf,
      ),
    ).toEqual(['Built-in', 'Code', 'Code', 'Workspace', 'HTTP', 'HTTP', 'MCP', 'Agent', 'Other']);
  });

  it('always lists the six groups in order, with categories sorted and a search over name, title and description', () => {
    const tools = [
      tool('read_file', 'builtin', 'filesystem'),
      tool('bash', 'builtin', 'shell'),
      tool('everything_echo', 'mcp', 'mcp'),
    ];
    const groups = groupTools(tools, '');
    expect(groups.map((group) => group.group)).toEqual([...TOOL_GROUPS]);
    expect(groups[0]!.categories.map((category) => category.category)).toEqual(['filesystem', 'shell']);
    expect(groups.find((group) => group.group === 'MCP')!.count).toBe(1);
    const searched = groupTools(tools, 'ECHO');
    expect(searched.map((group) => group.count)).toEqual([0, 0, 0, 0, 1, 0]);
    expect(groupTools([...tools, tool('x', 'plugin', 'misc')], '').at(-1)!.group).toBe('Other');
  });

  it('reads load errors with their file and reason when the list carries them', () => {
    expect(loadErrorsOf({ tools: [] })).toEqual([]);
    expect(
      loadErrorsOf({
        tools: [],
        loadErrors: [
          { file: 'tools/broken.ts', reason: 'SyntaxError: Unexpected token' },
          { path: 'ws/a.ts', message: 'no default export' },
        ],
      }),
    ).toEqual([
      { file: 'tools/broken.ts', reason: 'SyntaxError: Unexpected token' },
      { file: 'ws/a.ts', reason: 'no default export' },
    ]);
  });
});
