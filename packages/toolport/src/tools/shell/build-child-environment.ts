/** What every shell child receives from the server's environment (FS-6), before the allowlist setting. */
export const BASE_CHILD_ENVIRONMENT_NAMES = ['PATH', 'HOME', 'LANG', 'TERM'] as const;

/** Windows programs (PowerShell among them) fail to start without these; none of them carries a secret. */
const WINDOWS_CHILD_ENVIRONMENT_NAMES = [
  'SystemRoot',
  'SystemDrive',
  'windir',
  'ComSpec',
  'PATHEXT',
  'TEMP',
  'TMP',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
  'ProgramFiles',
  'PSModulePath',
];

const FALLBACK_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * The child's whole environment: PATH, HOME, LANG, TERM and the allowlisted names, copied from `source` when set
 * there — nothing else, so the server's secrets (API keys, database URLs) never reach a model-written command.
 */
export function buildChildEnvironment(
  source: NodeJS.ProcessEnv,
  allowlist: readonly string[],
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  const names: string[] = [...BASE_CHILD_ENVIRONMENT_NAMES, ...allowlist];
  if (platform === 'win32') names.push(...WINDOWS_CHILD_ENVIRONMENT_NAMES);
  // Windows variable names are case-insensitive (Path vs PATH); elsewhere they are exact.
  const lookup =
    platform === 'win32'
      ? new Map(Object.entries(source).map(([name, value]) => [name.toUpperCase(), value]))
      : new Map(Object.entries(source));
  const environment: Record<string, string> = {};
  for (const name of names) {
    const value = lookup.get(platform === 'win32' ? name.toUpperCase() : name);
    if (value !== undefined) environment[name] = value;
  }
  environment.PATH ??= platform === 'win32' ? '' : FALLBACK_PATH;
  return environment;
}
