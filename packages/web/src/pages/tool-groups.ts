import type { ToolDescriptor } from '../api/types';

/** The Tools page's groups, in order; the heading names are the ones the issue (UI-1) gives. */
export const TOOL_GROUPS = ['Built-in', 'Code', 'Workspace', 'HTTP', 'MCP', 'Agent'] as const;
export type ToolGroup = (typeof TOOL_GROUPS)[number] | 'Other';

/** Which group a tool's `source` belongs to. Unknown sources land in "Other" rather than disappear. */
export function toolGroupOf(source: string): ToolGroup {
  const value = source.toLowerCase();
  if (value === 'builtin' || value === 'built-in') return 'Built-in';
  if (value === 'mcp' || value.startsWith('mcp:')) return 'MCP';
  if (value.includes('http')) return 'HTTP';
  if (value.includes('workspace')) return 'Workspace';
  if (value.includes('agent')) return 'Agent';
  if (value === 'custom' || value.includes('code')) return 'Code';
  return 'Other';
}

export interface GroupedTools {
  group: ToolGroup;
  categories: { category: string; tools: ToolDescriptor[] }[];
  count: number;
}

export function matchesSearch(tool: ToolDescriptor, query: string): boolean {
  const needle = query.trim().toLowerCase();
  if (needle === '') return true;
  return [tool.name, tool.title, tool.description, tool.category, tool.source].some((text) =>
    text.toLowerCase().includes(needle),
  );
}

/** Every group (empty ones too, so the page always shows where code, workspace or agent tools will appear). */
export function groupTools(tools: readonly ToolDescriptor[], query: string): GroupedTools[] {
  const groups: ToolGroup[] = [...TOOL_GROUPS];
  if (tools.some((tool) => toolGroupOf(tool.source) === 'Other')) groups.push('Other');
  return groups.map((group) => {
    const members = tools.filter((tool) => toolGroupOf(tool.source) === group && matchesSearch(tool, query));
    const categories = [...new Set(members.map((tool) => tool.category))].sort();
    return {
      group,
      count: members.length,
      categories: categories.map((category) => ({
        category,
        tools: members
          .filter((tool) => tool.category === category)
          .sort((a, b) => a.name.localeCompare(b.name)),
      })),
    };
  });
}

export interface LoadError {
  file: string;
  reason: string;
}

/** Custom tools that failed to load, when the list response carries them (`loadErrors`, CODE-1/WS-1). */
export function loadErrorsOf(body: unknown): LoadError[] {
  const list = (body as { loadErrors?: unknown } | undefined)?.loadErrors;
  if (!Array.isArray(list)) return [];
  return list.map((item: unknown) => {
    const entry = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    const file = entry.file ?? entry.path ?? entry.name ?? '(unknown file)';
    const reason = entry.reason ?? entry.message ?? entry.error ?? JSON.stringify(item);
    return { file: String(file), reason: typeof reason === 'string' ? reason : JSON.stringify(reason) };
  });
}
