import { toolFailure } from '../../core/execute-tool.ts';
import {
  TIMEOUT_SECONDS_DESCRIPTOR,
  clampIntegerSetting,
  getToolTimeoutMs,
} from '../../core/settings-policy.ts';
import {
  defineTool,
  type EffectiveToolSettings,
  type RegisteredTool,
  type ToolParameterDescriptor,
  type ToolServices,
} from '../../core/tool-types.ts';
import { buildChildEnvironment } from './build-child-environment.ts';
import { resolveShellCwd } from './resolve-shell-cwd.ts';
import { runShellCommand, type ShellCommandResult } from './run-shell-command.ts';
import { defaultShellStateDirectory, recoverShellCallsOnce } from './shell-call-records.ts';
import { detectShellSandbox, planShellSandbox, type ShellSandboxStatus } from './shell-sandbox.ts';

/** Shared by the three tools' descriptions: what every shell call can rely on. */
export function describeShellTool(invocation: string, filterHint = 'head, tail or grep'): string {
  return (
    `Runs one command with \`${invocation}\` on the server and returns stdout, stderr, exitCode, signal, ` +
    'durationMs, termination (exited | timed_out | aborted | signalled) and truncated. Non-interactive: stdin is ' +
    'empty, there is no TTY, and nothing persists between calls (each call is a fresh process; pass `cwd` instead of ' +
    '`cd`). The environment is minimal (PATH, HOME, LANG, TERM and what the user allowed). Everything the command ' +
    'started is killed when it exits or its time limit is reached, so background processes do not outlive the ' +
    'call. Output past the per-stream limit stops the command (truncated: true): filter long output with ' +
    `${filterHint}.`
  );
}

const COMMAND_ARGUMENT_DESCRIPTION = 'The command to run.';
const CWD_ARGUMENT_DESCRIPTION =
  'Directory to run in: absolute, starting with ~, or relative to the working directory. ' +
  'Defaults to the working directory.';

export const DEFAULT_MAX_OUTPUT_BYTES = 100 * 1024;

export const MAX_OUTPUT_BYTES_DESCRIPTOR: ToolParameterDescriptor = {
  name: 'maxOutputBytes',
  title: 'Output limit',
  type: 'integer',
  description:
    'Bytes kept from stdout and from stderr each; the rest is dropped and the result says truncated.',
  default: DEFAULT_MAX_OUTPUT_BYTES,
  minimum: 1024,
  maximum: 1024 * 1024,
  unit: 'bytes',
};

export const ENVIRONMENT_ALLOWLIST_DESCRIPTOR: ToolParameterDescriptor = {
  name: 'environmentAllowlist',
  title: 'Environment allowlist',
  type: 'string[]',
  description:
    "Names of the server's environment variables the command may see, besides PATH, HOME, LANG and TERM.",
  default: [],
};

/**
 * The shell's own deadline runs this much earlier than executeTool's budget for the same `timeoutSeconds`, so the
 * structured result (partial output, termination 'timed_out') reaches the caller before the budget cuts the call
 * off with a bare `timeout` error. Should the budget still win, the abort reason says timeout and the group dies.
 */
export const SHELL_DEADLINE_MARGIN_MS = 500;

export interface ShellToolSpec {
  /** The tool id: bash, zsh, powershell. */
  name: string;
  /** Absolute path of the interpreter, found on PATH at registration. */
  interpreter: string;
  /** The interpreter's arguments for one command, e.g. `['-c', command]`. */
  argsFor: (command: string) => string[];
  /** The text the model reads. */
  description: string;
  /** Settings screen title. */
  title: string;
  /** Issue 16: permission patterns match each parsed simple command (`shell`, default) or the whole line. */
  permissionSubject?: 'shell' | 'powershell';
}

interface ShellToolArguments {
  command: string;
  cwd?: string;
}

