import { existsSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ToolRuntime } from '../core/tool-runtime.ts';
import type { WorkspaceToolService } from '../workspace/workspace-tool-service.ts';
import type { CliIo } from './cli-io.ts';
import { UsageError } from './usage-error.ts';

/**
 * `toolport mcp [--workdir DIR] [--data-dir DIR] [--database-url URL] [--user NAME]`: toolport's tools as an MCP
 * server on stdio (MCP-2). Without a database option: the built-ins with default settings, nothing stored is read.
 * With `--data-dir`, `--database-url` or `--user`: that stored user's enabled tools (settings, secrets, MCP servers)
 * as `toolport serve` gives them. stdout carries only the protocol; everything else goes to stderr. Modules load
 * lazily so a client gets its first `tools/list` answer quickly (the CLI's cold start is part of every MCP client's
 * start-up).
 */
export async function runMcpCommand(argv: string[], io: CliIo, signal: AbortSignal): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      workdir: { type: 'string' },
      'data-dir': { type: 'string' },
      'database-url': { type: 'string' },
      user: { type: 'string' },
    },
    strict: true,
  });
  let workingDirectory: string | undefined;
  if (values.workdir !== undefined) {
    const candidate = resolve(io.cwd, values.workdir);
    let isDirectory: boolean;
    try {
      isDirectory = statSync(candidate).isDirectory();
    } catch {
      isDirectory = false;
    }
    if (!isDirectory) throw new UsageError(`--workdir ${values.workdir} is not a directory.`);
    workingDirectory = realpathSync(candidate);
  }

  // Started first so it loads alongside whatever the runtime needs.
  const stdioServerModule = import('../mcp/mcp-stdio-server.ts');
  const stored =
    values['data-dir'] !== undefined || values['database-url'] !== undefined || values.user !== undefined;
  let runtime: ToolRuntime;
  let closeStored: () => Promise<void> = async () => {};
  let rebuild: (() => Promise<ToolRuntime>) | undefined;
  let workspaceTools: WorkspaceToolService | undefined;
  if (stored) {
    // Persistence, services and the MCP client SDK load only in this mode.
    const { openStoredMcpRuntime } = await import('./mcp-stored-runtime.ts');
    const opened = await openStoredMcpRuntime(
      {
        dataDirectory: values['data-dir'],
        databaseUrl: values['database-url'],
        userName: values.user,
        workingDirectory,
      },
      io,
    );
    runtime = opened.runtime;
    closeStored = opened.close;
    rebuild = opened.rebuild;
    workspaceTools = opened.workspaceTools;
  } else {
    const [{ createToolRuntime }, { defaultToolRegistry }, { registerBuiltinTools }] = await Promise.all([
      import('../core/tool-runtime.ts'),
      import('../core/tool-registry.ts'),
      import('../tools/index.ts'),
    ]);
    const registry = registerBuiltinTools(defaultToolRegistry);
    // WS-1: loaded only when the workdir has a tools.json, so `--workdir` alone keeps its cold start (MCP-2).
    if (workingDirectory !== undefined && existsSync(join(workingDirectory, 'tools.json'))) {
      const { createWorkspaceToolService } = await import('../workspace/create-workspace-tool-service.ts');
      const { parseOutboundAllowlist } = await import('../net/parse-outbound-allowlist.ts');
      workspaceTools = createWorkspaceToolService({
        outboundAllowlist: parseOutboundAllowlist(io.env.TOOLPORT_OUTBOUND_ALLOW),
        env: io.env,
        reservedNames: () => registry.listEntries().map((entry) => entry.tool.definition.name),
        missingSecretsHint:
          'toolport mcp reads secrets from a stored user: start it with --data-dir DIR --user NAME (the secrets set ' +
          'with PUT /api/secrets/NAME on toolport serve).',
      });
      closeStored = () => workspaceTools!.close();
    }
    const service = workspaceTools;
    rebuild = async () =>
      createToolRuntime({
        entries: registry.listEntries(),
        extraEntries:
          service === undefined || workingDirectory === undefined
            ? []
            : await service.listEntries(workingDirectory, { origin: 'mcp', includeMetaTools: true }),
        userId: 'local',
        mode: workingDirectory === undefined ? 'chat' : 'agent',
        ...(workingDirectory === undefined ? {} : { workingDirectory }),
      });
    runtime = await rebuild();
  }
  const { serveMcpOverStdio } = await stdioServerModule;
  let serverOptions: Parameters<typeof serveMcpOverStdio>[0] = { runtime };
  let stopWatching: () => void = () => {};
  if (workingDirectory !== undefined && workspaceTools !== undefined && rebuild !== undefined) {
    // A tools.json or script change (ReloadWorkspaceTools or the watcher) rebuilds the list: list_changed.
    const { createLiveToolRuntime } = await import('../workspace/live-tool-runtime.ts');
    const live = createLiveToolRuntime(runtime);
    const set = workspaceTools.getSet(workingDirectory);
    const build = rebuild;
    const unsubscribe = set.subscribe(() => {
      void build().then((next) => live.replace(next));
    });
    const unwatch = set.watch();
    stopWatching = () => {
      unsubscribe();
      unwatch();
    };
    serverOptions = { runtime: live, toolListChanges: live.changes };
  }
  const server = serveMcpOverStdio(serverOptions);
  // A client that went away mid-write must end the session, not crash the process.
  process.stdout.on('error', () => server.close());
  signal.addEventListener('abort', () => server.close(), { once: true });
  io.stderr(
    `toolport mcp: serving ${runtime.tools.length} tools on stdio` +
      `${workingDirectory === undefined ? '' : ` (workdir ${workingDirectory})`}\n`,
  );
  await server.closed;
  stopWatching();
  await closeStored();
  return 0;
}
