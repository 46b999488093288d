import { existsSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ApprovalRequest } from '../core/tool-approval.ts';
import type { RegistryEntry } from '../core/tool-registry.ts';
import type { ToolRuntime } from '../core/tool-runtime.ts';
import type { McpStdioServer } from '../mcp/mcp-stdio-server.ts';
import { confinementFromFlags } from './cli-confinement.ts';
import { createStderrLogger, type CliIo } from './cli-io.ts';
import type { WorkspaceToolService } from '../workspace/workspace-tool-service.ts';
import { UsageError } from './usage-error.ts';
import { MCP_SPEC, parseOptionsOf } from './command-specs.ts';

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
    options: parseOptionsOf(MCP_SPEC),
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

  // AUTH-2: a desktop MCP config pointing at a project cannot touch the rest of the disk.
  const fileServices = confinementFromFlags(values, workingDirectory, io);

  // Started first so it loads alongside whatever the runtime needs.
  const stdioServerModule = import('../mcp/mcp-stdio-server.ts');
  const stored =
    values['data-dir'] !== undefined || values['database-url'] !== undefined || values.user !== undefined;
  // CODE-1: the project's and the user's code tools, reloaded on change (list_changed to the client).
  const { startLiveCodeTools } = await import('../custom-tools/code-tool-live-reload.ts');
  const { cliCodeToolFolders } = await import('../custom-tools/code-tool-folders.ts');
  const projectDirectory = workingDirectory ?? io.cwd;
  let buildRuntime: (codeTools: readonly RegistryEntry[]) => Promise<ToolRuntime>;
  let closeStored: () => Promise<void> = async () => {};
  let workspaceTools: WorkspaceToolService | undefined;
  let rememberAlways: ((request: ApprovalRequest) => Promise<void>) | undefined;
  if (stored) {
    // Persistence, services and the MCP client SDK load only in this mode.
    const { openStoredMcpRuntime } = await import('./mcp-stored-runtime.ts');
    const opened = await openStoredMcpRuntime(
      {
        dataDirectory: values['data-dir'],
        databaseUrl: values['database-url'],
        userName: values.user,
        workingDirectory,
        fileServices,
      },
      io,
    );
    buildRuntime = opened.buildRuntime;
    rememberAlways = opened.rememberAlways;
    closeStored = opened.close;
    if (workingDirectory !== undefined && existsSync(join(workingDirectory, 'tools.json')))
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
    buildRuntime = async (codeTools) =>
      createToolRuntime({
        entries: registry.listEntries(),
        extraEntries: [
          ...codeTools,
          ...(service === undefined || workingDirectory === undefined
            ? []
            : await service.listEntries(workingDirectory, { origin: 'mcp', includeMetaTools: true })),
        ],
        userId: 'local',
        mode: workingDirectory === undefined ? 'chat' : 'agent',
        ...(workingDirectory === undefined ? {} : { workingDirectory }),
        // Code tools' context.log lines; stdout carries only the protocol.
        environment: { logger: createStderrLogger(io, 'toolport mcp'), services: fileServices },
      });
  }
  const reportLoadErrors = (errors: readonly { file: string; reason: string }[]): void => {
    for (const error of errors)
      io.stderr(`toolport mcp: code tool not loaded: ${error.file}: ${error.reason}\n`);
  };
  const current: { server?: McpStdioServer } = {};
  let reloads = Promise.resolve();
  let latestCodeTools: readonly RegistryEntry[] = [];
  // One rebuild at a time, in order (a slow rebuild must not overwrite a newer one): code tools or the workspace.
  const reload = (codeToolEntries: readonly RegistryEntry[]): void => {
    latestCodeTools = codeToolEntries;
    reloads = reloads
      .then(() => buildRuntime(codeToolEntries))
      .then((next) => current.server?.replaceRuntime(next))
      .catch((error: unknown) => io.stderr(`toolport mcp: could not reload tools: ${String(error)}\n`));
  };
  const codeTools = await startLiveCodeTools({
    folders: cliCodeToolFolders({ projectDirectory, includeUserFolders: true, env: io.env }),
    workspace: projectDirectory,
    onChange: (snapshot) => {
      reportLoadErrors(snapshot.loadErrors);
      reload(snapshot.entries);
    },
    onError: (error) => io.stderr(`toolport mcp: could not reload code tools: ${String(error)}\n`),
  });
  reportLoadErrors(codeTools.snapshot.loadErrors);
  latestCodeTools = codeTools.snapshot.entries;
  const runtime = await buildRuntime(latestCodeTools);
  const { serveMcpOverStdio } = await stdioServerModule;
  const server = serveMcpOverStdio({ runtime, ...(rememberAlways === undefined ? {} : { rememberAlways }) });
  current.server = server;
  let stopWatching: () => void = () => {};
  if (workingDirectory !== undefined && workspaceTools !== undefined) {
    // WS-1: a tools.json or script change (ReloadWorkspaceTools or the watcher) rebuilds the list: list_changed.
    const set = workspaceTools.getSet(workingDirectory);
    const unsubscribe = set.subscribe(() => reload(latestCodeTools));
    const unwatch = set.watch();
    stopWatching = () => {
      unsubscribe();
      unwatch();
    };
  }
  // A client that went away mid-write must end the session, not crash the process.
  process.stdout.on('error', () => server.close());
  signal.addEventListener('abort', () => server.close(), { once: true });
  io.stderr(
    `toolport mcp: serving ${runtime.tools.length} tools on stdio` +
      `${workingDirectory === undefined ? '' : ` (workdir ${workingDirectory})`}\n`,
  );
  await server.closed;
  codeTools.close();
  stopWatching();
  await closeStored();
  return 0;
}
