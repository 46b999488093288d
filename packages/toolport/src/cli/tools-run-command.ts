import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { executeTool, type ExecuteToolEnvironment } from '../core/execute-tool.ts';
import type { ToolMode, ToolSettingsInput } from '../core/tool-types.ts';
import type { ToolRegistry } from '../core/tool-registry.ts';
import type { CliIo } from './cli-io.ts';
import { loadCliWorkspaceTools } from './cli-workspace-tools.ts';
import { UsageError, parseJsonOption } from './usage-error.ts';

/** `--settings` JSON: `{"enabled": true, "timeoutSeconds": 10}`; a nested `parameters` object is accepted too. */
export function parseSettingsOverrides(value: unknown): ToolSettingsInput {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError('--settings must be a JSON object, e.g. {"enabled": true, "timeoutSeconds": 10}');
  }
  const { enabled, parameters, ...flat } = value as Record<string, unknown>;
  if (
    parameters !== undefined &&
    (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters))
  ) {
    throw new UsageError('--settings "parameters" must be a JSON object');
  }
  const merged = { ...flat, ...(parameters as Record<string, unknown> | undefined) };
  const overrides: ToolSettingsInput = { parameters: merged };
  if (enabled !== undefined) overrides.enabled = enabled;
  return overrides;
}

export function resolveWorkdir(directory: string, cwd: string): string {
  const absolute = resolve(cwd, directory);
  let real: string;
  try {
    real = realpathSync(absolute);
  } catch {
    throw new UsageError(`--workdir ${directory}: no such directory`);
  }
  if (!statSync(real).isDirectory()) throw new UsageError(`--workdir ${directory}: not a directory`);
  return real;
}

/**
 * `toolport tools run <name> --args '<json>' [--settings '<json>'] [--workdir DIR] [--mode chat|agent]`
 * Prints the result JSON and returns 0; a tool error prints `{"error":{"code","message"}}` and returns 1.
 * `--mode` defaults to agent when `--workdir` is given (the directory is then used, PATH-1), else chat.
 */
export async function runToolsRunCommand(
  argv: string[],
  environment: ExecuteToolEnvironment,
  io: CliIo,
  signal?: AbortSignal,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      args: { type: 'string' },
      settings: { type: 'string' },
      workdir: { type: 'string' },
      mode: { type: 'string' },
      user: { type: 'string' },
      chat: { type: 'string' },
    },
  });
  if (positionals.length !== 1) {
    throw new UsageError(
      "usage: toolport tools run <name> --args '<json>' [--settings '<json>'] [--workdir DIR] [--mode chat|agent]",
    );
  }
  const toolName = positionals[0]!;
  const args = values.args === undefined ? {} : parseJsonOption('--args', values.args);
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    throw new UsageError('--args must be a JSON object');
  const settingsOverrides =
    values.settings === undefined
      ? undefined
      : parseSettingsOverrides(parseJsonOption('--settings', values.settings));
  if (values.mode !== undefined && values.mode !== 'chat' && values.mode !== 'agent') {
    throw new UsageError(`--mode must be "chat" or "agent", received ${JSON.stringify(values.mode)}`);
  }
  const workingDirectory = values.workdir === undefined ? undefined : resolveWorkdir(values.workdir, io.cwd);
  const mode: ToolMode =
    (values.mode as ToolMode | undefined) ?? (workingDirectory === undefined ? 'chat' : 'agent');

  const registry = environment.registry;
  const workspace =
    workingDirectory === undefined || registry === undefined || !('listEntries' in registry)
      ? undefined
      : await loadCliWorkspaceTools(workingDirectory, registry as ToolRegistry, io);
  const outcome = await executeTool(
    {
      toolName,
      arguments: args,
      userId: values.user ?? 'local',
      chatId: values.chat ?? 'cli',
      workingDirectory,
      mode,
      settingsOverrides,
      signal,
    },
    workspace === undefined ? environment : { ...environment, registry: workspace.lookup },
  ).finally(() => workspace?.close());
  // A workspace script's console output: on stderr, so stdout stays the result's JSON.
  if (outcome.logs !== undefined)
    io.stderr(`logs:\n${outcome.logs}${outcome.logs.endsWith('\n') ? '' : '\n'}`);
  if (outcome.ok) {
    io.stdout(`${JSON.stringify(outcome.result, null, 2) ?? 'null'}\n`);
    return 0;
  }
  io.stdout(`${JSON.stringify({ error: { code: outcome.error.code, message: outcome.error.message } })}\n`);
  return 1;
}
