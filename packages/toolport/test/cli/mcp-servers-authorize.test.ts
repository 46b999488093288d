import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.ts';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { ToolRegistry } from '../../src/core/tool-registry.ts';
import { migrateDatabase, openDatabase } from '../../src/persistence/database.ts';
import { toMcpServerConfig } from '../../src/services/mcp-server-service.ts';
import { createToolportServices } from '../../src/services/toolport-services.ts';
import { startOAuthMcpServer, type OAuthMcpServer } from '../mcp/oauth-mcp-server.ts';

const SECRET_KEY = randomBytes(32);

function captureIo(env: NodeJS.ProcessEnv): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: (text) => (out += text),
    stderr: (text) => (err += text),
    cwd: process.cwd(),
    env,
    out: () => out,
    err: () => err,
  };
}

async function waitFor<T>(probe: () => T | undefined, what: string): Promise<T> {
  for (let attempt = 0; attempt < 400; attempt += 1) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('MCP-1 toolport mcp-servers authorize <name> --data-dir D --user U (loopback callback)', () => {
  let dataDirectory: string;
  let remote: OAuthMcpServer;
  let aliceId: string;
  let serverId: string;
  const openServices = () => {
    const database = openDatabase(`sqlite:${join(dataDirectory, 'toolport.db')}`);
    const services = createToolportServices({
      database,
      registry: new ToolRegistry(),
      secretKey: SECRET_KEY,
      mcp: { outboundAllowlist: { cidrs: ['127.0.0.1/32'] }, listingWaitMs: 20_000 },
    });
    return {
      services,
      close: async () => {
        await services.mcp.close();
        await services.flush();
        await database.close();
      },
    };
  };
  const env = (): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH ?? '',
    TOOLPORT_SECRET_KEY: SECRET_KEY.toString('base64'),
    TOOLPORT_OUTBOUND_ALLOW: '127.0.0.1/32',
    TOOLPORT_STATE_DIR: join(dataDirectory, 'state'),
  });

  beforeAll(async () => {
    remote = await startOAuthMcpServer();
    dataDirectory = mkdtempSync(join(tmpdir(), 'toolport-mcp-authorize-'));
    const database = openDatabase(`sqlite:${join(dataDirectory, 'toolport.db')}`);
    await migrateDatabase(database);
    await database.close();
    const { services, close } = openServices();
    const { user: alice } = await services.tokens.createUser('alice');
    await services.tokens.createUser('bob');
    aliceId = alice.id;
    serverId = (
      await services.repositories.mcpServers.create(alice.id, {
        name: 'notes',
        transport: 'http',
        config: { url: remote.url, protocol: 'streamable-http' },
      })
    ).id;
    await close();
  });
  afterAll(async () => {
    await remote?.close();
    rmSync(dataDirectory, { recursive: true, force: true });
  });

  it('prints the authorization URL, completes through its loopback callback and stores the tokens for that user', async () => {
    const io = captureIo(env());
    const exit = runCli(
      ['mcp-servers', 'authorize', 'notes', '--data-dir', dataDirectory, '--user', 'alice'],
      io,
    );
    const printed = await waitFor(() => /^(http\S+)$/m.exec(io.out())?.[1], 'the authorization URL');
    const authorizationUrl = new URL(printed);
    expect(authorizationUrl.origin).toBe(remote.origin);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    const redirectUri = new URL(authorizationUrl.searchParams.get('redirect_uri')!);
    expect(redirectUri.hostname).toBe('127.0.0.1');
    expect(redirectUri.pathname).toBe('/callback');

    remote.account = 'alice-at-notes';
    const approved = await fetch(authorizationUrl, { redirect: 'manual' });
    const back = new URL(approved.headers.get('location')!);
    expect(back.origin).toBe(redirectUri.origin);
    const page = await fetch(back);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Authorized');
    expect(await exit, io.err()).toBe(0);
    expect(io.err()).toContain('Authorized notes for alice.');
    // Nothing secret on the terminal: only the URL (its state is single use and now spent).
    for (const token of [...remote.acceptedTokens, ...remote.refreshTokens])
      expect(io.out() + io.err()).not.toContain(token);

    // The stored tokens serve the user's connection afterwards (as `mcp --user` or `serve` would use them).
    const { services, close } = openServices();
    try {
      expect(await services.mcp.oauth?.isAuthorized(aliceId, serverId)).toBe(true);
      const record = await services.repositories.mcpServers.get(aliceId, serverId);
      const result = await services.mcp.pool.callTool(aliceId, toMcpServerConfig(record!), 'whoami', {});
      expect(result.content).toEqual([{ type: 'text', text: 'account:alice-at-notes' }]);
    } finally {
      await close();
    }
  });

  it("exits 2 for another user's server name: bob has no server called notes", async () => {
    const io = captureIo(env());
    const code = await runCli(
      ['mcp-servers', 'authorize', 'notes', '--data-dir', dataDirectory, '--user', 'bob'],
      io,
    );
    expect(code).toBe(2);
    expect(io.err()).toContain('bob has no MCP server named "notes"');
    expect(io.out()).toBe('');
  });
});
