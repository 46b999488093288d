import type { ToolLookup, ToolRegistry, RegistryEntry } from '../core/tool-registry.ts';
import type { CliIo } from './cli-io.ts';

export interface CliWorkspaceTools {
  entries: RegistryEntry[];
  /** The registry with the workspace's tools added. */
  lookup: ToolLookup;
  close(): Promise<void>;
}

/**
 * WS-1 for `toolport tools list|run --workdir DIR`: the directory's tools.json tools (trusted: the operator named the
 * directory), run with origin `api`. Invalid entries are reported on stderr, one line per tool. Loaded only when the
 * directory has a tools.json, so other calls never load the isolate.
 */
export async function loadCliWorkspaceTools(
  directory: string,
  registry: ToolRegistry,
  io: CliIo,
): Promise<CliWorkspaceTools | undefined> {
  const { existsSync } = await import('node:fs');
  if (!existsSync(`${directory}/tools.json`)) return undefined;
  const [{ createWorkspaceToolService }, { parseOutboundAllowlist }, { formatWorkspaceToolErrors }] =
    await Promise.all([
      import('../workspace/create-workspace-tool-service.ts'),
      import('../net/parse-outbound-allowlist.ts'),
      import('../workspace/workspace-tools-file.ts'),
    ]);
  const service = createWorkspaceToolService({
    outboundAllowlist: parseOutboundAllowlist(io.env.TOOLPORT_OUTBOUND_ALLOW),
    env: io.env,
    reservedNames: () => registry.listEntries().map((entry) => entry.tool.definition.name),
    missingSecretsHint:
      'toolport tools run has no secret store; run the tool through toolport serve (POST /api/tools/NAME/execute) ' +
      "or toolport mcp --data-dir DIR --user NAME, where the user's secrets are.",
  });
  const entries = await service.listEntries(directory, { origin: 'api' });
  const errors = service.getSet(directory).errors;
  if (errors.length > 0)
    io.stderr(`toolport: tools.json in ${directory}:\n${formatWorkspaceToolErrors(errors)}\n`);
  const byName = new Map(entries.map((entry) => [entry.tool.definition.name, entry.tool]));
  return {
    entries,
    lookup: { get: (name) => byName.get(name) ?? registry.get(name) },
    close: () => service.close(),
  };
}
