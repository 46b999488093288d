import { createHash, randomBytes } from 'node:crypto';
import {
  auth,
  extractWWWAuthenticateParams,
  isHttpsUrl,
  type OAuthClientProvider,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolportError, isToolportError } from '../core/errors.ts';
import type { ToolportLogger } from '../core/tool-types.ts';
import {
  createMcpOAuthProvider,
  McpAuthorizationRequiredError,
  type McpOAuthState,
  type McpOAuthStore,
} from '../mcp/mcp-oauth-provider.ts';
import type { McpRemoteServerConfig, McpServerConfig } from '../mcp/mcp-server-config.ts';
import type { McpOAuthRepository } from '../persistence/repositories/mcp-oauth-repository.ts';
import type { McpServerRepository } from '../persistence/repositories/mcp-server-repository.ts';
import type { UserRepository } from '../persistence/repositories/user-repository.ts';
import {
  assertMcpOAuthAllowed,
  mcpOAuthPolicyRefusal,
  assertMcpServerAllowed,
} from '../policy/mcp-server-access.ts';
import type { OperatorPolicy } from '../policy/operator-policy.ts';
import type { PolicySubject } from '../policy/policy-denied.ts';
import type { SecretCipher } from '../secrets/secret-cipher.ts';
import { toMcpServerConfig } from './mcp-server-record-config.ts';

/** Where the browser comes back from an authorization server (a public route: the state says who it is for). */
export const MCP_OAUTH_CALLBACK_PATH = '/api/mcp-servers/oauth/callback';
/** SEP-991: toolport's client ID metadata document, served when the public URL is https. */
export const MCP_OAUTH_CLIENT_METADATA_PATH = '/api/mcp-servers/oauth/client-metadata.json';
/** How long an authorization URL stays usable. */
export const MCP_OAUTH_STATE_TTL_MS = 10 * 60_000;

export interface McpOAuthServiceOptions {
  repository: McpOAuthRepository;
  servers: McpServerRepository;
  users: UserRepository;
  cipher: SecretCipher;
  policy: OperatorPolicy;
  /** NET-1's fetch: discovery, registration and token requests are checked like the server's own URL. */
  fetch: FetchLike;
  /**
   * The server's public origin (`TOOLPORT_PUBLIC_URL`), for the callback URL of the pool's background registration
   * and, when https, the client ID metadata document. The routes otherwise use the origin the request came to.
   */
  publicUrl?: string;
  /** After tokens were stored or forgotten: drop the connection and the cached runtime so the change applies now. */
  onAuthorizationChanged(userId: string, serverId: string): Promise<void>;
  logger?: ToolportLogger;
}

export type McpOAuthCallbackOutcome =
  { ok: true; userId: string; serverName: string } | { ok: false; status: 400 | 403 | 502; message: string };

/** Hashes a state parameter: the table stores only this, so a database read yields no usable state. */
function hashState(state: string): string {
  return createHash('sha256').update(state, 'utf8').digest('base64url');
}

