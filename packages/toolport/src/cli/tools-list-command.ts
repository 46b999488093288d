import { parseArgs } from 'node:util';
import type { ToolRegistry } from '../core/tool-registry.ts';
import type { CliIo } from './cli-io.ts';
import { parseOptionsOf, TOOLS_LIST_SPEC } from './command-specs.ts';

export interface ToolListing {
  name: string;
  title: string;
  category: string;
  source: string;
  enabledByDefault: boolean;
  canDisable: boolean;
  description: string;
}

export function listTools(registry: ToolRegistry): ToolListing[] {
  return registry.listEntries().map(({ tool, source }) => ({
    name: tool.definition.name,
    title: tool.settings.title,
    category: tool.settings.category,
    source: source.kind,
    enabledByDefault: tool.settings.enabledByDefault,
    canDisable: tool.settings.canDisable,
    description: tool.settings.description,
  }));
}

/** `toolport tools list [--json]` */
export function runToolsListCommand(argv: string[], registry: ToolRegistry, io: CliIo): number {
  const { values } = parseArgs({
    args: argv,
    options: parseOptionsOf(TOOLS_LIST_SPEC),
    strict: true,
  });
  const listing = listTools(registry);
  if (values.json) {
    io.stdout(`${JSON.stringify({ tools: listing }, null, 2)}\n`);
    return 0;
  }
  const rows = [['NAME', 'TITLE', 'CATEGORY', 'DEFAULT', 'CAN DISABLE']];
  for (const tool of listing) {
    rows.push([
      tool.name,
      tool.title,
      tool.category,
      tool.enabledByDefault ? 'enabled' : 'disabled',
      tool.canDisable ? 'yes' : 'no',
    ]);
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows)
    io.stdout(
      `${row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd()}\n`,
    );
  return 0;
}
