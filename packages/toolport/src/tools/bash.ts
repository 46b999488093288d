import type { RegisteredTool } from '../core/tool-types.ts';
import { buildShellTool, describeShellTool } from './shell/build-shell-tool.ts';
import { findExecutableOnPath } from './shell/find-executable-on-path.ts';

/** The text the model reads. */
export const BASH_DESCRIPTION = describeShellTool('bash -c');

/** FS-6 `bash`, or undefined when no bash is on PATH (an unavailable shell is never offered to a model). */
export function createBashTool(
  searchPath: string | undefined = process.env.PATH,
): RegisteredTool | undefined {
  const interpreter = findExecutableOnPath('bash', searchPath);
  if (interpreter === undefined) return undefined;
  return buildShellTool({
    name: 'bash',
    title: 'Bash',
    description: BASH_DESCRIPTION,
    interpreter,
    argsFor: (command) => ['-c', command],
  });
}
