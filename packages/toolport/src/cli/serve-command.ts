import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { isToolportError, ToolportError } from '../core/errors.ts';
import type { ToolRegistry } from '../core/tool-registry.ts';
import type { ToolportLogger } from '../core/tool-types.ts';
import { buildServer, TOOLPORT_VERSION, type ToolportServerPlugin } from '../http/build-server.ts';
import { createMcpEndpointPlugin, mcpAllowedHosts } from '../http/plugins/mcp-endpoint.ts';
import { parseCodeToolRoots } from '../custom-tools/code-tool-folders.ts';
import { createWebUiPlugin } from '../http/plugins/web-ui.ts';
import { parseOutboundAllowlist } from '../net/parse-outbound-allowlist.ts';
import { createSafeFetch } from '../net/safe-fetch.ts';
import { migrateDatabase, openDatabase } from '../persistence/database.ts';
import { loadOperatorPolicy } from '../policy/load-operator-policy.ts';
import { loadSecretKey } from '../secrets/secret-key.ts';
import type { UserToolSource } from '../services/tool-catalog.ts';
import { recoverShellCalls } from '../tools/shell/shell-call-records.ts';
import { describeShellSandboxStatus, detectShellSandbox } from '../tools/shell/shell-sandbox.ts';
import { createToolportServices, type ToolportServices } from '../services/toolport-services.ts';
import type { CliIo } from './cli-io.ts';
import { resolveDataDirectory, resolveDatabaseUrl } from './server-config.ts';
import { UsageError } from './usage-error.ts';
import { parseOptionsOf, SERVE_SPEC } from './command-specs.ts';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 7420;
export const ADMIN_TOKEN_FILE_NAME = 'admin-token';
/** One small record per running shell call (FS-6): what a restart after a crash must kill. */
export const SHELL_CALLS_DIRECTORY_NAME = 'shell-calls';

export interface ServeCommandOptions {
  registry: ToolRegistry;
  /** Mounted on the server: the web UI, `/mcp`, chat turns (later issues). */
  plugins?: readonly ToolportServerPlugin[];
  toolSources?: readonly UserToolSource[];
  /** Called once the server listens (tests read the address from here). */
  onListening?: (info: { url: string; services: ToolportServices }) => void;
}

/**
 * `toolport serve [--host H] [--port P] [--data-dir DIR] [--database-url URL] [--log-level L] [--policy FILE]
 * [--code-tool-roots DIR:DIR]` (CLI-1; the operator policy: docs/operator-policy.md). Runs until
 * `signal` aborts (Ctrl-C) or SIGTERM, then shuts down gracefully: stops accepting, aborts running tools, lets
 * in-flight requests finish, closes the database. JSON logs go to stdout; the login banner goes to stderr.
 */
export async function runServeCommand(
  argv: string[],
  io: CliIo,
  signal: AbortSignal,
  options: ServeCommandOptions,
): Promise<number> {
  try {
    return await serve(argv, io, signal, options);
  } catch (error) {
    // Expected start-up failures (bad URL, unreachable database, port in use) get one line, not a stack trace.
    const code = (error as NodeJS.ErrnoException).code;
    if (isToolportError(error) || code === 'EADDRINUSE' || code === 'EACCES' || code === 'ECONNREFUSED') {
      io.stderr(`toolport serve: ${(error as Error).message}\n`);
      return 1;
    }
    throw error;
  }
}

