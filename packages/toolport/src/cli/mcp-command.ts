import type { ApprovalRequest } from '../core/tool-approval.ts';
import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ToolRuntime } from '../core/tool-runtime.ts';
import { CONFINEMENT_OPTIONS, cliFileServices } from '../policy/cli-file-access.ts';
import type { CliIo } from './cli-io.ts';
import { resolveDataDirectory } from './server-config.ts';
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
      ...CONFINEMENT_OPTIONS,
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

  // AUTH-2: a desktop MCP config pointing at a project cannot touch the rest of the disk.
  const fileServices = cliFileServices({
    workingDirectory,
    allowPaths: values['allow-path'],
    noConfine: values['no-confine'],
    cwd: io.cwd,
    dataDirectory: resolveDataDirectory(values['data-dir'], io.env, io.cwd),
  });

  // Started first so it loads alongside whatever the runtime needs.
  const stdioServerModule = import('../mcp/mcp-stdio-server.ts');
  const stored =
    values['data-dir'] !== undefined || values['database-url'] !== undefined || values.user !== undefined;
  let runtime: ToolRuntime;
  let closeStored: () => Promise<void> = async () => {};
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
    runtime = opened.runtime;
    rememberAlways = opened.rememberAlways;
    closeStored = opened.close;
  } else {
    const [{ createToolRuntime }, { defaultToolRegistry }, { registerBuiltinTools }] = await Promise.all([
      import('../core/tool-runtime.ts'),
      import('../core/tool-registry.ts'),
      import('../tools/index.ts'),
    ]);
    const registry = registerBuiltinTools(defaultToolRegistry);
    runtime = createToolRuntime({
      entries: registry.listEntries(),
      userId: 'local',
      mode: workingDirectory === undefined ? 'chat' : 'agent',
      ...(workingDirectory === undefined ? {} : { workingDirectory }),
      environment: { services: fileServices },
    });
  }
  const { serveMcpOverStdio } = await stdioServerModule;
  const server = serveMcpOverStdio({ runtime, ...(rememberAlways === undefined ? {} : { rememberAlways }) });
  // A client that went away mid-write must end the session, not crash the process.
  process.stdout.on('error', () => server.close());
  signal.addEventListener('abort', () => server.close(), { once: true });
  io.stderr(
    `toolport mcp: serving ${runtime.tools.length} tools on stdio` +
      `${workingDirectory === undefined ? '' : ` (workdir ${workingDirectory})`}\n`,
  );
  await server.closed;
  await closeStored();
  return 0;
}
