import type { RegisteredTool } from '../core/tool-types.ts';
import { buildShellTool, describeShellTool } from './shell/build-shell-tool.ts';
import { findExecutableOnPath } from './shell/find-executable-on-path.ts';

/** The text the model reads. */
export const POWERSHELL_DESCRIPTION = describeShellTool('powershell -NoProfile -NonInteractive -Command');

/**
 * FS-6 `powershell`: Windows only (SPEC), PowerShell 7 (`pwsh`) preferred over Windows PowerShell 5; undefined
 * elsewhere or when neither is on PATH.
 */
export function createPowershellTool(
  searchPath: string | undefined = process.env.PATH,
  platform: NodeJS.Platform = process.platform,
): RegisteredTool | undefined {
  if (platform !== 'win32') return undefined;
  const interpreter =
    findExecutableOnPath('pwsh', searchPath, platform) ??
    findExecutableOnPath('powershell', searchPath, platform);
  if (interpreter === undefined) return undefined;
  return buildShellTool({
    name: 'powershell',
    title: 'PowerShell',
    description: POWERSHELL_DESCRIPTION,
    interpreter,
    argsFor: (command) => ['-NoProfile', '-NonInteractive', '-Command', command],
  });
}
