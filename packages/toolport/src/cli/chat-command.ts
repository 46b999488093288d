import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { defaultToolRegistry } from '../core/tool-registry.ts';
import { createToolRuntime, type ToolRuntime } from '../core/tool-runtime.ts';
import type { ToolServices } from '../core/tool-types.ts';
import { cliCodeToolFolders } from '../custom-tools/code-tool-folders.ts';
import { EMPTY_CODE_TOOL_SNAPSHOT, loadCodeToolSnapshot } from '../custom-tools/code-tool-registration.ts';
import { runAgentTurn, startConversation } from '../providers/agent-loop.ts';
import { createCliApprover } from './cli-approver.ts';
import {
  API_KEY_ENVIRONMENT_VARIABLES,
  createProviderAdapter,
} from '../providers/create-provider-adapter.ts';
import { PROVIDER_NAMES, type ProviderName, type ProviderSession } from '../providers/provider-adapter.ts';
import type { StopReason, StreamEvent } from '../providers/stream-events.ts';
import { registerBuiltinTools } from '../tools/index.ts';
import { confinementFromFlags } from './cli-confinement.ts';
import type { CliIo } from './cli-io.ts';
import { startProgressLine, type ProgressLine } from './progress-line.ts';
import { openStoredUserContext, type StoredUserContext } from './stored-user-context.ts';
import { UsageError } from './usage-error.ts';
import { CHAT_SPEC, commandSynopsis, parseOptionsOf } from './command-specs.ts';

export const CHAT_USAGE = `usage: ${commandSynopsis(CHAT_SPEC)}`;

const SHOWN_RESULT_CHARACTERS = 200;
/** The stream events `renderTurn` may write for; others leave the progress line as it is. */
const PRINTING_EVENTS = new Set<StreamEvent['type']>([
  'text_delta',
  'tool_call_started',
  'tool_call_completed',
  'tool_result',
  'error',
  'turn_completed',
]);

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
/** The progress line of the turn being rendered, for the approval prompt to clear before it asks (issue 16). */
interface TurnDisplay {
  stopProgress(): void;
}

async function renderTurn(
  events: AsyncGenerator<StreamEvent, unknown>,
  io: CliIo,
  interactiveTerminal: boolean,
  display: TurnDisplay = { stopProgress: () => {} },
): Promise<StopReason> {
  const activity = interactiveTerminal ? io.stdout : io.stderr;
  let stepText = '';
  let stopReason: StopReason = 'error';
  // An error event fails the turn whatever stop reason follows it (exit 1).
  let sawError = false;
  // CLI-1: on a terminal, stderr says what the turn waits for (the model, a tool) while nothing else is printed.
  const waitingForModel = 'toolport: waiting for the model';
  let waitingFor: string | undefined = waitingForModel;
  let progress: ProgressLine = startProgressLine(io, waitingFor);
  display.stopProgress = () => progress.stop();
  for await (const event of events) {
    const previous: string | undefined = waitingFor;
    switch (event.type) {
      case 'text_delta':
      case 'tool_call_started':
      case 'error':
      case 'turn_completed':
      case 'approval_requested': // issue 16: the prompt is on stderr, a line redrawn there would erase it
        waitingFor = undefined;
        break;
      case 'tool_call_completed':
        waitingFor = `toolport: running ${event.name}`;
        break;
      case 'tool_result':
        if (event.partial !== true) waitingFor = waitingForModel;
        break;
      default:
        break;
    }
    // Events that change nothing keep the line (and its clock); anything printed below clears it first.
    const prints = PRINTING_EVENTS.has(event.type);
    if (waitingFor !== previous || prints) progress.stop();
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
        sawError = true;
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
    if (waitingFor !== undefined && (waitingFor !== previous || prints)) {
      progress = startProgressLine(io, waitingFor);
    }
  }
  progress.stop();
  return sawError ? 'error' : stopReason;
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
    options: parseOptionsOf(CHAT_SPEC),
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]!}\n${CHAT_USAGE}`);
  if (values.user === undefined && (values['data-dir'] !== undefined || values['database-url'] !== undefined))
    throw new UsageError(
      `--data-dir and --database-url select where --user is stored; give --user too\n${CHAT_USAGE}`,
    );
  const maxIterations = positiveInteger('--max-iterations', values['max-iterations']);
  const maxOutputTokens = positiveInteger('--max-tokens', values['max-tokens']);
  const workingDirectory = values.workdir === undefined ? undefined : resolveWorkdir(values.workdir, io.cwd);
  const fileServices = confinementFromFlags(values, workingDirectory, io);
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

  // CODE-1: the project's (working directory, else the current one) and the user's code tools, over the built-ins.
  const codeTools =
    stored === undefined
      ? await loadCodeToolSnapshot(
          cliCodeToolFolders({
            projectDirectory: workingDirectory ?? io.cwd,
            includeUserFolders: true,
            env: io.env,
          }),
          workingDirectory ?? io.cwd,
        )
      : EMPTY_CODE_TOOL_SNAPSHOT;
  for (const error of codeTools.loadErrors)
    io.stderr(`toolport: code tool not loaded: ${error.file}: ${error.reason}\n`);
  const adapter = createProviderAdapter(provider, { model, apiKey, baseURL, maxOutputTokens });
  // Last: a stored user's runtime connects their MCP servers, which bad arguments must never get to.
  const runtime: ToolRuntime =
    (await stored?.openRuntime()) ??
    createToolRuntime({
      entries: registerBuiltinTools(defaultToolRegistry).listEntries(),
      extraEntries: codeTools.entries,
      userId: 'local',
      chatId: 'cli',
      mode: workingDirectory === undefined ? 'chat' : 'agent',
      workingDirectory,
      environment: { services: fileServices },
    });
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
  const display: TurnDisplay = { stopProgress: () => {} };
  const approve = createCliApprover({
    io,
    beforeAsking: () => display.stopProgress(),
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
      display,
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
