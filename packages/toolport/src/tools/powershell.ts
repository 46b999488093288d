import type { RegisteredTool } from '../core/tool-types.ts';
import { buildShellTool, describeShellTool, type ShellToolSpec } from './shell/build-shell-tool.ts';
import { findExecutableOnPath } from './shell/find-executable-on-path.ts';

/** The text the model reads. */
export const POWERSHELL_DESCRIPTION = describeShellTool(
  'powershell -NoProfile -NonInteractive -Command',
  'Select-Object -First/-Last or Select-String',
);

/**
 * The FS-6 `powershell` interpreter: Windows only (SPEC), PowerShell 7 (`pwsh`) preferred over Windows PowerShell 5;
 * undefined elsewhere or when neither is on PATH.
 */
export function findPowershellSpec(
  searchPath: string | undefined = process.env.PATH,
  platform: NodeJS.Platform = process.platform,
): ShellToolSpec | undefined {
  if (platform !== 'win32') return undefined;
  const interpreter =
    findExecutableOnPath('pwsh', searchPath, platform) ??
    findExecutableOnPath('powershell', searchPath, platform);
  if (interpreter === undefined) return undefined;
  return {
    name: 'powershell',
    title: 'PowerShell',
    description: POWERSHELL_DESCRIPTION,
    interpreter,
    argsFor: (command) => ['-NoProfile', '-NonInteractive', '-Command', command],
    // No PowerShell parser: its rules match the whole line (a chaining line is at least ask).
    permissionSubject: 'powershell',
  };
}

/** FS-6 `powershell`, or undefined off Windows or without PowerShell on PATH. */
export function createPowershellTool(
  searchPath: string | undefined = process.env.PATH,
  platform: NodeJS.Platform = process.platform,
): RegisteredTool | undefined {
  const spec = findPowershellSpec(searchPath, platform);
  return spec === undefined ? undefined : buildShellTool(spec);
}