async function serve(
  argv: string[],
  io: CliIo,
  signal: AbortSignal,
  options: ServeCommandOptions,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: parseOptionsOf(SERVE_SPEC),
  });
  if (positionals.length > 0)
    throw new UsageError(`toolport serve takes no arguments, received ${positionals.join(' ')}`);
  const host = values.host ?? io.env.TOOLPORT_HOST ?? DEFAULT_HOST;
  const portText = values.port ?? io.env.TOOLPORT_PORT ?? String(DEFAULT_PORT);
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535)
    throw new UsageError(`--port must be 0-65535, received ${portText}`);
  const logLevel = values['log-level'] ?? io.env.TOOLPORT_LOG_LEVEL ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new UsageError(`--log-level must be one of fatal, error, warn, info, debug, trace, silent`);
  }

  // Before anything is written: a busy port must not leave a fresh data dir, key and database behind.
  await assertPortAvailable(host, port);
  // CODE-1: only the directories the operator lists; `:`-separated like PATH (the policy adds its codeToolRoots).
  const codeToolRoots = parseCodeToolRoots(
    values['code-tool-roots'] ?? io.env.TOOLPORT_CODE_TOOL_ROOTS,
    io.cwd,
  );
  const dataDirectory = resolveDataDirectory(values['data-dir'], io.env, io.cwd);
  const databaseUrl = resolveDatabaseUrl(values['database-url'], io.env, dataDirectory);
  // AUTH-2: an invalid policy stops the start, before anything is created or opened.
  const { policy, source: policySource } = loadOperatorPolicy({
    file: values.policy,
    dataDirectory,
    databaseFile: sqliteFileOf(databaseUrl)[0],
    env: io.env,
    cwd: io.cwd,
  });
  const outboundAllowlist = parseOutboundAllowlist(policy.outboundAllow);
  // NET-1: the one client for requests tools make on a model's behalf (web_page_summary, youtube_summary …).
  const outbound = createSafeFetch({ allowlist: outboundAllowlist });
  mkdirSync(dataDirectory, { recursive: true, mode: 0o700 });
  const database = openDatabase(databaseUrl, { baseDirectory: io.cwd });
  // Whatever shell calls a crashed predecessor left running die before this server takes any call.
  const shellCallsDirectory = join(dataDirectory, SHELL_CALLS_DIRECTORY_NAME);
  const [shellSandbox] = await Promise.all([detectShellSandbox(), recoverShellCalls(shellCallsDirectory)]);

  const app = await (async () => {
    try {
      await migrateDatabase(database);
      // Until Fastify's logger exists, start-up problems are reported through this small JSON logger; then the
      // services log through Fastify's (same level, same stream).
      let current: ToolportLogger = jsonLineLogger(io);
      const bootLogger: ToolportLogger = {
        debug: (object, message) => current.debug(object, message),
        info: (object, message) => current.info(object, message),
        warn: (object, message) => current.warn(object, message),
        error: (object, message) => current.error(object, message),
      };
      const secretKey = loadSecretKey({
        environmentValue: io.env.TOOLPORT_SECRET_KEY,
        dataDirectory,
        logger: bootLogger,
      });
      const services = createToolportServices({
        database,
        registry: options.registry,
        secretKey: secretKey.key,
        toolSources: options.toolSources,
        codeToolRoots,
        logger: bootLogger,
        http: outbound.client,
        // The database, secret key and admin token live here: no model-driven filesystem tool may reach them (the
        // policy's deniedPaths hold them too, whatever its file says).
        protectedPaths: [dataDirectory, ...sqliteFileOf(databaseUrl)],
        policy,
        // FS-6: the sandbox's limits and extra writable paths are the operator policy's `shell` key.
        shellSandbox: {
          stateDirectory: shellCallsDirectory,
          writablePaths: policy.shell.writablePaths,
          pidsMax: policy.shell.maxProcesses,
          memoryMaxBytes: policy.shell.maxMemoryMb * 1024 * 1024,
        },
        // IMG-1: generated images live in the database (the services' default), so every instance serves them.
        ...(providerKeysFromEnvironment(io.env) ? { providerKeyEnvironment: io.env } : {}),
        // MCP-1 OAuth: behind a proxy, the origin browsers reach this server at (callbacks, client metadata).
        ...(nonEmpty(io.env.TOOLPORT_PUBLIC_URL) === undefined
          ? {}
          : { mcp: { publicUrl: nonEmpty(io.env.TOOLPORT_PUBLIC_URL)! } }),
      });
      // `/mcp` answers only to the names this server is reached by (DNS-rebinding protection).
      const mcpEndpoint = createMcpEndpointPlugin({
        allowedHosts: mcpAllowedHosts(host, (io.env.TOOLPORT_MCP_ALLOWED_HOSTS ?? '').split(',')),
      });
      const server = await buildServer({
        services,
        logger: { level: logLevel, stream: { write: (line: string) => io.stdout(line) } },
        plugins: [...(options.plugins ?? []), mcpEndpoint, createWebUiPlugin()],
      }).catch(async (error: unknown) => {
        await services.mcp.close();
        await services.workspaceTools.close();
        throw error;
      });
      current = server.log;
      return { server, services };
    } catch (error) {
      await database.close();
      throw error;
    }
  })();

  const { server, services } = app;
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  if (signal.aborted) stop();
  signal.addEventListener('abort', stop, { once: true });
  process.once('SIGTERM', stop);

  try {
    const admin = await bootstrapAdmin(services, dataDirectory);
    await server.listen({ host, port }).catch((error: unknown) => {
      // Taken between the check and now (another process started meanwhile).
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw portInUse(host, port);
      throw error;
    });
    const address = server.server.address();
    const boundPort = typeof address === 'object' && address !== null ? address.port : port;
    const url = `http://${displayHost(host)}:${boundPort}`;
    io.stderr(`toolport ${TOOLPORT_VERSION} listening on ${url} (database ${database.description})\n`);
    io.stderr(
      `Operator policy: ${policySource ?? 'defaults (no policy.json)'}; GET /api/policy shows it to admins.\n`,
    );
    io.stderr(`${describeShellSandboxStatus(shellSandbox)}\n`);
    if (admin.token !== undefined) {
      io.stderr(`Log in: ${url}/#token=${admin.token}\n`);
      io.stderr(`API:    curl -H 'Authorization: Bearer ${admin.token}' ${url}/api/settings/tools\n`);
      if (admin.created) io.stderr(`Admin token written to ${admin.path} (mode 0600).\n`);
    }
    options.onListening?.({ url, services });
  } catch (error) {
    process.off('SIGTERM', stop);
    await server.close();
    await services.mcp.close();
    await services.workspaceTools.close();
    await database.close();
    throw error;
  }

  await stopped;
  process.off('SIGTERM', stop);
  signal.removeEventListener('abort', stop);
  server.log.info('shutting down: finishing in-flight requests, aborting tools');
  await server.close();
  // Every user's MCP connection and stdio child ends with the server, and so do HTTP tools' idle connections.
  await services.mcp.close();
  await services.providers.close();
  await services.httpTools.close();
  await services.workspaceTools.close();
  await services.flush();
  await outbound.close();
  await database.close();
  io.stderr('toolport stopped.\n');
  return 0;
}

