import { parseArgs } from 'node:util';
import type { RegistryEntry, ToolRegistry } from '../core/tool-registry.ts';
import type { CliIo } from './cli-io.ts';
import { loadCliWorkspaceTools } from './cli-workspace-tools.ts';
import { resolveWorkdir } from './tools-run-command.ts';

export interface ToolListing {
  name: string;
  title: string;
  category: string;
  source: string;
  enabledByDefault: boolean;
  canDisable: boolean;
  description: string;
}

export function listTools(registry: ToolRegistry, extra: readonly RegistryEntry[] = []): ToolListing[] {
  const entries = [...registry.listEntries(), ...extra].sort((a, b) =>
    a.tool.definition.name.localeCompare(b.tool.definition.name),
  );
  return entries.map(({ tool, source }) => ({
    name: tool.definition.name,
    title: tool.settings.title,
    category: tool.settings.category,
    source: source.kind,
    enabledByDefault: tool.settings.enabledByDefault,
    canDisable: tool.settings.canDisable,
    description: tool.settings.description,
  }));
}

/** `toolport tools list [--json] [--workdir DIR]` (with a workdir: its tools.json tools too, source `workspace`) */
export async function runToolsListCommand(
  argv: string[],
  registry: ToolRegistry,
  io: CliIo,
): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { json: { type: 'boolean', default: false }, workdir: { type: 'string' } },
    strict: true,
  });
  let extra: RegistryEntry[] = [];
  if (values.workdir !== undefined) {
    const workspace = await loadCliWorkspaceTools(resolveWorkdir(values.workdir, io.cwd), registry, io);
    extra = workspace?.entries ?? [];
    await workspace?.close();
  }
  const listing = listTools(registry, extra);
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
