import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { runServeCommand } from '../../src/cli/serve-command.ts';
import type { ToolportServices } from '../../src/services/toolport-services.ts';
import { createTestDatabase } from '../support/test-databases.ts';
import { createTestRegistry } from '../support/server-test-tools.ts';

/*
 * Issue 11 item 2: each instance caches a user's settings, tool and MCP rows and secrets, and reuses their runtime.
 * Two real `toolport serve` instances (each its own services, caches and pool) on one database: a change made
 * through one is seen by the very next request on the other (the token lookup reads `users.state_version`), a
 * revoked token is refused at once everywhere, and a clean shutdown writes every batched audit row.
 */

interface RunningServer {
  url: string;
  services: ToolportServices;
  stop(): Promise<number>;
}

const silentIo = (env: NodeJS.ProcessEnv): CliIo => ({
  stdout: () => {},
  stderr: () => {},
  cwd: process.cwd(),
  env,
});

async function startServe(argv: string[]): Promise<RunningServer> {
  const controller = new AbortController();
  let resolveListening!: (value: { url: string; services: ToolportServices }) => void;
  const listening = new Promise<{ url: string; services: ToolportServices }>(
    (resolve) => (resolveListening = resolve),
  );
  const exit = runServeCommand(
    ['--port', '0', '--log-level', 'silent', ...argv],
    silentIo({ TOOLPORT_SECRET_KEY: 'b'.repeat(64) }),
    controller.signal,
    { registry: createTestRegistry(), onListening: resolveListening },
  );
  const started = await Promise.race([
    listening,
    exit.then((code) => Promise.reject(new Error(`toolport serve exited ${code}`))),
  ]);
  return { ...started, stop: () => (controller.abort(), exit) };
}

const directories: string[] = [];
function tempDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'toolport-instances-'));
  directories.push(directory);
  return directory;
}

afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

interface Caller {
  id: string;
  token: string;
}

function client(server: RunningServer, caller: Caller | string) {
  const token = typeof caller === 'string' ? caller : caller.token;
  return async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
  };
}

interface ToolSettingsView {
  name: string;
  enabled: boolean;
  parameters: Record<string, unknown>;
}

