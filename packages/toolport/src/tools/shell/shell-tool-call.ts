import { toolFailure } from '../../core/execute-tool.ts';
import { clampIntegerSetting, getToolTimeoutMs } from '../../core/settings-policy.ts';
import type {
  EffectiveToolSettings,
  ToolSandboxState,
  ToolContext,
  ToolServices,
} from '../../core/tool-types.ts';
import {
  DEFAULT_MAX_OUTPUT_BYTES,
  MAX_OUTPUT_BYTES_DESCRIPTOR,
  SHELL_DEADLINE_MARGIN_MS,
  type ShellToolArguments,
  type ShellToolSpec,
} from './build-shell-tool.ts';
import { buildChildEnvironment } from './build-child-environment.ts';
import { resolveShellCwd } from './resolve-shell-cwd.ts';
import { runShellCommand, type ShellCommandResult } from './run-shell-command.ts';
import { defaultShellStateDirectory, recoverShellCallsOnce } from './shell-call-records.ts';
import { createShellOutputReporter } from './shell-output-reporter.ts';
import { detectShellSandbox, planShellSandbox, type ShellSandboxStatus } from './shell-sandbox.ts';

/*
 * One FS-6 shell call, loaded by build-shell-tool.ts on first use: it alone pulls in child_process, the sandbox and
 * the cgroup code.
 */

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

export async function describeShellSandbox(services: ToolServices): Promise<ToolSandboxState> {
  const status = await sandboxStatusFor(services);
  return status.available ? { sandboxed: true } : { sandboxed: false, reason: status.reason };
}

export async function runShellToolCall(
  spec: ShellToolSpec,
  { command, cwd }: ShellToolArguments,
  context: ToolContext,
): Promise<ShellCommandResult> {
  const directory = await resolveShellCwd(cwd, context);
  const { settings, services } = context;
  const stateDirectory = services.shellSandbox?.stateDirectory ?? defaultShellStateDirectory();
  recoverShellCallsOnce(stateDirectory);
  const sandbox = await planShellSandbox({
    status: await sandboxStatusFor(services),
    workingDirectory: context.workingDirectory,
    services,
  });
  // MCP-2 (issue 18): stderr lines as log messages, output so far as progress, while the command runs.
  const reporter = createShellOutputReporter(context);
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
      onOutput: reporter.onOutput,
    });
  } catch (error) {
    throw toolFailure(
      `Could not start ${spec.name} (${spec.interpreter}): ${error instanceof Error ? error.message : String(error)}.`,
      'execution_failed',
    );
  } finally {
    reporter.finish();
  }
}
