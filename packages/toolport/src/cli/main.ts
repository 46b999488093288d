import { InMemoryExecutionRecorder } from '../core/execution-recorder.ts';
import { defaultToolRegistry } from '../core/tool-registry.ts';
import { FileFreshnessLedger, getCliFreshnessDirectory } from '../fs/file-freshness-ledger.ts';
import { registerBuiltinTools } from '../tools/index.ts';
import { createStderrLogger, processIo, type CliIo } from './cli-io.ts';
import { runToolsListCommand } from './tools-list-command.ts';
import { runToolsRunCommand } from './tools-run-command.ts';
import {
  commandHelp,
  commandSpec,
  topLevelUsage,
  TOOLPORT_VERSION,
  type CommandSpec,
} from './command-specs.ts';
import { UsageError } from './usage-error.ts';

/** Generated from the command specs, so it lists every command, flag and provider that exists. */
export const USAGE = topLevelUsage();

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
        // Code tools' context.log lines (CODE-1); stdout carries only the result.
        logger: createStderrLogger(io, 'toolport'),
        // One process per call: read_file's record must outlive it for write_file's guard (keyed by --chat).
        services: { freshnessLedger: new FileFreshnessLedger(await getCliFreshnessDirectory(io.env)) },
      },
      io,
      signal,
      defaultToolRegistry,
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
  'net check': async (argv, io) => (await import('./net-check-command.ts')).runNetCheckCommand(argv, io),
  'user create': async (argv, io) =>
    (await import('./user-create-command.ts')).runUserCreateCommand(argv, io),
  'mcp-servers authorize': async (argv, io, signal) =>
    (await import('./mcp-servers-authorize-command.ts')).runMcpServersAuthorizeCommand(argv, io, signal),
};

function findCommand(argv: string[]): { name: string; handler: CommandHandler; rest: string[] } | undefined {
  for (const length of [2, 1]) {
    const name = argv.slice(0, length).join(' ');
    const handler = COMMANDS[name];
    if (handler !== undefined && argv.length >= length) return { name, handler, rest: argv.slice(length) };
  }
  return undefined;
}

/**
 * Whether `flags` appear among the command's own tokens: a string flag's value (`--args '--help'`) and anything after
 * `--` are not flags.
 */
function hasFlag(argv: readonly string[], spec: CommandSpec | undefined, flags: readonly string[]): boolean {
  const takesValue = new Set<string>();
  for (const [name, flag] of Object.entries(spec?.flags ?? {})) {
    if (flag.type !== 'string') continue;
    takesValue.add(`--${name}`);
    if (flag.short !== undefined) takesValue.add(`-${flag.short}`);
  }
  for (let index = 0; index < argv.length; index += 1) {
    const token = argv[index]!;
    if (token === '--') return false;
    if (flags.includes(token)) return true;
    if (takesValue.has(token)) index += 1;
  }
  return false;
}

const HELP_FLAGS = ['--help', '-h'];
const VERSION_FLAGS = ['--version'];

/** Runs one CLI invocation and returns its exit code. */
export async function runCli(
  argv: string[],
  io: CliIo = processIo,
  signal: AbortSignal = new AbortController().signal,
): Promise<number> {
  if (argv.length === 0) {
    io.stderr(USAGE);
    return 2;
  }
  if (argv[0] === 'help' && argv.length === 1) {
    io.stdout(USAGE);
    return 0;
  }
  const command = findCommand(argv[0] === 'help' ? argv.slice(1) : argv);
  const spec = command === undefined ? undefined : commandSpec(command.name);
  const rest = command?.rest ?? argv;
  if (hasFlag(rest, spec, VERSION_FLAGS)) {
    io.stdout(`toolport ${TOOLPORT_VERSION}\n`);
    return 0;
  }
  if (argv[0] === 'help' || hasFlag(rest, spec, HELP_FLAGS)) {
    io.stdout(spec === undefined ? USAGE : commandHelp(spec));
    return 0;
  }
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