function portInUse(host: string, port: number): ToolportError {
  return new ToolportError(
    'conflict',
    `port ${port} on ${host} is already in use (another toolport serve?): stop that server, or pick another port ` +
      'with --port N (or TOOLPORT_PORT).',
  );
}

/** Binds and releases the address, so `serve` fails on a busy port before it creates any state. */
async function assertPortAvailable(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? portInUse(host, port) : error),
    );
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/**
 * AUTH-1: with no users yet, create `admin` and keep its token in `<data dir>/admin-token` (0600), like a notebook
 * server's login URL. Several instances starting at once create one admin between them.
 */
async function bootstrapAdmin(
  services: ToolportServices,
  dataDirectory: string,
): Promise<{ token: string | undefined; created: boolean; path: string }> {
  const path = join(dataDirectory, ADMIN_TOKEN_FILE_NAME);
  if ((await services.repositories.users.count()) === 0) {
    const created = await services.tokens.createUserIfAbsent('admin', {
      isAdmin: true,
      label: 'first start',
    });
    if (created !== undefined) {
      writeFileSync(path, `${created.token}\n`, { mode: 0o600 });
      return { token: created.token, created: true, path };
    }
  }
  try {
    const token = readFileSync(path, 'utf8').trim();
    return { token: token === '' ? undefined : token, created: false, path };
  } catch {
    return { token: undefined, created: false, path };
  }
}

/** Opt-in (`TOOLPORT_PROVIDER_KEYS_FROM_ENV=true`): provider configs without a key secret use OPENAI_API_KEY etc. */
function providerKeysFromEnvironment(env: NodeJS.ProcessEnv): boolean {
  return ['1', 'true', 'yes'].includes((env.TOOLPORT_PROVIDER_KEYS_FROM_ENV ?? '').toLowerCase());
}

function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

function jsonLineLogger(io: CliIo): ToolportLogger {
  const write = (level: number) => (object: Record<string, unknown>, message?: string) =>
    io.stdout(`${JSON.stringify({ level, time: Date.now(), ...object, msg: message })}\n`);
  const ignore = (): void => {};
  return { debug: ignore, info: write(30), warn: write(40), error: write(50) };
}

/** The SQLite file a `sqlite:` database URL names (it may live outside the data directory). */
function sqliteFileOf(databaseUrl: string): string[] {
  return databaseUrl.startsWith('sqlite:') ? [resolve(databaseUrl.slice('sqlite:'.length))] : [];
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
