import { TIMEOUT_SECONDS_DESCRIPTOR } from '../../core/settings-policy.ts';
import {
  defineTool,
  type JsonSchema,
  type RegisteredTool,
  type ToolParameterDescriptor,
} from '../../core/tool-types.ts';
import type { ShellCommandResult } from './run-shell-command.ts';

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

export interface ShellToolArguments {
  command: string;
  cwd?: string;
}

/** Every shell's argument schema (one per tool object; also listed for the build-time validators). */
export function shellToolParameters(): JsonSchema {
  return {
    type: 'object',
    properties: {
      command: { type: 'string', minLength: 1, description: COMMAND_ARGUMENT_DESCRIPTION },
      cwd: { type: 'string', description: CWD_ARGUMENT_DESCRIPTION },
    },
    required: ['command'],
    additionalProperties: false,
  };
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
      parameters: shellToolParameters(),
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
    // The call's machinery (child_process, the sandbox, cgroups) loads on the first call or sandbox check, not with
    // the registry: `toolport tools run grep` and `toolport mcp` never pay for it (issue 11 item 1).
    describeSandbox: async (services) =>
      (await import('./shell-tool-call.ts')).describeShellSandbox(services),
    execute: async (args, context): Promise<ShellCommandResult> =>
      (await import('./shell-tool-call.ts')).runShellToolCall(spec, args, context),
  });
}