/** The sandbox status for a host: none when the host turned it off (`shellSandbox.enabled: false`). */
async function sandboxStatusFor(services: ToolServices): Promise<ShellSandboxStatus> {
  if (services.shellSandbox?.enabled === false)
    return { available: false, reason: 'turned off by the host (shellSandbox.enabled: false)' };
  return detectShellSandbox();
}

function allowlistFrom(settings: EffectiveToolSettings): string[] {
  const value = settings.parameters.environmentAllowlist;
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
}

/**
 * SPEC FS-6: the one implementation behind bash, zsh and powershell; they differ only by interpreter.
 *
 * @example
 * ```ts
 * import { buildShellTool, describeShellTool, ToolRegistry } from 'toolport';
 *
 * // A fish shell tool: disabled by default like the built-in shells, same timer, caps and environment rules.
 * new ToolRegistry().register(
 *   buildShellTool({
 *     name: 'fish',
 *     title: 'Fish',
 *     description: describeShellTool('fish -c'),
 *     interpreter: '/usr/bin/fish',
 *     argsFor: (command) => ['-c', command],
 *   }),
 *   { kind: 'custom', origin: 'my-app' },
 * );
 * ```
 */
export function buildShellTool(spec: ShellToolSpec): RegisteredTool {
  return defineTool<ShellToolArguments>({
    definition: {
      name: spec.name,
      description: spec.description,
      parameters: {
        type: 'object',
        properties: {
          command: { type: 'string', minLength: 1, description: COMMAND_ARGUMENT_DESCRIPTION },
          cwd: { type: 'string', description: CWD_ARGUMENT_DESCRIPTION },
        },
        required: ['command'],
        additionalProperties: false,
      },
    },
    settings: {
      title: spec.title,
      description: `Runs ${spec.name} commands on the server`,
      category: 'system',
      enabledByDefault: false,
      canDisable: true,
      defaultParameters: {
        timeoutSeconds: TIMEOUT_SECONDS_DESCRIPTOR.default,
        maxOutputBytes: DEFAULT_MAX_OUTPUT_BYTES,
        environmentAllowlist: [],
      },
      parameterDescriptors: [
        TIMEOUT_SECONDS_DESCRIPTOR,
        MAX_OUTPUT_BYTES_DESCRIPTOR,
        ENVIRONMENT_ALLOWLIST_DESCRIPTOR,
      ],
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    permissionSubject: spec.permissionSubject ?? 'shell',
    describeSandbox: async (services) => {
      const status = await sandboxStatusFor(services);
      return status.available ? { sandboxed: true } : { sandboxed: false, reason: status.reason };
    },
    async execute({ command, cwd }, context): Promise<ShellCommandResult> {
      const directory = await resolveShellCwd(cwd, context);
      const { settings, services } = context;
      const stateDirectory = services.shellSandbox?.stateDirectory ?? defaultShellStateDirectory();
      recoverShellCallsOnce(stateDirectory);
      const sandbox = await planShellSandbox({
        status: await sandboxStatusFor(services),
        workingDirectory: context.workingDirectory,
        services,
      });
      try {
        return await runShellCommand({
          interpreter: spec.interpreter,
          args: spec.argsFor(command),
          cwd: directory,
          env: buildChildEnvironment(process.env, allowlistFrom(settings)),
          timeoutMs: getToolTimeoutMs(settings) - SHELL_DEADLINE_MARGIN_MS,
          maxOutputBytes: clampIntegerSetting(settings.parameters.maxOutputBytes, {
            minimum: MAX_OUTPUT_BYTES_DESCRIPTOR.minimum,
            maximum: MAX_OUTPUT_BYTES_DESCRIPTOR.maximum,
            fallback: DEFAULT_MAX_OUTPUT_BYTES,
          }),
          signal: context.signal,
          sandbox,
          stateDirectory,
        });
      } catch (error) {
        throw toolFailure(
          `Could not start ${spec.name} (${spec.interpreter}): ${error instanceof Error ? error.message : String(error)}.`,
          'execution_failed',
        );
      }
    },
  });
}
