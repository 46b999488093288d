import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from './parse-args.ts';
import { executeTool, type ExecuteToolEnvironment } from '../core/execute-tool.ts';
import type { ToolRegistry } from '../core/tool-registry.ts';
import type { ToolMode, ToolSettingsInput } from '../core/tool-types.ts';
import { confinementFromFlags } from './cli-confinement.ts';
import type { CliIo } from './cli-io.ts';
import { startProgressLine } from './progress-line.ts';
import { loadCliWorkspaceTools } from './cli-workspace-tools.ts';
import { UsageError, parseJsonOption } from './usage-error.ts';
import { commandSynopsis, parseOptionsOf, TOOLS_RUN_SPEC } from './command-specs.ts';

/** 128 + SIGINT, as shells report a command ended by Ctrl-C (and `toolport chat` does). */
export const INTERRUPTED_EXIT_CODE = 130;
const ABORT_GRACE_MS = 5_000;

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

/** `--workdir`: an existing directory, as its real path. */
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
 * `toolport tools run <name> --args '<json>' [--settings '<json>'] [--workdir DIR] [--mode chat|agent]
 * [--allow-path P]... [--no-confine]`: with `--workdir`, file tools are confined to it (AUTH-2, `cliFileServices`).
 * Prints the result JSON and returns 0; a tool error prints `{"error":{"code","message"}}` and returns 1. Ctrl-C
 * (`signal`) prints what the tool returned when it stopped (a shell's partial output) and returns 130. On a terminal,
 * stderr shows a progress line while the call runs.
 * `--mode` defaults to agent when `--workdir` is given (the directory is then used, PATH-1), else chat.
 * With `codeToolRegistry` (the registry `environment` looks tools up in), the project's and the user's code tools
 * (CODE-1) are loaded into it first; their load errors are printed on stderr.
 */
export async function runToolsRunCommand(
  argv: string[],
  environment: ExecuteToolEnvironment,
  io: CliIo,
  signal?: AbortSignal,
  codeToolRegistry?: ToolRegistry,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: parseOptionsOf(TOOLS_RUN_SPEC),
  });
  if (positionals.length !== 1) {
    throw new UsageError(`usage: ${commandSynopsis(TOOLS_RUN_SPEC)}`);
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
  if (codeToolRegistry !== undefined) {
    const { registerCliCodeTools } = await import('./tools-list-command.ts');
    const { loadErrors } = await registerCliCodeTools(codeToolRegistry, workingDirectory ?? io.cwd, io.env);
    for (const error of loadErrors)
      io.stderr(`toolport: code tool not loaded: ${error.file}: ${error.reason}
`);
  }

  const fileServices = confinementFromFlags(values, workingDirectory, io);
  const progress = startProgressLine(io, `toolport: ${toolName} running (Ctrl-C stops it)`);
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
      onProgress: (update) => progress.report(update),
      // Ctrl-C: a tool that stops on its signal reports what it did (a shell: partial output, termination aborted).
      abortGraceMs: ABORT_GRACE_MS,
    },
    workspace === undefined
      ? { ...environment, services: { ...environment.services, ...fileServices } }
      : {
          ...environment,
          registry: workspace.lookup,
          services: { ...environment.services, ...fileServices },
        },
  ).finally(() => {
    progress.stop();
    return workspace?.close();
  });
  const interrupted = signal?.aborted === true;
  // A workspace script's console output: on stderr, so stdout stays the result's JSON.
  if (outcome.logs !== undefined)
    io.stderr(`logs:\n${outcome.logs}${outcome.logs.endsWith('\n') ? '' : '\n'}`);
  if (outcome.ok) {
    io.stdout(`${JSON.stringify(outcome.result, null, 2) ?? 'null'}\n`);
    return interrupted ? INTERRUPTED_EXIT_CODE : 0;
  }
  io.stdout(`${JSON.stringify({ error: { code: outcome.error.code, message: outcome.error.message } })}\n`);
  return interrupted ? INTERRUPTED_EXIT_CODE : 1;
}
