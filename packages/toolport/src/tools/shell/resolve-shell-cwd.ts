import { realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { ToolArgumentError } from '../../core/errors.ts';
import type { ToolMode } from '../../core/tool-types.ts';

export interface ShellCwdContext {
  mode: ToolMode;
  /** The chat's bound working directory; used only in agent mode (PATH-1). */
  workingDirectory: string | undefined;
}

const EXPECTED_CWD = 'an existing directory: absolute, starting with ~, or relative to the working directory';

/**
 * FS-6 `cwd`: absolute, `~`, or relative to the chat working directory in agent mode; omitted means the working
 * directory in agent mode and the server process's cwd in chat mode (PATH-1). Must be an existing directory.
 * Kept apart so it can later delegate to the shared path resolver (PATH-2) without touching the shell tool.
 */
export async function resolveShellCwd(
  cwd: string | undefined,
  context: ShellCwdContext,
  processCwd: string = process.cwd(),
): Promise<string> {
  const base =
    context.mode === 'agent' && context.workingDirectory !== undefined
      ? context.workingDirectory
      : processCwd;
  let target: string;
  if (cwd === undefined || cwd === '') target = base;
  else if (cwd === '~' || cwd.startsWith('~/')) target = join(homedir(), cwd.slice(1));
  else if (cwd.startsWith('~'))
    throw new ToolArgumentError(
      'cwd',
      EXPECTED_CWD,
      JSON.stringify(cwd),
      `\`cwd\` ${JSON.stringify(cwd)} uses another user's home (~user), which is not supported. Use an absolute path.`,
    );
  else target = isAbsolute(cwd) ? cwd : resolve(base, cwd);

  let real: string;
  try {
    real = await realpath(target);
  } catch {
    throw new ToolArgumentError(
      'cwd',
      EXPECTED_CWD,
      JSON.stringify(cwd),
      `\`cwd\` ${JSON.stringify(cwd)} does not exist (resolved to ${target}). Pass an existing directory or omit \`cwd\`.`,
    );
  }
  if (!(await stat(real)).isDirectory()) {
    throw new ToolArgumentError(
      'cwd',
      EXPECTED_CWD,
      JSON.stringify(cwd),
      `\`cwd\` ${JSON.stringify(cwd)} is not a directory (resolved to ${real}).`,
    );
  }
  return real;
}
