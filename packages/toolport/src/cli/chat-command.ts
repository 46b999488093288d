import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { defaultToolRegistry } from '../core/tool-registry.ts';
import { createToolRuntime, type ToolRuntime } from '../core/tool-runtime.ts';
import type { ToolServices } from '../core/tool-types.ts';
import { runAgentTurn, startConversation } from '../providers/agent-loop.ts';
import { createCliApprover } from './cli-approver.ts';
import {
  API_KEY_ENVIRONMENT_VARIABLES,
  createProviderAdapter,
} from '../providers/create-provider-adapter.ts';
import { PROVIDER_NAMES, type ProviderName, type ProviderSession } from '../providers/provider-adapter.ts';
import type { StopReason, StreamEvent } from '../providers/stream-events.ts';
import { registerBuiltinTools } from '../tools/index.ts';
import { CONFINEMENT_OPTIONS, cliFileServices } from '../policy/cli-file-access.ts';
import type { CliIo } from './cli-io.ts';
import { DATABASE_OPTIONS, resolveDataDirectory } from './server-config.ts';
import { openStoredUserContext, type StoredUserContext } from './stored-user-context.ts';
import { UsageError } from './usage-error.ts';

export const CHAT_USAGE =
  'usage: toolport chat --provider openai|openai-chat|anthropic|gemini|gemini-interactions --model MODEL ' +
  '[--base-url URL] [-p "prompt"] [--system TEXT] [--workdir DIR] [--max-iterations N] [--max-tokens N] ' +
  '[--user NAME [--data-dir DIR] [--database-url URL]] [--yes]';

const SHOWN_RESULT_CHARACTERS = 200;

function resolveWorkdir(directory: string, cwd: string): string {
  let real: string;
  try {
    real = realpathSync(resolve(cwd, directory));
  } catch {
    throw new UsageError(`--workdir ${directory}: no such directory`);
  }
  if (!statSync(real).isDirectory()) throw new UsageError(`--workdir ${directory}: not a directory`);
  return real;
}

function positiveInteger(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new UsageError(`${flag} must be a positive integer`);
  return parsed;
}

function shorten(text: string): string {
  const oneLine = text.replaceAll('\n', ' ');
  return oneLine.length > SHOWN_RESULT_CHARACTERS
    ? `${oneLine.slice(0, SHOWN_RESULT_CHARACTERS - 1)}…`
    : oneLine;
}

/** Exit status of a turn: 0 when the model answered, 1 when it did not (error, iteration limit), 130 on cancel. */
function exitCodeFor(stopReason: StopReason): number {
  if (stopReason === 'cancelled') return 130;
  return stopReason === 'error' || stopReason === 'max_iterations' ? 1 : 0;
}

/**
 * Renders one turn. On a terminal everything streams to stdout; otherwise stdout gets only the model's final answer
 * and the activity (tool calls, their results, text the model wrote before calling tools) goes to stderr.
 */
async function renderTurn(
  events: AsyncGenerator<StreamEvent, unknown>,
  io: CliIo,
  interactiveTerminal: boolean,
): Promise<StopReason> {
  const activity = interactiveTerminal ? io.stdout : io.stderr;
  let stepText = '';
  let stopReason: StopReason = 'error';
  for await (const event of events) {
    switch (event.type) {
      case 'text_delta':
        if (interactiveTerminal) io.stdout(event.delta);
        else stepText += event.delta;
        break;
      case 'tool_call_started':
        if (interactiveTerminal && stepText === '') io.stdout('\n');
        if (!interactiveTerminal && stepText !== '') {
          io.stderr(`${stepText}\n`);
        }
        stepText = '';
        break;
      case 'tool_call_completed':
        activity(`→ ${event.name} ${shorten(event.arguments === '' ? '{}' : event.arguments)}\n`);
        break;
      case 'tool_result':
        if (event.partial === true) {
          activity(`  ${event.name} … ${shorten(event.output)}\n`);
          break;
        }
        activity(
          event.error === undefined
            ? `← ${event.name} ok ${shorten(event.output)}\n`
            : `← ${event.name} ${event.error.code}: ${shorten(event.error.message)}\n`,
        );
        break;
      case 'error':
        io.stderr(
          `toolport: provider error${event.status === undefined ? '' : ` (${event.status})`}: ${event.message}\n`,
        );
        break;
      case 'turn_completed':
        stopReason = event.stopReason;
        if (interactiveTerminal) io.stdout('\n');
        else if (stepText !== '') io.stdout(stepText.endsWith('\n') ? stepText : `${stepText}\n`);
        if (event.message !== undefined && event.stopReason !== 'error')
          io.stderr(`toolport: ${event.message}\n`);
        break;
      default:
        break;
    }
  }
  return stopReason;
}

/**
 * `toolport chat --provider P --model M [--base-url URL] [-p "prompt"]`: one-shot with `-p`, else interactive
 * (one line per turn, same conversation; `/exit` or end of input quits). The tools are the enabled built-ins with
 * their default settings; `--workdir` binds a working directory and switches to agent mode (PATH-1). The API key
 * comes from the provider's usual environment variable.
 *
 * With `--user NAME` (and the server's `--data-dir`/`--database-url`), the tools are that stored user's enabled ones
 * with their saved settings, `--provider` may name one of their provider configurations (default: their oldest, whose
 * base URL and default model fill in `--base-url` and `--model`), and when the environment variable is unset the key
 * comes from their secrets (the configuration's `apiKeySecret`, else a secret named like the variable).
 */
