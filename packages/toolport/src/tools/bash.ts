import type { RegisteredTool } from '../core/tool-types.ts';
import { buildShellTool, describeShellTool, type ShellToolSpec } from './shell/build-shell-tool.ts';
import { findExecutableOnPath } from './shell/find-executable-on-path.ts';

/** The text the model reads. */
export const BASH_DESCRIPTION = describeShellTool('bash -c');

/** The FS-6 `bash` interpreter and its invocation, or undefined when no bash is on PATH. */
export function findBashSpec(searchPath: string | undefined = process.env.PATH): ShellToolSpec | undefined {
  const interpreter = findExecutableOnPath('bash', searchPath);
  if (interpreter === undefined) return undefined;
  return {
    name: 'bash',
    title: 'Bash',
    description: BASH_DESCRIPTION,
    interpreter,
    argsFor: (command) => ['-c', command],
  };
}

/** FS-6 `bash`, or undefined when no bash is on PATH (an unavailable shell is never offered to a model). */
export function createBashTool(
  searchPath: string | undefined = process.env.PATH,
): RegisteredTool | undefined {
  const spec = findBashSpec(searchPath);
  return spec === undefined ? undefined : buildShellTool(spec);
}
