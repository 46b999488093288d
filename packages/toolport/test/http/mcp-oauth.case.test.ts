import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_OPERATOR_POLICY, freezePolicy } from '../../src/policy/operator-policy.ts';
import { FakeProviderServer } from '../providers/fake-provider-server.ts';
import { scriptStep } from '../providers/scripted-streams.ts';
import {
  OAUTH_SCOPE,
  OAUTH_WRITE_SCOPE,
  startOAuthMcpServer,
  type OAuthMcpServer,
} from '../mcp/oauth-mcp-server.ts';
import { createTestDatabase, TEST_ENGINES, type TestDatabaseTarget } from '../support/test-databases.ts';
import { createTestUser, startTestServer, type TestServer } from '../support/test-server.ts';

/*
 * MCP-1 OAuth end to end: a real OAuth-protected MCP server on loopback (the MCP SDK's own authorization server and
 * bearer middleware), toolport's routes through the real API, two non-admin users attacking each other's servers,
 * states and tokens.
 */

type Json = Record<string, unknown>;
type User = Awaited<ReturnType<typeof createTestUser>>;

const LOOPBACK_ALLOWED = { outboundAllowlist: { cidrs: ['127.0.0.1/32'] } };

describe.each(TEST_ENGINES)('MCP-1 OAuth for remote MCP servers on %s', (engine) => {
  let target: TestDatabaseTarget;
  let server: TestServer;
  let remote: OAuthMcpServer;
  let alice: User;
  let bob: User;
  let fake: FakeProviderServer;

  beforeAll(async () => {
    target = await createTestDatabase(engine);
    fake = await FakeProviderServer.start();
    remote = await startOAuthMcpServer();
    server = await startTestServer(await target.open(), { mcp: LOOPBACK_ALLOWED });
    alice = await createTestUser(server.services, 'alice');
    bob = await createTestUser(server.services, 'bob');
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
    await remote?.close();
    await target?.dispose();
  });

  const call = async (
    user: User,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
  ) => {
    const response = await server.app.inject({
      method,
      url,
      headers: user.headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return {
      status: response.statusCode,
      raw: response.body,
      body: (response.body === '' ? {} : response.json()) as Json,
    };
  };

  const addServer = async (user: User, name: string, config: Json = {}) => {
    const created = await call(user, 'POST', '/api/mcp-servers', {
      name,
      transport: 'http',
      config: { url: remote.url, protocol: 'streamable-http', ...config },
    });
    expect(created.status, created.raw).toBe(201);
    return String(created.body.id);
  };

  /** What a browser does: open the URL, get approved as `account`, follow the redirect back to the callback. */
  const approveInBrowser = async (authorizationUrl: string, account: string): Promise<URL> => {
    remote.account = account;
    const approved = await fetch(authorizationUrl, { redirect: 'manual' });
    expect(approved.status).toBe(302);
    return new URL(approved.headers.get('location')!);
  };

  const callback = async (returned: URL) => {
    const response = await server.app.inject({
      method: 'GET',
      url: `${returned.pathname}${returned.search}`,
    });
    return {
      status: response.statusCode,
      body: response.body,
      type: String(response.headers['content-type']),
    };
  };

  const authorize = async (user: User, serverId: string, account: string) => {
    const started = await call(user, 'POST', `/api/mcp-servers/${serverId}/authorize`);
    expect(started.status, started.raw).toBe(200);
    const returned = await approveInBrowser(String(started.body.authorizationUrl), account);
    const page = await callback(returned);
    expect(page.status, page.body).toBe(200);
    return { authorizationUrl: new URL(String(started.body.authorizationUrl)), returned, page };
  };

  const whoami = async (user: User, tool: string) => {
    const response = await call(user, 'POST', `/api/tools/${tool}/execute`, { args: {} });
    return response;
  };

  const statusOf = async (user: User, serverId: string) =>
    (await call(user, 'GET', `/api/mcp-servers/${serverId}/status`)).body.status as Json;

  it('shows needs_authorization, authorizes once (PKCE S256, resource, scope, state), then its tools work and refresh silently', async () => {
    const serverId = await addServer(alice, 'notes');
    // A listing connects: the server answers 401, and the turn is not broken — the server just has no tools.
    const listing = await call(alice, 'GET', '/api/settings/tools');
    expect(listing.status, listing.raw).toBe(200);
    expect(listing.raw).not.toContain('notes_whoami');
    const before = await statusOf(alice, serverId);
    expect(before.state).toBe('needs_authorization');
    expect(String((before.lastError as Json).message)).toContain('needs authorization');

    const { authorizationUrl, page } = await authorize(alice, serverId, 'alice-account');
    expect(authorizationUrl.origin).toBe(remote.origin);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorizationUrl.searchParams.get('resource')).toBe(remote.url);
    expect(authorizationUrl.searchParams.get('scope')).toBe(OAUTH_SCOPE);
    expect(authorizationUrl.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorizationUrl.searchParams.get('redirect_uri')).toBe(
      'http://localhost/api/mcp-servers/oauth/callback',
    );
    expect(page.type).toContain('text/html');
    expect(page.body).toContain('Authorized');
    expect(page.body).toContain('notes');
    // Registered dynamically (RFC 7591) with the callback URL; the code was exchanged once.
    expect(remote.registrations.at(-1)?.redirect_uris).toEqual([
      'http://localhost/api/mcp-servers/oauth/callback',
    ]);
    expect(remote.tokenRequests.filter((request) => request.grant === 'authorization_code')).toHaveLength(1);

    const first = await whoami(alice, 'notes_whoami');
    expect(first.status, first.raw).toBe(200);
    expect(first.raw).toContain('account:alice-account');
    expect((await statusOf(alice, serverId)).state).toBe('connected');

    // The access token expires: the next call refreshes it without the user (refresh_token grant) and goes through.
    const refreshesBefore = remote.tokenRequests.filter(
      (request) => request.grant === 'refresh_token',
    ).length;
    remote.expireAccessTokens();
    const second = await whoami(alice, 'notes_whoami');
    expect(second.raw).toContain('account:alice-account');
    expect(remote.tokenRequests.filter((request) => request.grant === 'refresh_token').length).toBe(
      refreshesBefore + 1,
    );

    // Never returned, sealed at rest, redacted from results.
    const tokens = [...remote.acceptedTokens, ...remote.refreshTokens];
    const responses = [
      await call(alice, 'GET', '/api/mcp-servers'),
      await call(alice, 'GET', `/api/mcp-servers/${serverId}`),
      await call(alice, 'GET', `/api/mcp-servers/${serverId}/status`),
    ];
    const rows = await server.services.database.db.selectFrom('mcp_oauth_credentials').selectAll().execute();
    expect(rows.filter((row) => row.user_id === alice.id)).toHaveLength(1);
    for (const token of tokens) {
      for (const response of responses) expect(response.raw).not.toContain(token);
      expect(JSON.stringify(rows)).not.toContain(token);
    }
    const redacted = await server.services.secrets.createReader(alice.id).listSecretValues!();
    expect(redacted).toContain(remote.acceptedTokens.at(-1));
    expect(redacted).toContain(remote.refreshTokens.at(-1));
  });

  it("once authorized, the server's tools run in a chat turn (the model calls one, the result reaches it)", async () => {
    await addServer(alice, 'turnnotes');
    expect((await call(alice, 'GET', '/api/settings/tools')).raw).not.toContain('turnnotes_whoami');
    const serverId = String(
      ((await call(alice, 'GET', '/api/mcp-servers')).body.servers as Json[]).find(
        (row) => row.name === 'turnnotes',
      )?.id,
    );
    await authorize(alice, serverId, 'alice-turn-account');
    const provider = await call(alice, 'POST', '/api/providers', {
      name: 'local-oauth-turn',
      provider: 'openai-chat',
      baseUrl: fake.baseURLFor('openai-chat'),
      defaultModel: 'default-model',
    });
    expect(provider.status, provider.raw).toBe(201);
    const chat = await call(alice, 'POST', '/api/chats', {});
    expect(chat.status, chat.raw).toBe(201);
    fake.enqueue(
      'openai-chat',
      scriptStep('openai-chat', {
        toolCalls: [{ id: 'call_whoami', name: 'turnnotes_whoami', arguments: '{}' }],
      }),
    );
    fake.enqueue('openai-chat', scriptStep('openai-chat', { text: 'You are alice-turn-account.' }));
    const turn = await server.app.inject({
      method: 'POST',
      url: `/api/chats/${String(chat.body.id)}/turns`,
      headers: alice.headers,
      payload: { message: 'Who am I there?', provider: 'local-oauth-turn' },
    });
    expect(turn.statusCode, turn.body).toBe(200);
    const events = turn.body
      .split('\n\n')
      .map((block) => block.split('\n').find((line) => line.startsWith('data: ')))
      .filter((line): line is string => line !== undefined)
      .map((line) => JSON.parse(line.slice('data: '.length)) as Json);
    const result = events.find((event) => event.type === 'tool_result' && event.id === 'call_whoami');
    expect(JSON.stringify(result)).toContain('account:alice-turn-account');
    expect(result?.error).toBeUndefined();
    // What the model was sent back is the tool's answer, never a token.
    const sentBack = JSON.stringify(fake.requests.at(-1)?.body);
    expect(sentBack).toContain('account:alice-turn-account');
    for (const token of remote.acceptedTokens) expect(sentBack).not.toContain(token);
  });

  it('binds each state to its user and server, uses it once, and keeps two users apart', async () => {
    const aliceServer = await addServer(alice, 'wiki');
    const bobServer = await addServer(bob, 'wiki');

    // Bob cannot start, forget or read the authorization of Alice's server: it does not exist for him.
    expect((await call(bob, 'POST', `/api/mcp-servers/${aliceServer}/authorize`)).status).toBe(404);
    expect((await call(bob, 'DELETE', `/api/mcp-servers/${aliceServer}/authorization`)).status).toBe(404);
    expect((await call(bob, 'GET', `/api/mcp-servers/${aliceServer}/status`)).status).toBe(404);

    const alices = await authorize(alice, aliceServer, 'alice-account');
    const bobs = await authorize(bob, bobServer, 'bob-account');
    expect((await whoami(alice, 'wiki_whoami')).raw).toContain('account:alice-account');
    expect((await whoami(bob, 'wiki_whoami')).raw).toContain('account:bob-account');

    // Replaying a callback (either user's) is refused: a state works once, and the tokens stay as they were.
    for (const used of [alices.returned, bobs.returned]) {
      const replay = await callback(used);
      expect(replay.status).toBe(400);
      expect(replay.body).toContain('unknown or was already used');
    }
    // A forged or altered state names nobody.
    const forged = new URL(alices.returned);
    forged.searchParams.set('state', `${forged.searchParams.get('state')!.slice(0, -2)}xx`);
    expect((await callback(forged)).status).toBe(400);
    expect((await whoami(alice, 'wiki_whoami')).raw).toContain('account:alice-account');
    expect((await whoami(bob, 'wiki_whoami')).raw).toContain('account:bob-account');

    // Bob's code spliced onto Alice's fresh state: the code was issued to Bob's client for Bob's PKCE challenge, so
    // the exchange with Alice's client and verifier fails, and Alice keeps her own tokens.
    const aliceStarted = await call(alice, 'POST', `/api/mcp-servers/${aliceServer}/authorize`);
    const bobStarted = await call(bob, 'POST', `/api/mcp-servers/${bobServer}/authorize`);
    const bobReturned = await approveInBrowser(String(bobStarted.body.authorizationUrl), 'mallory-account');
    const spliced = new URL(bobReturned);
    spliced.searchParams.set(
      'state',
      new URL(String(aliceStarted.body.authorizationUrl)).searchParams.get('state')!,
    );
    const splicedPage = await callback(spliced);
    expect(splicedPage.status).toBe(502);
    expect((await whoami(alice, 'wiki_whoami')).raw).toContain('account:alice-account');

    // An expired state is refused even though it was never used.
    const late = await call(alice, 'POST', `/api/mcp-servers/${aliceServer}/authorize`);
    const lateReturned = await approveInBrowser(String(late.body.authorizationUrl), 'alice-account');
    await server.services.database.db
      .updateTable('mcp_oauth_states')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('user_id', '=', alice.id)
      .execute();
    const expired = await callback(lateReturned);
    expect(expired.status).toBe(400);
    expect(expired.body).toContain('expired');

    // States are stored hashed: the database holds no usable state.
    const states = await server.services.database.db.selectFrom('mcp_oauth_states').selectAll().execute();
    const bobState = new URL(String(bobStarted.body.authorizationUrl)).searchParams.get('state')!;
    expect(JSON.stringify(states)).not.toContain(bobState);
  });

  it('DELETE …/authorization forgets the tokens: the server needs authorization again', async () => {
    const serverId = await addServer(alice, 'forgetful');
    await authorize(alice, serverId, 'alice-account');
    expect((await whoami(alice, 'forgetful_whoami')).raw).toContain('account:alice-account');
    const forgotten = await call(alice, 'DELETE', `/api/mcp-servers/${serverId}/authorization`);
    expect(forgotten.status, forgotten.raw).toBe(204);
    const rows = await server.services.database.db
      .selectFrom('mcp_oauth_credentials')
      .selectAll()
      .where('server_id', '=', serverId)
      .execute();
    expect(rows).toEqual([]);
    await call(alice, 'GET', '/api/settings/tools');
    expect((await statusOf(alice, serverId)).state).toBe('needs_authorization');
    expect((await whoami(alice, 'forgetful_whoami')).status).toBe(404);
  });

  it('step-up: a tool needing more scope sends the user back to authorize, then works with the wider scope', async () => {
    const serverId = await addServer(alice, 'journal');
    await authorize(alice, serverId, 'alice-account');
    expect((await whoami(alice, 'journal_whoami')).raw).toContain('account:alice-account');
    const refreshesBefore = remote.tokenRequests.filter(
      (request) => request.grant === 'refresh_token',
    ).length;

    // 403 insufficient_scope: a refresh cannot widen the scope, so the server needs the user, not a broken turn.
    const refused = await whoami(alice, 'journal_write_note');
    expect(refused.raw).toContain('needs authorization');
    expect((await statusOf(alice, serverId)).state).toBe('needs_authorization');
    expect(remote.tokenRequests.filter((request) => request.grant === 'refresh_token').length).toBe(
      refreshesBefore,
    );

    // The next authorization asks for what the tool needs.
    const { authorizationUrl } = await authorize(alice, serverId, 'alice-account');
    expect(authorizationUrl.searchParams.get('scope')).toBe(`${OAUTH_SCOPE} ${OAUTH_WRITE_SCOPE}`);
    const written = await whoami(alice, 'journal_write_note');
    expect(written.raw).toContain(`written with ${OAUTH_SCOPE} ${OAUTH_WRITE_SCOPE}`);
  });

  it('uses a pre-registered client id and secret from the config (masked, sealed) instead of registering', async () => {
    const clientSecret = 'preregistered-secret-5150';
    remote.preRegister('toolport-prereg', clientSecret, ['http://localhost/api/mcp-servers/oauth/callback']);
    const registrationsBefore = remote.registrations.length;
    const serverId = await addServer(alice, 'prereg', {
      oauth: { clientId: 'toolport-prereg', clientSecret },
    });
    const shown = await call(alice, 'GET', `/api/mcp-servers/${serverId}`);
    expect((shown.body.config as Json).oauth).toEqual({ clientId: 'toolport-prereg', clientSecret: '***' });
    const atRest = await server.services.database.db.selectFrom('mcp_servers').select('config').execute();
    expect(JSON.stringify(atRest)).not.toContain(clientSecret);

    const { authorizationUrl } = await authorize(alice, serverId, 'alice-account');
    expect(authorizationUrl.searchParams.get('client_id')).toBe('toolport-prereg');
    expect(remote.registrations.length).toBe(registrationsBefore);
    expect(remote.tokenRequests.at(-1)).toEqual({ grant: 'authorization_code', clientId: 'toolport-prereg' });
    expect((await whoami(alice, 'prereg_whoami')).raw).toContain('account:alice-account');
  });
});

describe('MCP-1 OAuth under the operator policy (AUTH-2) and NET-1', () => {
  let target: TestDatabaseTarget;
  let remote: OAuthMcpServer;
  beforeAll(async () => {
    target = await createTestDatabase('sqlite');
    remote = await startOAuthMcpServer();
  });
  afterAll(async () => {
    await remote?.close();
    await target?.dispose();
  });

  it('mcp.oauth "admins": a non-admin cannot authorize or configure an OAuth client; an admin can', async () => {
    const policy = freezePolicy({
      ...structuredClone(DEFAULT_OPERATOR_POLICY),
      mcp: { ...DEFAULT_OPERATOR_POLICY.mcp, oauth: 'admins' as const },
    });
    const server = await startTestServer(await target.open(), {
      mcp: LOOPBACK_ALLOWED,
      services: { policy },
    });
    try {
      const user = await createTestUser(server.services, 'plain');
      const admin = await createTestUser(server.services, 'root', { isAdmin: true });
      const inject = (who: User, method: 'POST', url: string, payload?: object) =>
        server.app.inject({
          method,
          url,
          headers: who.headers,
          ...(payload === undefined ? {} : { payload }),
        });
      const body = { name: 'notes', transport: 'http', config: { url: remote.url } };
      const created = await inject(user, 'POST', '/api/mcp-servers', body);
      expect(created.statusCode, created.body).toBe(201);
      const refused = await inject(user, 'POST', `/api/mcp-servers/${String(created.json().id)}/authorize`);
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ error: { code: 'permission_denied', policyKey: 'mcp.oauth' } });
      const withClient = await inject(user, 'POST', '/api/mcp-servers', {
        ...body,
        name: 'with-client',
        config: { url: remote.url, oauth: { clientId: 'x' } },
      });
      expect(withClient.statusCode).toBe(403);
      expect(withClient.json()).toMatchObject({ error: { policyKey: 'mcp.oauth' } });
      // Nothing reached the authorization server for the refused user.
      expect(remote.authorizations).toHaveLength(0);

      const adminServer = await inject(admin, 'POST', '/api/mcp-servers', body);
      const allowed = await inject(
        admin,
        'POST',
        `/api/mcp-servers/${String(adminServer.json().id)}/authorize`,
      );
      expect(allowed.statusCode, allowed.body).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('discovery and token requests go through NET-1: a loopback authorization server is refused unless allowlisted', async () => {
    const server = await startTestServer(await target.open());
    try {
      const user = await createTestUser(server.services, 'netuser');
      const created = await server.app.inject({
        method: 'POST',
        url: '/api/mcp-servers',
        headers: user.headers,
        payload: { name: 'notes', transport: 'http', config: { url: remote.url } },
      });
      const before = remote.registrations.length;
      const refused = await server.app.inject({
        method: 'POST',
        url: `/api/mcp-servers/${String(created.json().id)}/authorize`,
        headers: user.headers,
      });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ error: { code: 'permission_denied', reason: 'loopback' } });
      expect(remote.registrations.length).toBe(before);
    } finally {
      await server.close();
    }
  });
});
