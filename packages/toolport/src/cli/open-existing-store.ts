import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isToolportError } from '../core/errors.ts';
import { defaultToolRegistry } from '../core/tool-registry.ts';
import type { ToolportLogger } from '../core/tool-types.ts';
import { parseOutboundAllowlist } from '../net/parse-outbound-allowlist.ts';
import { migrateDatabase, openDatabase, type ToolportDatabase } from '../persistence/database.ts';
import { LOCAL_USER_POLICY } from '../policy/local-user-policy.ts';
import { loadSecretKey, SECRET_KEY_FILE_NAME } from '../secrets/secret-key.ts';
import { createToolportServices, type ToolportServices } from '../services/toolport-services.ts';
import { registerBuiltinTools } from '../tools/index.ts';
import type { CliIo } from './cli-io.ts';
import { CLI_MCP_OPTIONS, resolveDataDirectory, resolveDatabaseUrl } from './server-config.ts';
import { UsageError } from './usage-error.ts';

export interface ExistingStore {
  database: ToolportDatabase;
  dataDirectory: string;
  secretKey: Buffer;
}

export interface ExistingStoreFlags {
  dataDirectory: string | undefined;
  databaseUrl: string | undefined;
}

const HOW_TO_CREATE =
  'start `toolport serve` once with the same --data-dir/--database-url (it creates the database, the key and ' +
  'the admin user), or point --data-dir/--database-url at the existing one';

/**
 * The store `toolport serve` created, for the commands that read a stored user (`mcp --user`, `chat --user`): they
 * open an existing database and key only. A typo in `--data-dir` must not leave a fresh database and secret key
 * behind before saying the user does not exist, so everything is checked before anything is opened.
 */
export async function openExistingStore(
  io: CliIo,
  flags: ExistingStoreFlags,
  logger?: ToolportLogger,
): Promise<ExistingStore> {
  const dataDirectory = resolveDataDirectory(flags.dataDirectory, io.env, io.cwd);
  const databaseUrl = resolveDatabaseUrl(flags.databaseUrl, io.env, dataDirectory);
  const dataDirectoryNote = existsSync(dataDirectory)
    ? `data directory ${dataDirectory}`
    : `data directory ${dataDirectory}, which does not exist`;
  if (databaseUrl.startsWith('sqlite:') && databaseUrl !== 'sqlite::memory:') {
    const path = resolve(io.cwd, databaseUrl.slice('sqlite:'.length));
    if (!existsSync(path)) {
      throw new UsageError(`no toolport database at ${path} (${dataDirectoryNote}): ${HOW_TO_CREATE}.`);
    }
  }
  const environmentKey = io.env.TOOLPORT_SECRET_KEY;
  const keyPath = join(dataDirectory, SECRET_KEY_FILE_NAME);
  if ((environmentKey === undefined || environmentKey.trim() === '') && !existsSync(keyPath)) {
    throw new UsageError(
      `no secret key: set TOOLPORT_SECRET_KEY or keep the key file ${keyPath} (${dataDirectoryNote}): ${HOW_TO_CREATE}.`,
    );
  }
  const secretKey = loadSecretKey({
    environmentValue: environmentKey,
    dataDirectory,
    ...(logger === undefined ? {} : { logger }),
  }).key;
  const database = openDatabase(databaseUrl, { baseDirectory: io.cwd, maxConnections: 2 });
  try {
    // An existing database may predate this version's migrations, as with `serve`.
    await migrateDatabase(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  return { database, dataDirectory, secretKey };
}

export interface StoredServices {
  services: ToolportServices;
  database: ToolportDatabase;
  /** Ends every MCP connection and stdio child, waits for audit writes, closes the database. */
  close(): Promise<void>;
}

/**
 * The services over the existing store, as a CLI session of a stored user needs them (`mcp --user`, `chat --user`):
 * the built-in registry, the operator's outbound allowlist, and MCP listings that wait for the whole connect. A bad
 * store or setting is a usage error (exit 2) naming it.
 */
export async function openStoredServices(
  io: CliIo,
  flags: ExistingStoreFlags,
  logger?: ToolportLogger,
): Promise<StoredServices> {
  let store: ExistingStore;
  let outboundAllowlist: ReturnType<typeof parseOutboundAllowlist>;
  try {
    outboundAllowlist = parseOutboundAllowlist(io.env.TOOLPORT_OUTBOUND_ALLOW);
    store = await openExistingStore(io, flags, logger);
  } catch (error) {
    if (isToolportError(error)) throw new UsageError(error.message);
    throw error;
  }
  const { database } = store;
  const services = createToolportServices({
    database,
    registry: registerBuiltinTools(defaultToolRegistry),
    secretKey: store.secretKey,
    // The CLI runs as the local user, who already has the machine: non-admin limits are serve's, not its.
    policy: LOCAL_USER_POLICY,
    // WS-1: the workspace scripts' operator settings (browser path, …) come from the CLI's environment.
    workspaceEnvironment: io.env,
    ...(logger === undefined ? {} : { logger }),
    mcp: { ...CLI_MCP_OPTIONS, outboundAllowlist },
  });
  return {
    services,
    database,
    close: async () => {
      await services.mcp.close();
      await services.httpTools.close();
      await services.workspaceTools.close();
      await services.providers.close();
      await services.flush();
      await database.close();
    },
  };
}