function sealName(serverId: string): string {
  return `mcp-oauth:${serverId}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function remoteConfig(config: McpServerConfig): McpRemoteServerConfig {
  if (config.transport !== 'http') {
    throw new ToolportError(
      'validation_failed',
      `The MCP server ${config.name} is a stdio server: only remote (http) servers use OAuth.`,
      { details: { field: 'transport' } },
    );
  }
  return config;
}

/** Whether a token's granted scope (space-separated; unknown when absent) includes every scope of `required`. */
function scopeCovers(granted: string | undefined, required: string): boolean {
  if (granted === undefined) return false;
  const have = new Set(granted.split(' ').filter(Boolean));
  return required
    .split(' ')
    .filter(Boolean)
    .every((scope) => have.has(scope));
}

function hasStaticAuthorization(config: McpRemoteServerConfig): boolean {
  return Object.keys(config.headers ?? {}).some((name) => name.toLowerCase() === 'authorization');
}

/**
 * MCP-1 OAuth for remote MCP servers in a multi-user server: every user's tokens and registered client per server,
 * sealed with the secret key (never returned, redacted from results), the authorization flow (PKCE S256 and resource
 * indicators by the MCP SDK's `auth`, state bound to the user and server, single use, expiring), and the provider the
 * client pool uses in turns — which refreshes tokens silently and, when only the user can help, reports the server as
 * `needs_authorization` instead of starting a flow nobody sees.
 */
export class McpOAuthService {
  readonly #options: McpOAuthServiceOptions;

  constructor(options: McpOAuthServiceOptions) {
    this.#options = options;
  }

  // ---- the sealed store ---------------------------------------------------------------------------------------

  async #load(userId: string, serverId: string): Promise<McpOAuthState> {
    const sealed = await this.#options.repository.getSealed(userId, serverId);
    if (sealed === undefined) return {};
    try {
      return JSON.parse(this.#options.cipher.decrypt(userId, sealName(serverId), sealed)) as McpOAuthState;
    } catch (error) {
      // A changed key: the stored authorization is unusable, which is what a missing one means too.
      this.#options.logger?.warn({ serverId, error: messageOf(error) }, 'unreadable MCP OAuth state');
      return {};
    }
  }

  async #save(userId: string, serverId: string, state: McpOAuthState): Promise<void> {
    const { codeVerifier: _verifier, ...kept } = state;
    const sealed = this.#options.cipher.encrypt(userId, sealName(serverId), JSON.stringify(kept));
    await this.#options.repository.putSealed(userId, serverId, sealed);
  }

  #storeFor(userId: string, serverId: string): McpOAuthStore {
    return {
      load: () => this.#load(userId, serverId),
      save: async (update) =>
        this.#save(userId, serverId, { ...(await this.#load(userId, serverId)), ...update }),
      clear: async (scope) => {
        const state = await this.#load(userId, serverId);
        const field = {
          all: undefined,
          client: 'clientInformation',
          tokens: 'tokens',
          verifier: 'codeVerifier',
          discovery: 'discoveryState',
        }[scope] as keyof McpOAuthState | undefined;
        if (field === undefined) await this.#save(userId, serverId, {});
        else {
          const { [field]: _dropped, ...rest } = state;
          await this.#save(userId, serverId, rest);
        }
      },
    };
  }

  /** The plaintext tokens and client secrets of a user's authorizations: SEC-1 redacts them from every result. */
  async literalValues(userId: string): Promise<string[]> {
    const values: string[] = [];
    for (const { serverId } of await this.#options.repository.listSealed(userId)) {
      const state = await this.#load(userId, serverId);
      for (const value of [
        state.tokens?.access_token,
        state.tokens?.refresh_token,
        (state.clientInformation as { client_secret?: string } | undefined)?.client_secret,
      ]) {
        if (typeof value === 'string' && value.length >= 4) values.push(value);
      }
    }
    return values;
  }

  // ---- client metadata ----------------------------------------------------------------------------------------

  /** The client ID metadata document's URL (SEP-991), when toolport has a public https origin to serve it from. */
  get clientMetadataUrl(): string | undefined {
    const { publicUrl } = this.#options;
    if (publicUrl === undefined) return undefined;
    const url = new URL(MCP_OAUTH_CLIENT_METADATA_PATH, publicUrl).href;
    return isHttpsUrl(url) ? url : undefined;
  }

  /** What toolport registers as (dynamic registration) or publishes (metadata document). */
  clientMetadata(redirectUrl: string, config?: McpRemoteServerConfig): OAuthClientMetadata {
    const secret = config?.oauth?.clientSecret;
    return {
      client_name: 'toolport',
      redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // A registered client without a secret is a public client: PKCE protects its code.
      token_endpoint_auth_method: secret === undefined ? 'none' : 'client_secret_basic',
      ...(config?.oauth?.scope === undefined ? {} : { scope: config.oauth.scope }),
    };
  }

  /** The callback URL on `origin` (the request's own, or the configured public URL). */
  callbackUrl(origin?: string): string {
    const base = this.#options.publicUrl ?? origin;
    if (base === undefined) return `http://localhost${MCP_OAUTH_CALLBACK_PATH}`;
    return new URL(MCP_OAUTH_CALLBACK_PATH, base).href;
  }

  /**
   * The client to present: the server config's pre-registered one, else the stored registration when it was made for
   * this redirect URL (a registration for the web callback is useless to the CLI's loopback one, and vice versa),
   * else the metadata document's URL when that is the stored id.
   */
  #clientFor(
    config: McpRemoteServerConfig,
    stored: OAuthClientInformationMixed | undefined,
    redirectUrl: string,
  ): OAuthClientInformationMixed | undefined {
    if (config.oauth?.clientId !== undefined) {
      return {
        client_id: config.oauth.clientId,
        ...(config.oauth.clientSecret === undefined ? {} : { client_secret: config.oauth.clientSecret }),
      };
    }
    if (stored === undefined) return undefined;
    const redirects = (stored as { redirect_uris?: unknown }).redirect_uris;
    if (Array.isArray(redirects) && redirects.includes(redirectUrl)) return stored;
    if (stored.client_id === this.clientMetadataUrl) return stored;
    return undefined;
  }

  // ---- the pool's provider ------------------------------------------------------------------------------------

  /**
   * For the client pool: a remote server's provider, or undefined when OAuth does not apply (a stdio server, a static
   * Authorization header, a user the policy's `mcp.oauth` refuses). Refreshes tokens silently; anything that would need
   * the user (no tokens, no client, a refused refresh, a step-up) throws `McpAuthorizationRequiredError`.
   */
  async poolProvider(userId: string, config: McpServerConfig): Promise<OAuthClientProvider | undefined> {
    if (config.transport !== 'http' || hasStaticAuthorization(config)) return undefined;
    const user = await this.#options.users.findById(userId);
    const subject: PolicySubject = { id: userId, isAdmin: user?.isAdmin === true };
    if (user === undefined || mcpOAuthPolicyRefusal(this.#options.policy, subject, config) !== undefined)
      return undefined;
    const store = this.#storeFor(userId, config.id);
    const redirectUrl = this.callbackUrl();
    const base = createMcpOAuthProvider({
      store,
      redirectUrl,
      clientMetadata: this.clientMetadata(redirectUrl, config),
      onAuthorizationUrl: async (url) => {
        // Remember what a step-up asked for, so the user's next authorization asks for it too.
        const scope = url.searchParams.get('scope');
        if (scope !== null) await store.save({ requiredScope: scope });
        throw new McpAuthorizationRequiredError(`The MCP server ${config.name} needs authorization.`);
      },
    });
    return {
      ...base,
      redirectUrl,
      clientMetadata: base.clientMetadata,
      clientInformation: async () => {
        const stored = (await store.load()).clientInformation;
        const client =
          config.oauth?.clientId !== undefined ? this.#clientFor(config, stored, redirectUrl) : stored;
        // No client yet: registering belongs to the user's authorization, not to a turn.
        if (client === undefined) {
          throw new McpAuthorizationRequiredError(`The MCP server ${config.name} needs authorization.`);
        }
        return client;
      },
      // A turn never starts a flow, so it never needs a verifier.
      saveCodeVerifier: () => {},
      // After a step-up the stored scope is not enough: no refresh (it keeps the scope), the user must authorize.
      tokens: async () => {
        const { tokens, requiredScope } = await store.load();
        if (tokens === undefined || requiredScope === undefined || scopeCovers(tokens.scope, requiredScope))
          return tokens;
        const { refresh_token: _refresh, ...withoutRefresh } = tokens;
        return withoutRefresh;
      },
    };
  }

  /** A server asked for more scope than the user's tokens have (403 `insufficient_scope`): remembered for both flows. */
  async noteRequiredScope(userId: string, serverId: string, scope: string): Promise<void> {
    const store = this.#storeFor(userId, serverId);
    const { tokens, requiredScope } = await store.load();
    if (requiredScope === scope || scopeCovers(tokens?.scope, scope)) return;
    await store.save({ requiredScope: scope });
  }

  // ---- the interactive flow -----------------------------------------------------------------------------------

  async #remoteServerOf(user: PolicySubject, serverId: string): Promise<McpRemoteServerConfig> {
    const record = await this.#options.servers.get(user.id, serverId);
    if (record === undefined) {
      throw new ToolportError('not_found', `No MCP server ${JSON.stringify(serverId)}.`, {
        details: { serverId },
      });
    }
    const config = remoteConfig(toMcpServerConfig(record));
    assertMcpServerAllowed(this.#options.policy, user, config);
    assertMcpOAuthAllowed(this.#options.policy, user, config);
    return config;
  }

  /** The scope the server names in its 401 (`WWW-Authenticate`), and where its resource metadata is. */
  async #probe(config: McpRemoteServerConfig): Promise<{ scope?: string; resourceMetadataUrl?: URL }> {
    try {
      const response = await this.#options.fetch(config.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'toolport', version: '0.1.0' },
          },
        }),
      });
      await response.body?.cancel();
      if (response.status !== 401 && response.status !== 403) return {};
      const { scope, resourceMetadataUrl } = extractWWWAuthenticateParams(response);
      return {
        ...(scope === undefined ? {} : { scope }),
        ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
      };
    } catch (error) {
      if (isToolportError(error)) throw error; // NET-1 refused the URL: say so
      return {};
    }
  }

  /**
   * Starts an authorization of one of the user's remote servers: discovery (RFC 9728, RFC 8414 / OpenID), client
   * registration when needed (metadata document, RFC 7591), PKCE S256, resource indicator, scopes (the 401's, else a
   * step-up's, else `scopes_supported`, else the config's). Returns the URL to send the user's browser to; the
   * browser comes back to `redirectUrl` with a state bound to this user and server, usable once, for 10 minutes.
   */
  async startAuthorization(
    user: PolicySubject,
    serverId: string,
    redirectUrl: string,
  ): Promise<{ authorizationUrl: string; state: string; serverName: string }> {
    const config = await this.#remoteServerOf(user, serverId);
    const store = this.#storeFor(user.id, config.id);
    const stored = await store.load();
    const probe = await this.#probe(config);
    const state = randomBytes(32).toString('base64url');
    let codeVerifier: string | undefined;
    let authorizationUrl: URL | undefined;
    const provider = this.#flowProvider(config, user.id, store, redirectUrl, {
      state,
      onVerifier: (verifier) => {
        codeVerifier = verifier;
      },
      onAuthorizationUrl: (url) => {
        authorizationUrl = url;
      },
    });
    // A step-up's scope first (it is what the tools need now), else what the server's 401 names.
    const scope = stored.requiredScope ?? probe.scope;
    let result;
    try {
      result = await auth(provider, {
        serverUrl: config.url,
        fetchFn: this.#options.fetch,
        ...(scope === undefined ? {} : { scope }),
        ...(probe.resourceMetadataUrl === undefined
          ? {}
          : { resourceMetadataUrl: probe.resourceMetadataUrl }),
      });
    } catch (error) {
      throw this.#authorizationServerError(config, error);
    }
    if (result !== 'REDIRECT' || authorizationUrl === undefined || codeVerifier === undefined) {
      throw new ToolportError(
        'execution_failed',
        `The authorization server of ${config.name} did not start an authorization.`,
      );
    }
    await this.#options.repository.insertPending(hashState(state), {
      userId: user.id,
      serverId: config.id,
      sealedVerifier: this.#options.cipher.encrypt(user.id, `${sealName(config.id)}:verifier`, codeVerifier),
      redirectUrl,
      expiresAt: new Date(Date.now() + MCP_OAUTH_STATE_TTL_MS).toISOString(),
    });
    return { authorizationUrl: authorizationUrl.href, state, serverName: config.name };
  }

  /**
   * The browser's return: exchanges the code for tokens (PKCE verifier and redirect URL of the state's own start) and
   * stores them for the state's user and server. A state is used once: unknown, expired, used and refused ones all
   * fail, and the authorization server's own refusal (`error=access_denied`) consumes it too.
   */
  async completeAuthorization(query: {
    state?: string | undefined;
    code?: string | undefined;
    error?: string | undefined;
  }): Promise<McpOAuthCallbackOutcome> {
    if (query.state === undefined || query.state === '') {
      return { ok: false, status: 400, message: 'The authorization response has no state.' };
    }
    const pending = await this.#options.repository.takePending(hashState(query.state));
    if (pending === undefined) {
      return {
        ok: false,
        status: 400,
        message: 'This authorization link is unknown or was already used. Start the authorization again.',
      };
    }
    if (Date.parse(pending.expiresAt) <= Date.now()) {
      return {
        ok: false,
        status: 400,
        message: 'This authorization link expired. Start the authorization again.',
      };
    }
    if (query.error !== undefined) {
      return { ok: false, status: 400, message: `The authorization server refused: ${query.error}.` };
    }
    if (query.code === undefined || query.code === '') {
      return { ok: false, status: 400, message: 'The authorization response has no code.' };
    }
    const record = await this.#options.users.findById(pending.userId);
    if (record === undefined)
      return { ok: false, status: 400, message: 'The user of this authorization is gone.' };
    const user: PolicySubject = { id: record.id, isAdmin: record.isAdmin };
    let config: McpRemoteServerConfig;
    try {
      config = await this.#remoteServerOf(user, pending.serverId);
    } catch (error) {
      if (!isToolportError(error)) throw error;
      return {
        ok: false,
        status: error.code === 'permission_denied' ? 403 : 400,
        message: error.message,
      };
    }
    const verifier = this.#options.cipher.decrypt(
      user.id,
      `${sealName(config.id)}:verifier`,
      pending.sealedVerifier,
    );
    const store = this.#storeFor(user.id, config.id);
    const provider = this.#flowProvider(config, user.id, store, pending.redirectUrl, { verifier });
    try {
      await auth(provider, {
        serverUrl: config.url,
        authorizationCode: query.code,
        fetchFn: this.#options.fetch,
      });
    } catch (error) {
      return { ok: false, status: 502, message: this.#authorizationServerError(config, error).message };
    }
    await store.save({ requiredScope: undefined });
    await this.#options.onAuthorizationChanged(user.id, config.id);
    return { ok: true, userId: user.id, serverName: config.name };
  }

  /** Forgets the user's tokens and registration for the server (always allowed: it only takes access away). */
  async forget(user: PolicySubject, serverId: string): Promise<void> {
    const record = await this.#options.servers.get(user.id, serverId);
    if (record === undefined) {
      throw new ToolportError('not_found', `No MCP server ${JSON.stringify(serverId)}.`, {
        details: { serverId },
      });
    }
    await this.#options.repository.delete(user.id, serverId);
    await this.#options.onAuthorizationChanged(user.id, serverId);
  }

  /** Whether the user has tokens stored for the server (the status view; never the tokens themselves). */
  async isAuthorized(userId: string, serverId: string): Promise<boolean> {
    return (await this.#load(userId, serverId)).tokens !== undefined;
  }

  #flowProvider(
    config: McpRemoteServerConfig,
    userId: string,
    store: McpOAuthStore,
    redirectUrl: string,
    hooks: {
      state?: string;
      verifier?: string;
      onVerifier?: (verifier: string) => void;
      onAuthorizationUrl?: (url: URL) => void;
    },
  ): OAuthClientProvider {
    const base = createMcpOAuthProvider({
      store,
      redirectUrl,
      clientMetadata: this.clientMetadata(redirectUrl, config),
      ...(this.clientMetadataUrl === undefined || config.oauth?.clientId !== undefined
        ? {}
        : { clientMetadataUrl: this.clientMetadataUrl }),
      ...(hooks.state === undefined ? {} : { state: () => hooks.state! }),
      onAuthorizationUrl: (url) => hooks.onAuthorizationUrl?.(url),
    });
    return {
      ...base,
      redirectUrl,
      clientMetadata: base.clientMetadata,
      clientInformation: async () =>
        this.#clientFor(config, (await store.load()).clientInformation, redirectUrl),
      // A fresh authorization: stored tokens are replaced only once the new ones arrive.
      tokens: async () => (hooks.verifier === undefined ? undefined : (await store.load()).tokens),
      saveCodeVerifier: (verifier) => hooks.onVerifier?.(verifier),
      codeVerifier: () => {
        if (hooks.verifier === undefined) throw new Error('No PKCE verifier for this authorization.');
        return hooks.verifier;
      },
      invalidateCredentials: async (scope) => {
        this.#options.logger?.info(
          { userId, server: config.name, scope },
          'MCP OAuth credentials invalidated',
        );
        // A fresh authorization never drops the tokens still in force (see `tokens` above): the SDK invalidates
        // tokens on an `invalid_grant` from the code exchange, which here is about the code just presented — one
        // spliced onto this user's state, say — not about the tokens the user already has.
        if (scope === 'tokens') return;
        if (scope === 'all') {
          for (const kept of ['client', 'verifier', 'discovery'] as const) await store.clear(kept);
          return;
        }
        await store.clear(scope);
      },
    };
  }

  #authorizationServerError(config: McpRemoteServerConfig, error: unknown): ToolportError {
    if (isToolportError(error)) return error;
    return new ToolportError(
      'execution_failed',
      `The authorization of the MCP server ${config.name} failed: ${messageOf(error)}`,
      { details: { server: config.name } },
    );
  }
}
