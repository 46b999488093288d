import { describe, expect, it } from 'vitest';
import { TOOL_NAME_PATTERN } from '../core/tool-registry.ts';
import type { McpServerConfig } from './mcp-server-config.ts';
import { assignMcpToolNames, mcpContentToText, type McpServerListing } from './mcp-tool-entries.ts';

function listing(id: string, name: string, tools: string[]): McpServerListing {
  const config: McpServerConfig = { id, name, enabled: true, transport: 'stdio', command: 'x' };
  return { config, tools: tools.map((tool) => ({ name: tool, inputSchema: { type: 'object' as const } })) };
}

function flatten(names: Map<McpServerListing, Map<string, string>>, of: McpServerListing): string[] {
  return [...names.get(of)!.values()];
}

describe('MCP-1 provider-safe MCP tool names', () => {
  it('prefixes the server name and replaces characters providers refuse', () => {
    const server = listing('1', 'My Files!', ['read.file', 'list dir']);
    expect(Object.fromEntries(assignMcpToolNames([server]).get(server)!)).toEqual({
      'read.file': 'My_Files_read_file',
      'list dir': 'My_Files_list_dir',
    });
  });

  it('shortens long names to 64 characters with a stable hash suffix', () => {
    const server = listing('1', 'server', ['x'.repeat(100)]);
    const [name] = flatten(assignMcpToolNames([server]), server);
    expect(name).toMatch(TOOL_NAME_PATTERN);
    expect(name).toHaveLength(64);
    expect(flatten(assignMcpToolNames([server]), server)).toEqual([name]);
  });

  it('resolves collisions by (server name, server id, tool name) whatever the listing order', () => {
    const a = listing('id-a', 'git', ['log']);
    const b = listing('id-b', 'git', ['log']);
    const forward = assignMcpToolNames([a, b]);
    const backward = assignMcpToolNames([b, a]);
    expect(flatten(forward, a)).toEqual(['git_log']);
    expect(flatten(backward, a)).toEqual(['git_log']);
    expect(flatten(forward, b)).toEqual(flatten(backward, b));
    expect(flatten(forward, b)[0]).toMatch(/^git_log_[0-9a-f]{8}$/);
  });

  it('never takes a reserved (built-in or custom) name', () => {
    const server = listing('1', 'get', ['current_datetime']);
    const [name] = flatten(assignMcpToolNames([server], ['get_current_datetime']), server);
    expect(name).not.toBe('get_current_datetime');
    expect(name).toMatch(/^get_current_datetime_[0-9a-f]{8}$/);
  });

  it('turns content blocks into readable text', () => {
    expect(
      mcpContentToText([
        { type: 'text', text: 'first' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      ]),
    ).toBe('first\n[image image/png]');
  });
});