describe.each(['postgres', 'sqlite'] as const)(
  'issue 11 caches: two serve instances on one %s database',
  (engine) => {
    it('see each other’s changes on the next request, refuse a revoked token at once, and lose no audit row on a clean stop', async () => {
      const target = await createTestDatabase(engine);
      // PGlite cannot be shared between servers; CI and this machine run the real PostgreSQL server.
      const databaseUrl = engine === 'sqlite' ? `sqlite:${join(tempDirectory(), 'shared.db')}` : target.url;
      if (databaseUrl === undefined) return void (await target.dispose());
      const first = await startServe(['--data-dir', tempDirectory(), '--database-url', databaseUrl]);
      const second = await startServe(['--data-dir', tempDirectory(), '--database-url', databaseUrl]);
      let secondStopped = false;
      try {
        const { user: aliceUser, token: aliceToken } = await first.services.tokens.createUser('alice');
        const alice = { id: aliceUser.id, token: aliceToken };
        const { user: bobUser, token: bobToken } = await first.services.tokens.createUser('bob');
        const bob = { id: bobUser.id, token: bobToken };
        const { token: rootToken } = await first.services.tokens.createUser('root', { isAdmin: true });
        const onFirst = client(first, alice);
        const onSecond = client(second, alice);
        const bobOnSecond = client(second, bob);
        const executed = { alice: 0 };
        const execute = async (tool: string, args: unknown) => {
          const answer = await onSecond('POST', `/api/tools/${tool}/execute`, { args });
          executed.alice += 1;
          return answer;
        };
        const settingsOnSecond = async (name: string, as = onSecond): Promise<ToolSettingsView> => {
          const listed = await as('GET', '/api/settings/tools');
          expect(listed.status).toBe(200);
          return (listed.body as { tools: ToolSettingsView[] }).tools.find((tool) => tool.name === name)!;
        };

        // Warm the second instance's caches and runtime for alice (and for bob, who must stay unaffected).
        expect((await settingsOnSecond('configurable')).parameters.maxResults).toBe(10);
        expect((await settingsOnSecond('configurable', bobOnSecond)).parameters.maxResults).toBe(10);
        expect((await execute('configurable', {})).status).toBe(200);

        // Settings: saved on the first, listed and applied by the second on its next request.
        expect(
          (await onFirst('PUT', '/api/settings/tools/configurable', { parameters: { maxResults: 7 } }))
            .status,
        ).toBe(200);
        expect((await settingsOnSecond('configurable')).parameters.maxResults).toBe(7);
        expect((await execute('configurable', {})).body).toMatchObject({
          result: { settings: { maxResults: 7 } },
        });
        expect((await settingsOnSecond('configurable', bobOnSecond)).parameters.maxResults).toBe(10);
        expect((await onFirst('PUT', '/api/settings/tools/configurable', { enabled: false })).status).toBe(
          200,
        );
        const disabled = await execute('configurable', {});
        expect(disabled.status).toBe(403);
        expect(JSON.stringify(disabled.body)).toContain('disabled');
        expect((await settingsOnSecond('configurable')).enabled).toBe(false);
        expect((await bobOnSecond('POST', '/api/tools/configurable/execute', { args: {} })).status).toBe(200);

        // Secrets: set on the first, read (and redacted) by a tool on the second; deleted, gone there too.
        expect((await execute('secret_echo', { name: 'SHARED' })).body).toMatchObject({ result: {} });
        expect((await onFirst('PUT', '/api/secrets/SHARED', { value: 'shared-secret-value' })).status).toBe(
          200,
        );
        const echoed = await execute('secret_echo', { name: 'SHARED' });
        expect(echoed.status).toBe(200);
        expect(JSON.stringify(echoed.body)).not.toContain('shared-secret-value');
        expect((echoed.body as { result: { value?: string } }).result.value).toBeTypeOf('string');
        expect((await onFirst('DELETE', '/api/secrets/SHARED')).status).toBe(204);
        expect((await execute('secret_echo', { name: 'SHARED' })).body).toMatchObject({ result: {} });

        // MCP rows: an admin's new server row is listed by the other instance at once.
        const root = client(first, rootToken);
        const rootOnSecond = client(second, rootToken);
        expect((await rootOnSecond('GET', '/api/mcp-servers')).status).toBe(200);
        const created = await root('POST', '/api/mcp-servers', {
          name: 'later',
          transport: 'stdio',
          enabled: false,
          config: { command: process.execPath, args: ['-e', '0'] },
        });
        expect(created.status).toBe(201);
        const listed = await rootOnSecond('GET', '/api/mcp-servers');
        expect(JSON.stringify(listed.body)).toContain('"later"');

        // AUTH-1: a token revoked through the first is refused by the second on its next request.
        const issued = await onFirst('POST', '/api/tokens', { label: 'second' });
        expect(issued.status).toBe(201);
        const extra = (issued.body as { token: string }).token;
        const extraOnSecond = client(second, extra);
        expect((await extraOnSecond('GET', '/api/settings/tools')).status).toBe(200);
        const tokens = await onFirst('GET', '/api/tokens');
        const extraId = (tokens.body as { tokens: Array<{ id: string; label: string }> }).tokens.find(
          (token) => token.label === 'second',
        )!.id;
        // bob cannot revoke alice's token.
        expect((await client(first, bob)('DELETE', `/api/tokens/${extraId}`)).status).toBe(404);
        expect((await extraOnSecond('GET', '/api/settings/tools')).status).toBe(200);
        expect((await onFirst('DELETE', `/api/tokens/${extraId}`)).status).toBe(204);
        expect((await extraOnSecond('GET', '/api/settings/tools')).status).toBe(401);
        expect((await onSecond('GET', '/api/settings/tools')).status).toBe(200);

        // Audit rows are written in batches; stopping the second cleanly writes every one of alice's calls.
        expect(await second.stop()).toBe(0);
        secondStopped = true;
        const executions = await onFirst('GET', '/api/executions?limit=1000');
        expect((executions.body as { executions: unknown[] }).executions).toHaveLength(executed.alice);
      } finally {
        if (!secondStopped) await second.stop();
        await first.stop();
        await target.dispose();
      }
    });
  },
);
