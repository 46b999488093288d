import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';

/** Everything the OAuth flow keeps for one user and one MCP server. Secret: stored encrypted, never returned. */
export interface McpOAuthState {
  tokens?: OAuthTokens;
  clientInformation?: OAuthClientInformationMixed;
  codeVerifier?: string;
  discoveryState?: OAuthDiscoveryState;
  /** The scope a server asked for when it last needed (re)authorization (step-up), for the next authorization. */
  requiredScope?: string;
}

/**
 * Thrown by a provider that must not start an interactive authorization itself (the client pool's, in a turn): the
 * server needs the user to authorize it first. The pool reports the server as `needs_authorization`.
 */
export class McpAuthorizationRequiredError extends Error {
  override readonly name = 'McpAuthorizationRequiredError';
}

/** True when `error` or one of its causes is an instance of one of `kinds`. */
export function hasCause(error: unknown, kinds: ReadonlyArray<new (...args: never[]) => Error>): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 8; depth += 1) {
    if (kinds.some((kind) => current instanceof kind)) return true;
    current = current.cause;
  }
  return false;
}

export type McpOAuthClearScope = 'all' | 'client' | 'tokens' | 'verifier' | 'discovery';

/** Where one user's state for one server lives (in memory for tests and the CLI; encrypted rows for the server). */
export interface McpOAuthStore {
  load(): Promise<McpOAuthState>;
  save(update: Partial<McpOAuthState>): Promise<void>;
  clear(scope: McpOAuthClearScope): Promise<void>;
}

export function createMemoryMcpOAuthStore(initial: McpOAuthState = {}): McpOAuthStore {
  let state: McpOAuthState = { ...initial };
  const without = (keys: Array<keyof McpOAuthState>): McpOAuthState =>
    Object.fromEntries(
      Object.entries(state).filter(([key]) => !keys.includes(key as keyof McpOAuthState)),
    ) as McpOAuthState;
  return {
    load: async () => state,
    save: async (update) => {
      state = { ...state, ...update };
    },
    clear: async (scope) => {
      state =
        scope === 'all'
          ? {}
          : without(
              scope === 'client'
                ? ['clientInformation']
                : scope === 'tokens'
                  ? ['tokens']
                  : scope === 'verifier'
                    ? ['codeVerifier']
                    : ['discoveryState'],
            );
    },
  };
}

export interface McpOAuthProviderOptions {
  store: McpOAuthStore;
  /** Where the authorization server sends the browser back (`/api/mcp-servers/oauth/callback`). */
  redirectUrl: string;
  clientMetadata: OAuthClientMetadata;
  /** SEP-991: an https URL serving `clientMetadata`, used as the client id where the server supports it. */
  clientMetadataUrl?: string;
  /** The state parameter, bound to the user and server by the caller (single use, expiring). */
  state?: () => string | Promise<string>;
  /** Receives the URL to send the user to; the call that needed authorization fails with the SDK's UnauthorizedError. */
  onAuthorizationUrl(url: URL): void | Promise<void>;
}

/**
 * MCP-1 OAuth: the SDK's `OAuthClientProvider` over a per-user, per-server store. The SDK transport does discovery
 * (WWW-Authenticate, RFC 9728, RFC 8414/OIDC), registration (metadata document, RFC 7591, or the stored
 * pre-registered client), PKCE S256, resource indicators, scopes, step-up and refresh; this only keeps the state.
 */
export function createMcpOAuthProvider(options: McpOAuthProviderOptions): OAuthClientProvider {
  const { store } = options;
  return {
    get redirectUrl() {
      return options.redirectUrl;
    },
    get clientMetadata() {
      return options.clientMetadata;
    },
    ...(options.clientMetadataUrl === undefined ? {} : { clientMetadataUrl: options.clientMetadataUrl }),
    ...(options.state === undefined ? {} : { state: options.state }),
    clientInformation: async () => (await store.load()).clientInformation,
    saveClientInformation: (clientInformation) => store.save({ clientInformation }),
    tokens: async () => (await store.load()).tokens,
    saveTokens: (tokens) => store.save({ tokens }),
    redirectToAuthorization: (url) => options.onAuthorizationUrl(url),
    saveCodeVerifier: (codeVerifier) => store.save({ codeVerifier }),
    codeVerifier: async () => {
      const { codeVerifier } = await store.load();
      if (codeVerifier === undefined)
        throw new Error('No PKCE code verifier was saved for this authorization.');
      return codeVerifier;
    },
    saveDiscoveryState: (discoveryState) => store.save({ discoveryState }),
    discoveryState: async () => (await store.load()).discoveryState,
    invalidateCredentials: (scope) => store.clear(scope),
  };
}
