import { describe, expect, it } from 'vitest';
import { createMcpOAuthProvider, createMemoryMcpOAuthStore } from './mcp-oauth-provider.ts';

describe('MCP-1 OAuth provider state', () => {
  const tokens = { access_token: 'at-1', token_type: 'Bearer', refresh_token: 'rt-1' };
  const client = { client_id: 'registered', client_secret: 'shh' };

  it('keeps tokens, client, verifier and discovery per store, and forgets exactly what the SDK invalidates', async () => {
    const store = createMemoryMcpOAuthStore();
    const urls: string[] = [];
    const provider = createMcpOAuthProvider({
      store,
      redirectUrl: 'http://127.0.0.1:1/callback',
      clientMetadata: { client_name: 'toolport', redirect_uris: ['http://127.0.0.1:1/callback'] },
      onAuthorizationUrl: (url) => {
        urls.push(url.href);
      },
    });
    await provider.saveTokens(tokens);
    await provider.saveClientInformation?.(client);
    await provider.saveCodeVerifier('verifier-1');
    await provider.redirectToAuthorization(new URL('https://auth.example/authorize?x=1'));
    expect(await provider.tokens()).toEqual(tokens);
    expect(await provider.clientInformation()).toEqual(client);
    expect(await provider.codeVerifier()).toBe('verifier-1');
    expect(urls).toEqual(['https://auth.example/authorize?x=1']);

    await provider.invalidateCredentials?.('tokens');
    expect(await provider.tokens()).toBeUndefined();
    expect(await provider.clientInformation()).toEqual(client);
    await provider.invalidateCredentials?.('verifier');
    await expect(provider.codeVerifier()).rejects.toThrow(/code verifier/);
    await provider.invalidateCredentials?.('all');
    expect(await store.load()).toEqual({});
  });

  it('starts from pre-registered client credentials', async () => {
    const store = createMemoryMcpOAuthStore({ clientInformation: client });
    const provider = createMcpOAuthProvider({
      store,
      redirectUrl: 'http://127.0.0.1:1/callback',
      clientMetadata: { redirect_uris: ['http://127.0.0.1:1/callback'] },
      onAuthorizationUrl: () => {},
    });
    expect(await provider.clientInformation()).toEqual(client);
    expect(await provider.tokens()).toBeUndefined();
  });
});
