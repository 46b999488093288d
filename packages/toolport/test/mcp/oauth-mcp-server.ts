import { randomBytes } from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type {
  AuthorizationParams,
  OAuthServerProvider,
} from '@modelcontextprotocol/sdk/server/auth/provider.js';
import {
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/*
 * A remote MCP server protected by OAuth, on loopback, built from the official MCP SDK's server auth helpers: its own
 * authorization server (`mcpAuthRouter`: RFC 8414 metadata, RFC 9728 protected-resource metadata, RFC 7591
 * registration, authorize with PKCE S256, token, refresh) and the MCP endpoint behind `requireBearerAuth`. The
 * authorization page approves at once as `account` (the person logged in at the authorization server), so a test
 * follows the URL without a browser. One tool, `whoami`, answers with the account the token was issued to.
 */

export const OAUTH_SCOPE = 'notes:read';
/** What `write_note` needs on top: calling it with a read-only token is a step-up (403 insufficient_scope). */
export const OAUTH_WRITE_SCOPE = 'notes:write';

interface IssuedCode {
  clientId: string;
  params: AuthorizationParams;
  account: string;
}

interface IssuedToken {
  clientId: string;
  scopes: string[];
  account: string;
  expiresAt: number;
  resource?: URL;
}

export interface OAuthMcpServer {
  url: string;
  /** The authorization server's own origin (the same process: AS = RS). */
  origin: string;
  /** Who "logs in" at the authorization page for the next authorization. */
  account: string;
  /** Access tokens expire after this many seconds (refresh tokens never do). */
  accessTokenSeconds: number;
  readonly registrations: OAuthClientInformationFull[];
  readonly authorizations: AuthorizationParams[];
  readonly tokenRequests: Array<{ grant: 'authorization_code' | 'refresh_token'; clientId: string }>;
  /** Access tokens the MCP endpoint accepted, in order. */
  readonly acceptedTokens: string[];
  /** Refresh tokens issued, in order (each is rotated on use). */
  readonly refreshTokens: string[];
  /** Ends every token issued so far: the next request gets 401, and refreshing fails. */
  revokeAll(): void;
  /** Expires every access token issued so far (refresh tokens stay good): the next request needs a refresh. */
  expireAccessTokens(): void;
  /** A client registered out of band (the "pre-registered client id/secret" of a server config). */
  preRegister(clientId: string, clientSecret: string, redirectUris: string[]): void;
  close(): Promise<void>;
}

export async function startOAuthMcpServer(): Promise<OAuthMcpServer> {
  const clients = new Map<string, OAuthClientInformationFull>();
  const codes = new Map<string, IssuedCode>();
  const accessTokens = new Map<string, IssuedToken>();
  const refreshTokens = new Map<string, Omit<IssuedToken, 'expiresAt'>>();
  const app = express();
  const httpServer: HttpServer = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const origin = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  const mcpUrl = new URL('/mcp', origin);

  const state: OAuthMcpServer = {
    url: mcpUrl.href,
    origin,
    account: 'nobody',
    accessTokenSeconds: 3600,
    registrations: [],
    authorizations: [],
    tokenRequests: [],
    acceptedTokens: [],
    refreshTokens: [],
    revokeAll: () => {
      accessTokens.clear();
      refreshTokens.clear();
    },
    expireAccessTokens: () => accessTokens.clear(),
    preRegister: (clientId, clientSecret, redirectUris) => {
      clients.set(clientId, {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: redirectUris,
        token_endpoint_auth_method: 'client_secret_basic',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      } as OAuthClientInformationFull);
    },
    close: async () => {
      httpServer.closeAllConnections();
      await new Promise((resolve) => httpServer.close(resolve));
    },
  };

  const issue = (grant: Omit<IssuedToken, 'expiresAt'>): OAuthTokens => {
    const accessToken = `at-${randomBytes(18).toString('base64url')}`;
    const refreshToken = `rt-${randomBytes(18).toString('base64url')}`;
    accessTokens.set(accessToken, {
      ...grant,
      expiresAt: Math.floor(Date.now() / 1000) + state.accessTokenSeconds,
    });
    refreshTokens.set(refreshToken, grant);
    state.refreshTokens.push(refreshToken);
    return {
      access_token: accessToken,
      token_type: 'bearer',
      expires_in: state.accessTokenSeconds,
      refresh_token: refreshToken,
      scope: grant.scopes.join(' '),
    };
  };

  const clientsStore: OAuthRegisteredClientsStore = {
    getClient: (clientId) => clients.get(clientId),
    registerClient: (client) => {
      const registered = {
        ...client,
        client_id: `client-${randomBytes(6).toString('hex')}`,
      } as OAuthClientInformationFull;
      clients.set(registered.client_id, registered);
      state.registrations.push(registered);
      return registered;
    },
  };

  const provider: OAuthServerProvider = {
    get clientsStore() {
      return clientsStore;
    },
    async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response) {
      state.authorizations.push(params);
      const code = `code-${randomBytes(12).toString('base64url')}`;
      codes.set(code, { clientId: client.client_id, params, account: state.account });
      const target = new URL(params.redirectUri);
      target.searchParams.set('code', code);
      if (params.state !== undefined) target.searchParams.set('state', params.state);
      res.redirect(302, target.href);
    },
    async challengeForAuthorizationCode(_client, authorizationCode) {
      const issued = codes.get(authorizationCode);
      if (issued === undefined) throw new InvalidGrantError('unknown authorization code');
      return issued.params.codeChallenge;
    },
    async exchangeAuthorizationCode(client, authorizationCode, _verifier, redirectUri, resource) {
      const issued = codes.get(authorizationCode);
      codes.delete(authorizationCode);
      if (issued === undefined || issued.clientId !== client.client_id)
        throw new InvalidGrantError('unknown authorization code');
      if (redirectUri !== undefined && redirectUri !== issued.params.redirectUri)
        throw new InvalidGrantError('redirect_uri differs from the authorization request');
      state.tokenRequests.push({ grant: 'authorization_code', clientId: client.client_id });
      return issue({
        clientId: client.client_id,
        scopes: issued.params.scopes ?? [],
        account: issued.account,
        ...(resource === undefined ? {} : { resource }),
      });
    },
    async exchangeRefreshToken(client, refreshToken) {
      const grant = refreshTokens.get(refreshToken);
      if (grant === undefined || grant.clientId !== client.client_id)
        throw new InvalidGrantError('unknown refresh token');
      refreshTokens.delete(refreshToken);
      state.tokenRequests.push({ grant: 'refresh_token', clientId: client.client_id });
      return issue(grant);
    },
    async verifyAccessToken(token): Promise<AuthInfo> {
      const issued = accessTokens.get(token);
      if (issued === undefined) throw new InvalidTokenError('unknown or revoked token');
      return {
        token,
        clientId: issued.clientId,
        scopes: issued.scopes,
        expiresAt: issued.expiresAt,
        ...(issued.resource === undefined ? {} : { resource: issued.resource }),
        extra: { account: issued.account },
      };
    },
  };

  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(origin),
      resourceServerUrl: mcpUrl,
      scopesSupported: [OAUTH_SCOPE, OAUTH_WRITE_SCOPE],
      resourceName: 'notes (test)',
    }),
  );
  const bearer = requireBearerAuth({
    verifier: provider,
    requiredScopes: [OAUTH_SCOPE],
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
  });
  const writeBearer = requireBearerAuth({
    verifier: provider,
    requiredScopes: [OAUTH_SCOPE, OAUTH_WRITE_SCOPE],
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
  });
  const callsWriteNote = (body: unknown): boolean =>
    typeof body === 'object' &&
    body !== null &&
    (body as { method?: unknown }).method === 'tools/call' &&
    (body as { params?: { name?: unknown } }).params?.name === 'write_note';
  app.post(
    '/mcp',
    express.json(),
    (request, response, next) =>
      (callsWriteNote(request.body) ? writeBearer : bearer)(request, response, next),
    async (request, response) => {
      const auth = (request as unknown as { auth: AuthInfo }).auth;
      state.acceptedTokens.push(auth.token);
      const server = new McpServer({ name: 'notes', version: '1.0.0' });
      server.registerTool('whoami', { description: 'The account this token belongs to' }, () => ({
        content: [{ type: 'text', text: `account:${String(auth.extra?.account)}` }],
      }));
      server.registerTool('write_note', { description: `Needs ${OAUTH_WRITE_SCOPE}` }, () => ({
        content: [{ type: 'text', text: `written with ${auth.scopes.join(' ')}` }],
      }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      response.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(request, response, request.body);
    },
  );
  app.all('/mcp', (_request, response) => {
    response.status(405).set('allow', 'POST').end();
  });
  return state;
}
