import { stat } from 'node:fs/promises';
import { ToolArgumentError } from '../../core/errors.ts';
import type { ToolMode } from '../../core/tool-types.ts';
import { createPathPolicy } from '../../fs/resolve-and-validate-path.ts';

export interface ShellCwdContext {
  mode: ToolMode;
  /** The chat's bound working directory; used only in agent mode (PATH-1). */
  workingDirectory: string | undefined;
}

const EXPECTED_CWD = 'an existing directory: absolute, starting with ~, or relative to the working directory';

/**
 * FS-6 `cwd`: absolute, `~`, or relative to the chat working directory in agent mode; omitted means the working
 * directory in agent mode and the server process's cwd in chat mode (PATH-1). Must be an existing directory.
 * Resolution (`~`, relative bases, symlinks to the real path) is the shared path policy's (PATH-2).
 */
export async function resolveShellCwd(
  cwd: string | undefined,
  context: ShellCwdContext,
  processCwd: string = process.cwd(),
): Promise<string> {
  const policy = await createPathPolicy({
    mode: context.mode,
    workingDirectory: context.workingDirectory,
    processDirectory: processCwd,
  });
  if (cwd === undefined || cwd === '') return policy.baseDirectory;
  const resolved = await policy.resolve(cwd, 'cwd');
  const fail = (problem: string): never => {
    throw new ToolArgumentError(
      'cwd',
      EXPECTED_CWD,
      JSON.stringify(cwd),
      `\`cwd\` ${JSON.stringify(cwd)} ${problem} (resolved to ${resolved.realPath}). Pass an existing directory or omit \`cwd\`.`,
    );
  };
  if (!resolved.exists) return fail('does not exist');
  if (!(await stat(resolved.realPath)).isDirectory()) return fail('is not a directory');
  return resolved.realPath;
}
