import { parseArgs } from 'node:util';
import { isToolportError } from '../core/errors.ts';
import { migrateDatabase, openDatabase } from '../persistence/database.ts';
import { createRepositories } from '../persistence/repositories.ts';
import { ApiTokenService } from '../services/api-token-service.ts';
import type { CliIo } from './cli-io.ts';
import { resolveDataDirectory, resolveDatabaseUrl } from './server-config.ts';
import { UsageError } from './usage-error.ts';
import { commandSynopsis, parseOptionsOf, USER_CREATE_SPEC } from './command-specs.ts';

/**
 * `toolport user create <name> [--admin] [--data-dir DIR] [--database-url URL]` — prints the new user's token on
 * stdout (the only time it is shown; only its hash is stored). Exit 1 when the name is taken.
 */
export async function runUserCreateCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: parseOptionsOf(USER_CREATE_SPEC),
  });
  if (positionals.length !== 1 || positionals[0]!.trim() === '') {
    throw new UsageError(`usage: ${commandSynopsis(USER_CREATE_SPEC)}`);
  }
  const name = positionals[0]!.trim();
  const dataDirectory = resolveDataDirectory(values['data-dir'], io.env, io.cwd);
  const database = openDatabase(resolveDatabaseUrl(values['database-url'], io.env, dataDirectory), {
    baseDirectory: io.cwd,
    maxConnections: 1,
  });
  try {
    await migrateDatabase(database);
    const repositories = createRepositories(database);
    const tokens = new ApiTokenService(repositories.users, repositories.apiTokens);
    const { token } = await tokens.createUser(name, { isAdmin: values.admin === true, label: 'user create' });
    io.stdout(`${token}\n`);
    io.stderr(
      `Created user ${JSON.stringify(name)}${values.admin === true ? ' (admin)' : ''}. The token above is shown once.\n`,
    );
    return 0;
  } catch (error) {
    if (isToolportError(error) && error.code === 'conflict') {
      io.stderr(`toolport: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await database.close();
  }
}
