import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/**
 * The first executable named `name` on `searchPath`, as an absolute path, or undefined. Our own lookup (no `which`
 * process) so registration costs no spawn; on Windows every PATHEXT extension is tried, as cmd.exe does.
 */
export function findExecutableOnPath(
  name: string,
  searchPath: string | undefined = process.env.PATH,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  if (searchPath === undefined || searchPath === '') return undefined;
  const extensions =
    platform === 'win32'
      ? ['', ...(process.env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter((entry) => entry !== '')]
      : [''];
  for (const directory of searchPath.split(platform === 'win32' ? ';' : delimiter)) {
    // An empty or relative PATH entry means "the current directory": never trust it for an interpreter.
    if (directory === '' || !isAbsolute(directory)) continue;
    for (const extension of extensions) {
      const candidate = join(directory, name + extension);
      try {
        if (!statSync(candidate).isFile()) continue;
        if (platform !== 'win32') accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // Not there or not executable: keep looking.
      }
    }
  }
  return undefined;
}
