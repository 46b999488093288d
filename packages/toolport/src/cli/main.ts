import { InMemoryExecutionRecorder } from '../core/execution-recorder.ts';
import { defaultToolRegistry } from '../core/tool-registry.ts';
import { FileFreshnessLedger, getCliFreshnessDirectory } from '../fs/file-freshness-ledger.ts';
import { registerBuiltinTools } from '../tools/index.ts';
import { processIo, type CliIo } from './cli-io.ts';
import { runToolsListCommand } from './tools-list-command.ts';
import { runToolsRunCommand } from './tools-run-command.ts';
import { UsageError } from './usage-error.ts';

export const USAGE = `toolport — a tool runtime for LLM agents

Usage:
  toolport tools list [--json] [--workdir DIR]
  toolport tools run <name> --args '<json>' [--settings '<json>'] [--workdir DIR] [--mode chat|agent] [--chat ID]
  toolport chat --provider openai|openai-chat|anthropic|gemini --model M [--base-url URL] [-p "prompt"] [--user NAME]
  toolport mcp [--workdir DIR] [--user NAME] [--data-dir DIR] [--database-url URL]
                                        serve the enabled tools (a stored user's with --user) as an MCP server on stdio
  toolport serve [--host 127.0.0.1] [--port 7420] [--data-dir DIR] [--database-url sqlite:<path>|postgres://…]
  toolport user create <name> [--admin] [--data-dir DIR] [--database-url URL]
  toolport help

Exit codes: 0 success, 1 the tool returned an error, 2 bad usage.
`;

type CommandHandler = (argv: string[], io: CliIo, signal: AbortSignal) => Promise<number> | number;

/** One entry per command path. Heavy commands are imported on use so `tools` and `mcp` start fast. */
const COMMANDS: Record<string, CommandHandler> = {
  'tools list': (argv, io) => runToolsListCommand(argv, registerBuiltinTools(defaultToolRegistry), io),
  'tools run': async (argv, io, signal) =>
    runToolsRunCommand(
      argv,
      {
        registry: registerBuiltinTools(defaultToolRegistry),
        recorder: new InMemoryExecutionRecorder(),
        // One process per call: read_file's record must outlive it for write_file's guard (keyed by --chat).
        services: { freshnessLedger: new FileFreshnessLedger(await getCliFreshnessDirectory(io.env)) },
      },
      io,
      signal,
    ),
  // Imported on use: the provider SDKs load only for the command that talks to a provider.
  chat: async (argv, io, signal) => (await import('./chat-command.ts')).runChatCommand(argv, io, signal),
  // Imported on use: an MCP client waits for this command's start-up before its first tools/list.
  mcp: async (argv, io, signal) => (await import('./mcp-command.ts')).runMcpCommand(argv, io, signal),
  // Imported on use: the server, database drivers and Fastify load only for the commands that need them.
  serve: async (argv, io, signal) =>
    (await import('./serve-command.ts')).runServeCommand(argv, io, signal, {
      registry: registerBuiltinTools(defaultToolRegistry),
    }),
  'user create': async (argv, io) =>
    (await import('./user-create-command.ts')).runUserCreateCommand(argv, io),
};

function findCommand(argv: string[]): { handler: CommandHandler; rest: string[] } | undefined {
  for (const length of [2, 1]) {
    const handler = COMMANDS[argv.slice(0, length).join(' ')];
    if (handler !== undefined && argv.length >= length) return { handler, rest: argv.slice(length) };
  }
  return undefined;
}

/** Runs one CLI invocation and returns its exit code. */
export async function runCli(
  argv: string[],
  io: CliIo = processIo,
  signal: AbortSignal = new AbortController().signal,
): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    (argv.length === 0 ? io.stderr : io.stdout)(USAGE);
    return argv.length === 0 ? 2 : 0;
  }
  const command = findCommand(argv);
  if (command === undefined) {
    io.stderr(`toolport: unknown command "${argv.join(' ')}"\n\n${USAGE}`);
    return 2;
  }
  try {
    return await command.handler(command.rest, io, signal);
  } catch (error) {
    // parseArgs reports unknown flags and missing values with ERR_PARSE_ARGS_* codes: those are usage errors too.
    const code = (error as { code?: unknown }).code;
    if (error instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))) {
      io.stderr(`toolport: ${(error as Error).message}\n`);
      return 2;
    }
    throw error;
  }
}
