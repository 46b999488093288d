import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/core/tool-registry.ts';
import { createToolRuntime } from '../../src/core/tool-runtime.ts';
import type { ToolProgress } from '../../src/core/tool-types.ts';
import { registerBuiltinTools } from '../../src/tools/index.ts';
import { McpClientPool } from '../../src/mcp/mcp-client-pool.ts';
import { createMcpHttpHandler } from '../../src/mcp/mcp-http-handler.ts';
import type { McpServerConfig } from '../../src/mcp/mcp-server-config.ts';

// Real peers from npm, spawned from node_modules (never downloaded at test time).
const binOf = (pkg: string): string =>
  fileURLToPath(import.meta.resolve(`${pkg}/package.json`).replace(/package\.json$/, 'dist/index.js'));
const EVERYTHING = binOf('@modelcontextprotocol/server-everything');
const FILESYSTEM = binOf('@modelcontextprotocol/server-filesystem');

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Starts server-everything in an HTTP mode and waits for its "listening" line. */
async function startEverything(
  mode: 'streamableHttp' | 'sse',
): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening|running/i.test(output)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited (${code}): ${output}`)));
  });
  return { child, port };
}

function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  return exited;
}

function runtimeWith(pool: McpClientPool, userId: string, configs: McpServerConfig[]) {
  return pool.getEntries(userId, configs).then(({ entries, statuses }) => ({
    statuses,
    runtime: createToolRuntime({
      entries: registerBuiltinTools(new ToolRegistry()).listEntries(),
      extraEntries: entries,
      userId,
    }),
  }));
}

describe('MCP-1 interop: our client pool against server-everything', () => {
  const pool = new McpClientPool({ connectTimeoutMs: 20_000, listingWaitMs: 20_000 });
  const servers: ChildProcess[] = [];
  afterAll(async () => {
    await pool.close();
    await Promise.all(servers.map(stopped));
  });

  const stdioConfig: McpServerConfig = {
    id: 'everything-stdio',
    name: 'everything',
    enabled: true,
    transport: 'stdio',
    command: process.execPath,
    args: [EVERYTHING],
  };

  it('over stdio: lists, calls, and forwards progress', async () => {
    const { runtime, statuses } = await runtimeWith(pool, 'u1', [stdioConfig]);
    expect(statuses[0]).toMatchObject({ connected: true, transport: 'stdio' });
    const names = runtime.tools.map((tool) => tool.definition.name);
    expect(names).toEqual(expect.arrayContaining(['everything_echo', 'everything_get-sum']));
    const echo = runtime.tools.find((tool) => tool.definition.name === 'everything_echo')!;
    expect(echo.source).toEqual({ kind: 'mcp', origin: 'mcp:everything' });
    expect(echo.definition.parameters).not.toHaveProperty('$schema');
    expect(echo.tool.annotations).toMatchObject({ readOnlyHint: true });

    expect(
      await runtime.execute({ toolName: 'everything_echo', arguments: { message: 'hi' } }),
    ).toMatchObject({
      ok: true,
      result: 'Echo: hi',
    });
    expect(
      await runtime.execute({ toolName: 'everything_get-sum', arguments: { a: 2, b: 3 } }),
    ).toMatchObject({
      ok: true,
    });

    const progress: ToolProgress[] = [];
    const long = await runtime.execute(
      { toolName: 'everything_trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
      { onProgress: (update) => progress.push(update) },
    );
    expect(long.ok).toBe(true);
    // The last step's notification races the result inside the SDK client; the earlier ones must arrive in order.
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.map((update) => update.progress)).toEqual([1, 2, 3].slice(0, progress.length));
  });

  it('over Streamable HTTP', async () => {
    const { child, port } = await startEverything('streamableHttp');
    servers.push(child);
    const config: McpServerConfig = {
      id: 'everything-http',
      name: 'remote',
      enabled: true,
      transport: 'http',
      url: `http://127.0.0.1:${port}/mcp`,
      protocol: 'auto',
    };
    const { runtime, statuses } = await runtimeWith(pool, 'u1', [config]);
    expect(statuses[0]).toMatchObject({ connected: true, transport: 'streamable-http' });
    expect(
      await runtime.execute({ toolName: 'remote_echo', arguments: { message: 'over http' } }),
    ).toMatchObject({
      ok: true,
      result: 'Echo: over http',
    });
  });

  it('falls back to the legacy SSE transport when Streamable HTTP is refused', async () => {
    const { child, port } = await startEverything('sse');
    servers.push(child);
    const config: McpServerConfig = {
      id: 'everything-sse',
      name: 'legacy',
      enabled: true,
      transport: 'http',
      url: `http://127.0.0.1:${port}/sse`,
    };
    const { runtime, statuses } = await runtimeWith(pool, 'u1', [config]);
    expect(statuses[0]).toMatchObject({ connected: true, transport: 'sse' });
    expect(await runtime.execute({ toolName: 'legacy_echo', arguments: { message: 'sse' } })).toMatchObject({
      ok: true,
      result: 'Echo: sse',
    });
  });
});

