import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { CliIo } from './cli-io.ts';
import { UsageError } from './usage-error.ts';

/**
 * `toolport mcp [--workdir DIR]`: toolport's enabled built-ins (default settings) as an MCP server on stdio (MCP-2).
 * stdout carries only the protocol; everything else goes to stderr. Modules load lazily so a client gets its first
 * `tools/list` answer quickly (the CLI's cold start is part of every MCP client's start-up).
 */
export async function runMcpCommand(argv: string[], io: CliIo, signal: AbortSignal): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { workdir: { type: 'string' } },
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

  const [{ createToolRuntime }, { defaultToolRegistry }, { registerBuiltinTools }, { serveMcpOverStdio }] =
    await Promise.all([
      import('../core/tool-runtime.ts'),
      import('../core/tool-registry.ts'),
      import('../tools/index.ts'),
      import('../mcp/mcp-stdio-server.ts'),
    ]);
  const registry = registerBuiltinTools(defaultToolRegistry);
  // The lead switches this to the user's saved settings (getEnabledToolRuntime) once persistence lands.
  const runtime = createToolRuntime({
    entries: registry.listEntries(),
    userId: 'local',
    mode: workingDirectory === undefined ? 'chat' : 'agent',
    ...(workingDirectory === undefined ? {} : { workingDirectory }),
  });
  const server = serveMcpOverStdio({ runtime });
  // A client that went away mid-write must end the session, not crash the process.
  process.stdout.on('error', () => server.close());
  signal.addEventListener('abort', () => server.close(), { once: true });
  io.stderr(
    `toolport mcp: serving ${runtime.tools.length} tools on stdio` +
      `${workingDirectory === undefined ? '' : ` (workdir ${workingDirectory})`}\n`,
  );
  await server.closed;
  return 0;
}
