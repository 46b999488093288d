import type { RegisteredTool } from '../core/tool-types.ts';
import { buildShellTool, describeShellTool, type ShellToolSpec } from './shell/build-shell-tool.ts';
import { findExecutableOnPath } from './shell/find-executable-on-path.ts';

/** The text the model reads. */
export const ZSH_DESCRIPTION = describeShellTool('zsh -c');

/** The FS-6 `zsh` interpreter and its invocation, or undefined when no zsh is on PATH. */
export function findZshSpec(searchPath: string | undefined = process.env.PATH): ShellToolSpec | undefined {
  const interpreter = findExecutableOnPath('zsh', searchPath);
  if (interpreter === undefined) return undefined;
  return {
    name: 'zsh',
    title: 'Zsh',
    description: ZSH_DESCRIPTION,
    interpreter,
    argsFor: (command) => ['-c', command],
  };
}

/** FS-6 `zsh`, or undefined when no zsh is on PATH (an unavailable shell is never offered to a model). */
export function createZshTool(searchPath: string | undefined = process.env.PATH): RegisteredTool | undefined {
  const spec = findZshSpec(searchPath);
  return spec === undefined ? undefined : buildShellTool(spec);
}