export async function runChatCommand(argv: string[], io: CliIo, signal?: AbortSignal): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      provider: { type: 'string' },
      model: { type: 'string' },
      'base-url': { type: 'string' },
      prompt: { type: 'string', short: 'p' },
      system: { type: 'string' },
      workdir: { type: 'string' },
      'max-iterations': { type: 'string' },
      'max-tokens': { type: 'string' },
      user: { type: 'string' },
      yes: { type: 'boolean' },
      ...DATABASE_OPTIONS,
      ...CONFINEMENT_OPTIONS,
    },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]!}\n${CHAT_USAGE}`);
  if (values.user === undefined && (values['data-dir'] !== undefined || values['database-url'] !== undefined))
    throw new UsageError(
      `--data-dir and --database-url select where --user is stored; give --user too\n${CHAT_USAGE}`,
    );
  const maxIterations = positiveInteger('--max-iterations', values['max-iterations']);
  const maxOutputTokens = positiveInteger('--max-tokens', values['max-tokens']);
  const workingDirectory = values.workdir === undefined ? undefined : resolveWorkdir(values.workdir, io.cwd);
  const fileServices = cliFileServices({
    workingDirectory,
    allowPaths: values['allow-path'],
    noConfine: values['no-confine'],
    cwd: io.cwd,
    dataDirectory: resolveDataDirectory(values['data-dir'], io.env, io.cwd),
  });
  const stored: StoredUserContext | undefined =
    values.user === undefined
      ? undefined
      : await openStoredUserContext(io, {
          userName: values.user,
          dataDirectoryFlag: values['data-dir'],
          databaseUrlFlag: values['database-url'],
          provider: values.provider,
          workingDirectory,
          fileServices,
        });
  try {
    return await chat(values, io, signal, {
      stored,
      maxIterations,
      maxOutputTokens,
      workingDirectory,
      fileServices,
    });
  } finally {
    await stored?.close();
  }
}

interface ChatSetup {
  stored: StoredUserContext | undefined;
  maxIterations: number | undefined;
  maxOutputTokens: number | undefined;
  workingDirectory: string | undefined;
  fileServices: Pick<ToolServices, 'fileAccess' | 'protectedPaths'>;
}

async function chat(
  values: {
    provider?: string;
    model?: string;
    'base-url'?: string;
    prompt?: string;
    system?: string;
    yes?: boolean;
  },
  io: CliIo,
  signal: AbortSignal | undefined,
  { stored, maxIterations, maxOutputTokens, workingDirectory, fileServices }: ChatSetup,
): Promise<number> {
  const provider = (stored?.config?.provider ?? values.provider) as ProviderName | undefined;
  if (provider === undefined || !PROVIDER_NAMES.includes(provider)) {
    throw new UsageError(`--provider must be one of ${PROVIDER_NAMES.join(', ')}\n${CHAT_USAGE}`);
  }
  const model = values.model ?? stored?.config?.defaultModel;
  if (model === undefined || model === '') throw new UsageError(`--model is required\n${CHAT_USAGE}`);
  const baseURL = values['base-url'] ?? stored?.config?.baseUrl ?? undefined;
  const keyVariable = API_KEY_ENVIRONMENT_VARIABLES[provider];
  let apiKey = io.env[keyVariable];
  if (apiKey === undefined || apiKey === '') apiKey = await stored?.apiKey(provider);
  if (apiKey === undefined || apiKey === '') {
    // Local OpenAI-compatible servers (Ollama, llama.cpp) take no key; the SDK still wants a string.
    if (baseURL === undefined)
      throw new UsageError(
        `set ${keyVariable} to use --provider ${provider}` +
          (stored === undefined ? '' : ", or store the key in the user's secrets"),
      );
    apiKey = 'no-key';
  }

  const runtime: ToolRuntime =
    stored?.runtime ??
    createToolRuntime({
      entries: registerBuiltinTools(defaultToolRegistry).listEntries(),
      userId: 'local',
      chatId: 'cli',
      mode: workingDirectory === undefined ? 'chat' : 'agent',
      workingDirectory,
      environment: { services: fileServices },
    });
  const adapter = createProviderAdapter(provider, { model, apiKey, baseURL, maxOutputTokens });
  const session: ProviderSession = startConversation({
    adapter,
    runtime,
    systemPrompt: values.system,
    onNonStrict: (tool, reason) => io.stderr(`toolport: ${tool} is sent without strict mode: ${reason}\n`),
  });
  const input = io.stdin ?? process.stdin;
  const lines = createInterface({ input, terminal: false });
  // Turns and approval answers read from one line iterator, so an answer is never taken as the next message.
  const reader = lines[Symbol.asyncIterator]();
  const readLine = async (): Promise<string | undefined> => {
    const next = await reader.next();
    return next.done === true ? undefined : next.value;
  };
  const approve = createCliApprover({
    io,
    yes: values.yes === true,
    interactive: io.stdinIsTerminal === true,
    readLine,
    ...(stored === undefined ? {} : { rememberAlways: (request) => stored.rememberAlways(request) }),
  });
  const turn = (userMessage: string): Promise<StopReason> =>
    renderTurn(
      runAgentTurn({ session, runtime, userMessage, maxIterations, signal, approve }),
      io,
      io.stdoutIsTerminal === true,
    );

  if (values.prompt !== undefined) {
    try {
      return exitCodeFor(await turn(values.prompt));
    } finally {
      lines.close();
    }
  }
  const prompt = (): void => {
    if (io.stdoutIsTerminal === true) io.stdout('> ');
  };
  let lastExit = 0;
  prompt();
  for (let line = await readLine(); line !== undefined; line = await readLine()) {
    const message = line.trim();
    if (message === '/exit' || message === '/quit') break;
    if (message !== '') {
      const stopReason = await turn(message);
      lastExit = exitCodeFor(stopReason);
      if (stopReason === 'cancelled') break;
    }
    prompt();
  }
  lines.close();
  return lastExit;
}
