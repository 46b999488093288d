import { parseArgs } from './parse-args.ts';
import type { RegistryEntry, ToolRegistry } from '../core/tool-registry.ts';
import { cliCodeToolFolders } from '../custom-tools/code-tool-folders.ts';
import {
  loadCodeToolSnapshot,
  registerCodeTools,
  type CodeToolRegistration,
} from '../custom-tools/code-tool-registration.ts';
import type { CliIo } from './cli-io.ts';
import { parseOptionsOf, TOOLS_LIST_SPEC } from './command-specs.ts';
import { loadCliWorkspaceTools } from './cli-workspace-tools.ts';
import { resolveWorkdir } from './tools-run-command.ts';

export interface ToolListing {
  name: string;
  title: string;
  category: string;
  source: string;
  /** A code tool's file. */
  file?: string;
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
    ...(source.file === undefined ? {} : { file: source.file }),
    enabledByDefault: tool.settings.enabledByDefault,
    canDisable: tool.settings.canDisable,
    description: tool.settings.description,
  }));
}

/**
 * CODE-1 for the CLI: the code tools of `<project>/.toolport/tools`, `.opencode/tool(s)` and the user's folders
 * (`$XDG_CONFIG_HOME/{toolport/tools,opencode/tool(s)}`), registered into `registry` over the built-ins.
 */
export async function registerCliCodeTools(
  registry: ToolRegistry,
  projectDirectory: string,
  env: NodeJS.ProcessEnv,
): Promise<CodeToolRegistration> {
  const folders = cliCodeToolFolders({ projectDirectory, includeUserFolders: true, env });
  return registerCodeTools(registry, await loadCodeToolSnapshot(folders, projectDirectory));
}

function printCodeToolNotes(registration: CodeToolRegistration, io: CliIo): void {
  if (registration.shadowed.length > 0) {
    io.stdout('\nShadowed:\n');
    for (const item of registration.shadowed)
      io.stdout(
        `  ${item.name} (${item.file === 'builtin' ? 'built-in' : item.file}) by ${item.shadowedBy}\n`,
      );
  }
  if (registration.loadErrors.length > 0) {
    io.stdout(`\nLoad errors (${registration.loadErrors.length}):\n`);
    for (const error of registration.loadErrors) io.stdout(`  ${error.file}: ${error.reason}\n`);
  }
}

/** `toolport tools list [--json] [--workdir DIR]` */
export async function runToolsListCommand(
  argv: string[],
  registry: ToolRegistry,
  io: CliIo,
): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: parseOptionsOf(TOOLS_LIST_SPEC),
    strict: true,
  });
  const projectDirectory = values.workdir === undefined ? io.cwd : resolveWorkdir(values.workdir, io.cwd);
  const registration = await registerCliCodeTools(registry, projectDirectory, io.env);
  // WS-1: with a workdir, its tools.json tools too (source `workspace`).
  let extra: RegistryEntry[] = [];
  if (values.workdir !== undefined) {
    const workspace = await loadCliWorkspaceTools(projectDirectory, registry, io);
    extra = workspace?.entries ?? [];
    await workspace?.close();
  }
  const listing = listTools(registry, extra);
  if (values.json) {
    const { shadowed, loadErrors } = registration;
    io.stdout(`${JSON.stringify({ tools: listing, shadowed, loadErrors }, null, 2)}\n`);
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
  printCodeToolNotes(registration, io);
  return 0;
}