describe('MCP-1 interop: our client pool against server-filesystem (stdio)', () => {
  let directory: string;
  const pool = new McpClientPool({ connectTimeoutMs: 20_000, listingWaitMs: 20_000 });
  beforeAll(() => {
    directory = realpathSync(mkdtempSync(join(tmpdir(), 'toolport-mcp-fs-')));
    writeFileSync(join(directory, 'notes.txt'), 'hello from disk\n');
  });
  afterAll(async () => {
    await pool.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('reads an allowed file, and a refused path reaches the model as a readable tool error', async () => {
    const config: McpServerConfig = {
      id: 'fs',
      name: 'fs',
      enabled: true,
      transport: 'stdio',
      command: process.execPath,
      args: [FILESYSTEM, directory],
    };
    const { runtime } = await runtimeWith(pool, 'u1', [config]);
    expect(runtime.tools.map((tool) => tool.definition.name)).toEqual(
      expect.arrayContaining(['fs_read_text_file', 'fs_list_directory']),
    );
    const read = await runtime.execute({
      toolName: 'fs_read_text_file',
      arguments: { path: join(directory, 'notes.txt') },
    });
    expect(read.ok).toBe(true);
    expect(read.output).toContain('hello from disk');

    const refused = await runtime.execute({
      toolName: 'fs_read_text_file',
      arguments: { path: '/etc/hostname' },
    });
    expect(refused).toMatchObject({ ok: false, error: { code: 'execution_failed' } });
    expect(!refused.ok && refused.error.message).toMatch(/denied|outside|not allowed/i);
  });
});

describe('MCP-1/MCP-2 interop: our client pool against our own /mcp handler, secrets in headers', () => {
  let httpServer: HttpServer;
  let port: number;
  const pool = new McpClientPool({
    secretsForUser: (userId) => ({
      getSecret: async (name) =>
        userId === 'u1' && name === 'TOOLPORT_TOKEN' ? 'secret-token-xyz' : undefined,
    }),
  });
  beforeAll(async () => {
    const handler = createMcpHttpHandler({
      authenticate: (request) =>
        request.headers.authorization === 'Bearer secret-token-xyz' ? { userId: 'remote-user' } : undefined,
      getRuntime: (principal) =>
        createToolRuntime({
          entries: registerBuiltinTools(new ToolRegistry()).listEntries(),
          userId: principal.userId,
        }),
    });
    httpServer = createServer((request, response) => void handler(request, response));
    await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
    port = (httpServer.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await pool.close();
    httpServer.closeAllConnections();
    await new Promise((resolve) => httpServer.close(resolve));
  });

  it('resolves {{SECRET}} header references at connect time and fails clearly without the secret', async () => {
    const config: McpServerConfig = {
      id: 'self',
      name: 'self',
      enabled: true,
      transport: 'http',
      url: `http://127.0.0.1:${port}/mcp`,
      protocol: 'streamable-http',
      headers: { Authorization: 'Bearer {{TOOLPORT_TOKEN}}' },
    };
    const { runtime } = await runtimeWith(pool, 'u1', [config]);
    const outcome = await runtime.execute({
      toolName: 'self_get_current_datetime',
      arguments: { timezone: 'UTC' },
    });
    expect(outcome).toMatchObject({ ok: true, result: { timezone: 'UTC' } });

    const other = await pool.getEntries('u2', [config]);
    expect(other.entries).toEqual([]);
    expect(other.statuses[0]!.lastError!.message).toContain('{{TOOLPORT_TOKEN}}');
    expect(JSON.stringify(other.statuses)).not.toContain('secret-token-xyz');
  });
});
