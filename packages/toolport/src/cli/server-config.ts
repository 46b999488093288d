import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** `--data-dir` > `TOOLPORT_DATA_DIR` > `$XDG_DATA_HOME/toolport` > `~/.local/share/toolport`. */
export function resolveDataDirectory(flag: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string {
  if (flag !== undefined && flag !== '') return resolve(cwd, flag);
  if (env.TOOLPORT_DATA_DIR !== undefined && env.TOOLPORT_DATA_DIR !== '')
    return resolve(cwd, env.TOOLPORT_DATA_DIR);
  const xdg =
    env.XDG_DATA_HOME !== undefined && env.XDG_DATA_HOME !== ''
      ? env.XDG_DATA_HOME
      : join(homedir(), '.local', 'share');
  return join(resolve(cwd, xdg), 'toolport');
}

/** `--database-url` > `TOOLPORT_DATABASE_URL` > `sqlite:<data dir>/toolport.db`. */
export function resolveDatabaseUrl(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  dataDirectory: string,
): string {
  if (flag !== undefined && flag !== '') return flag;
  if (env.TOOLPORT_DATABASE_URL !== undefined && env.TOOLPORT_DATABASE_URL !== '')
    return env.TOOLPORT_DATABASE_URL;
  return `sqlite:${join(dataDirectory, 'toolport.db')}`;
}

/**
 * A CLI session builds its tool list once, so it waits for each MCP server's whole connect attempt (bounded by the
 * server's `connectTimeoutSeconds`, at most 300 s) instead of the server's short listing budget.
 */
export const CLI_MCP_OPTIONS = { listingWaitMs: 310_000 } as const;
