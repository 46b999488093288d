import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { isToolportError } from '../core/errors.ts';
import { oauthResultPage } from '../http/routes/mcp-oauth-routes.ts';
import type { McpOAuthCallbackOutcome } from '../services/mcp-oauth-service.ts';
import type { CliIo } from './cli-io.ts';
import { commandSynopsis, MCP_SERVERS_AUTHORIZE_SPEC, parseOptionsOf } from './command-specs.ts';
import { openStoredServices } from './open-existing-store.ts';
import { UsageError } from './usage-error.ts';

/** Where the authorization server sends the browser back on this machine (RFC 8252 loopback redirect). */
const CALLBACK_PATH = '/callback';

/**
 * `toolport mcp-servers authorize <name> [--user U] [--data-dir D]`: the OAuth authorization of a stored user's remote
 * MCP server without `serve` — the same flow and storage as `POST /api/mcp-servers/:id/authorize`, with a one-shot
 * loopback callback on 127.0.0.1 in place of the server's callback route. Prints the URL on stdout.
 */
export async function runMcpServersAuthorizeCommand(
  argv: string[],
  io: CliIo,
  signal: AbortSignal,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: parseOptionsOf(MCP_SERVERS_AUTHORIZE_SPEC),
  });
  if (positionals.length !== 1 || positionals[0]!.trim() === '') {
    throw new UsageError(`usage: ${commandSynopsis(MCP_SERVERS_AUTHORIZE_SPEC)}`);
  }
  const serverName = positionals[0]!.trim();
  const userName = values.user ?? 'admin';
  const stored = await openStoredServices(io, {
    dataDirectory: values['data-dir'],
    databaseUrl: values['database-url'],
  });
  const { services } = stored;
  const callback = createServer();
  try {
    const user = await services.repositories.users.findByName(userName);
    if (user === undefined)
      throw new UsageError(`--user ${userName}: no such user in ${stored.database.description}`);
    const server = (await services.repositories.mcpServers.list(user.id)).find(
      (candidate) => candidate.name === serverName,
    );
    if (server === undefined) {
      throw new UsageError(`${userName} has no MCP server named ${JSON.stringify(serverName)}.`);
    }
    const oauth = services.mcp.oauth;
    if (oauth === undefined) throw new UsageError('OAuth for MCP servers is not available here.');

    const returned = new Promise<McpOAuthCallbackOutcome>((resolve) => {
      callback.on('request', (request: IncomingMessage, response: ServerResponse) => {
        const url = new URL(request.url ?? '/', 'http://127.0.0.1');
        if (request.method !== 'GET' || url.pathname !== CALLBACK_PATH) {
          response.writeHead(404).end();
          return;
        }
        const query = (name: string) => url.searchParams.get(name) ?? undefined;
        void oauth
          .completeAuthorization({ state: query('state'), code: query('code'), error: query('error') })
          .then((outcome) => {
            response.writeHead(outcome.ok ? 200 : outcome.status, {
              'content-type': 'text/html; charset=utf-8',
              'cache-control': 'no-store',
            });
            response.end(
              outcome.ok
                ? oauthResultPage(
                    'Authorized',
                    `toolport is now authorized for ${outcome.serverName}. You can close this window.`,
                  )
                : oauthResultPage('Authorization failed', outcome.message),
            );
            // An unknown or reused state is someone else's request: keep waiting for ours.
            if (outcome.ok || outcome.status !== 400 || !/unknown or was already used/.test(outcome.message))
              resolve(outcome);
          });
      });
    });
    await new Promise<void>((resolve, reject) => {
      callback.once('error', reject);
      callback.listen(0, '127.0.0.1', () => resolve());
    });
    const redirectUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}${CALLBACK_PATH}`;
    const { authorizationUrl } = await oauth.startAuthorization(user, server.id, redirectUrl);
    io.stderr(
      `Open this URL in a browser to authorize ${serverName} (waiting for the redirect to ${redirectUrl}):\n`,
    );
    io.stdout(`${authorizationUrl}\n`);

    const cancelled = new Promise<'cancelled'>((resolve) => {
      if (signal.aborted) resolve('cancelled');
      signal.addEventListener('abort', () => resolve('cancelled'), { once: true });
    });
    const outcome = await Promise.race([returned, cancelled]);
    if (outcome === 'cancelled') {
      io.stderr('toolport: authorization cancelled.\n');
      return 130;
    }
    if (!outcome.ok) {
      io.stderr(`toolport: ${outcome.message}\n`);
      return 1;
    }
    io.stderr(`Authorized ${serverName} for ${userName}.\n`);
    return 0;
  } catch (error) {
    if (isToolportError(error)) {
      io.stderr(`toolport: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    callback.closeAllConnections();
    await new Promise((resolve) => callback.close(resolve));
    await stored.close();
  }
}
