import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { toolFailure } from '../core/execute-tool.ts';
import { ToolportError } from '../core/errors.ts';
import { clampIntegerSetting, getToolTimeoutMs } from '../core/settings-policy.ts';
import {
  toToolLogLevel,
  type ToolContext as RuntimeToolContext,
  type ToolProgress,
} from '../core/tool-types.ts';
import type { ToolContext, ToolRunOptions, ToolRunResult } from '../plugin/index.ts';
import {
  DEFAULT_MAX_OUTPUT_BYTES,
  MAX_OUTPUT_BYTES_DESCRIPTOR,
  SHELL_DEADLINE_MARGIN_MS,
} from '../tools/shell/build-shell-tool.ts';
import { buildChildEnvironment } from '../tools/shell/build-child-environment.ts';
import { runShellCommand } from '../tools/shell/run-shell-command.ts';

const worktreeByDirectory = new Map<string, string>();

/** The nearest directory at or above `directory` holding `.git` (a folder, or a file in a git worktree). */
export function findWorktree(directory: string): string {
  const cached = worktreeByDirectory.get(directory);
  if (cached !== undefined) return cached;
  let current = directory;
  let found = directory;
  for (;;) {
    if (existsSync(join(current, '.git'))) {
      found = current;
      break;
    }
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  worktreeByDirectory.set(directory, found);
  return found;
}

/**
 * `context.run`: a program (no shell) through the shell tools' one runner — detached process group killed on exit,
 * timeout and abort, capped output, minimal environment — under the call's signal and within its time budget.
 */
async function runProgram(
  context: RuntimeToolContext,
  directory: string,
  command: string,
  args: readonly string[],
  options: ToolRunOptions,
): Promise<ToolRunResult> {
  if (typeof command !== 'string' || command === '') {
    throw toolFailure('context.run needs a command name or path as its first argument.');
  }
  // The runner's own timer fires before executeTool's budget, so the program's partial output is still returned.
  const budgetMs = Math.max(1, getToolTimeoutMs(context.settings) - SHELL_DEADLINE_MARGIN_MS);
  const timeoutMs = Math.max(1, Math.min(options.timeoutMs ?? budgetMs, budgetMs));
  try {
    return await runShellCommand({
      interpreter: command,
      args: [...args].map(String),
      cwd: options.cwd === undefined ? directory : resolve(directory, options.cwd),
      env: { ...buildChildEnvironment(process.env, []), ...options.env },
      timeoutMs,
      maxOutputBytes: clampIntegerSetting(options.maxOutputBytes, {
        minimum: 1,
        maximum: MAX_OUTPUT_BYTES_DESCRIPTOR.maximum,
        fallback: DEFAULT_MAX_OUTPUT_BYTES,
      }),
      signal: context.signal,
    });
  } catch (error) {
    throw toolFailure(
      `context.run could not start ${JSON.stringify(command)}: ${error instanceof Error ? error.message : String(error)}.`,
    );
  }
}

/**
 * The `context` a code tool's `execute` receives, built from executeTool's context. `directory` is the chat's
 * working directory, else `workspace` (the project the tool was loaded for).
 */
export function createCodeToolContext(context: RuntimeToolContext, workspace: string): ToolContext {
  const directory = context.workingDirectory ?? workspace;
  const fields = { tool: context.toolName, callId: context.callId };
  return {
    agent: context.agentId ?? 'default',
    sessionID: context.chatId ?? context.callId,
    messageID: context.callId,
    callID: context.callId,
    directory,
    worktree: findWorktree(directory),
    abort: context.signal,
    run: (command, args = [], options = {}) => runProgram(context, directory, command, args, options),
    log: (level, message) => {
      const text = String(message);
      const mcpLevel = toToolLogLevel(String(level));
      const write =
        mcpLevel === 'debug'
          ? context.logger.debug
          : mcpLevel === 'info' || mcpLevel === 'notice'
            ? context.logger.info
            : mcpLevel === 'warning'
              ? context.logger.warn
              : context.logger.error;
      write.call(context.logger, fields, text);
      context.log(mcpLevel, text);
    },
    progress: (done, total, message) => {
      const progress: ToolProgress = { progress: done };
      if (total !== undefined) progress.total = total;
      if (message !== undefined) progress.message = message;
      context.reportProgress(progress);
    },
    metadata: (input) => context.logger.debug({ ...fields, ...input }, 'code tool metadata'),
    ask: () =>
      Promise.reject(
        new ToolportError(
          'permission_denied',
          'context.ask is not supported: toolport has no interactive permission prompt. Enable or disable the ' +
            'tool in its settings instead.',
        ),
      ),
  };
}
