import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isToolportError } from '../../src/core/errors.ts';
import { ToolRegistry } from '../../src/core/tool-registry.ts';
import { createToolRuntime } from '../../src/core/tool-runtime.ts';
import { registerBuiltinTools } from '../../src/tools/index.ts';
import { McpClientPool } from '../../src/mcp/mcp-client-pool.ts';
import type { McpServerConfig, McpStdioServerConfig } from '../../src/mcp/mcp-server-config.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/fixture-server.mjs', import.meta.url));

let directory: string;
let pool: McpClientPool;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'toolport-mcp-pool-'));
  pool = new McpClientPool({ connectTimeoutMs: 10_000, listingWaitMs: 10_000 });
});

afterEach(async () => {
  await pool.close();
  rmSync(directory, { recursive: true, force: true });
});

function fixtureConfig(overrides: Partial<McpStdioServerConfig> = {}, mode?: string): McpStdioServerConfig {
  const id = overrides.id ?? 'fixture-1';
  return {
    id,
    name: 'fixture',
    enabled: true,
    transport: 'stdio',
    command: process.execPath,
    args: [FIXTURE],
    env: { FIXTURE_MARKER_FILE: join(directory, `${id}.log`), ...(mode ? { FIXTURE_MODE: mode } : {}) },
    ...overrides,
  };
}

function markerLines(config: McpStdioServerConfig): string[] {
  const file = config.env!.FIXTURE_MARKER_FILE!;
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
}

async function errorOf(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (isToolportError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected the promise to reject');
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('MCP-1 lazy shared client pool', () => {
  it('connects on first need and serves a second use from the same connection and cached listing', async () => {
    const config = fixtureConfig();
    expect(pool.status('u1', [config])[0]).toMatchObject({
      state: 'idle',
      connected: false,
      connectCount: 0,
    });
    expect(markerLines(config)).toEqual([]);

    // Two uses racing on a cold server (a turn and the inspector) still spawn it once.
    const [first] = await Promise.all([pool.getEntries('u1', [config]), pool.getEntries('u1', [config])]);
    expect(first.entries.map((entry) => entry.tool.definition.name)).toContain('fixture_echo');
    // The inspector and the turn call the same function; the second use must not reconnect or re-list.
    const second = await pool.getEntries('u1', [config]);
    expect(second.entries.map((entry) => entry.tool.definition.name)).toEqual(
      first.entries.map((entry) => entry.tool.definition.name),
    );
    const lines = markerLines(config);
    expect(lines.filter((line) => line.startsWith('start'))).toHaveLength(1);
    expect(lines.filter((line) => line === 'list')).toHaveLength(1);
    expect(second.statuses[0]).toMatchObject({
      state: 'connected',
      connected: true,
      transport: 'stdio',
      toolCount: 7,
      connectCount: 1,
      listCount: 1,
    });
    expect(second.statuses[0]!.lastListedAt).toBeDefined();
  });

  it('never spawns or contacts a disabled server', async () => {
    const config = fixtureConfig({ enabled: false });
    const result = await pool.getEntries('u1', [config]);
    expect(result.entries).toEqual([]);
    expect(result.statuses[0]).toMatchObject({ state: 'disabled', connected: false, connectCount: 0 });
    expect(existsSync(config.env!.FIXTURE_MARKER_FILE!)).toBe(false);
    expect((await errorOf(pool.callTool('u1', config, 'echo', { text: 'x' }))).code).toBe('disabled');
    expect(existsSync(config.env!.FIXTURE_MARKER_FILE!)).toBe(false);
  });

  it('keeps users apart: the same server config opens one connection per user', async () => {
    const config = fixtureConfig();
    await pool.getEntries('u1', [config]);
    await pool.getEntries('u2', [config]);
    expect(markerLines(config).filter((line) => line.startsWith('start'))).toHaveLength(2);
    expect(pool.status('u1')).toHaveLength(1);
  });

  it('reconnects when the connection settings change, and closes a server that gets disabled', async () => {
    const config = fixtureConfig();
    await pool.getEntries('u1', [config]);
    const firstPid = pool.status('u1')[0]!.pid!;
    // A rename or a new call timeout keeps the connection; a new environment needs a new process.
    await pool.getEntries('u1', [{ ...config, name: 'renamed', callTimeoutSeconds: 5 }]);
    expect(pool.status('u1')[0]!.pid).toBe(firstPid);
    const changed = { ...config, env: { ...config.env, EXTRA: '1' } };
    await pool.getEntries('u1', [changed]);
    expect(pool.status('u1')[0]).toMatchObject({ connected: true, connectCount: 2 });
    expect(pool.status('u1')[0]!.pid).not.toBe(firstPid);
    await waitFor(() => !isAlive(firstPid), 'the old child to end');

    const secondPid = pool.status('u1')[0]!.pid!;
    const disabled = await pool.getEntries('u1', [{ ...changed, enabled: false }]);
    expect(disabled.statuses[0]).toMatchObject({ state: 'disabled', connected: false });
    await waitFor(() => !isAlive(secondPid), 'the disabled server to end');
  });

  it('refreshes the cached listing on tools/list_changed', async () => {
    const config = fixtureConfig();
    await pool.getEntries('u1', [config]);
    await pool.callTool('u1', config, 'add_tool', {});
    await waitFor(() => pool.status('u1', [config])[0]!.listCount === 2, 'the re-list');
    const names = (await pool.getEntries('u1', [config])).entries.map((entry) => entry.tool.definition.name);
    expect(names).toContain('fixture_added_7');
    expect(markerLines(config).filter((line) => line.startsWith('start'))).toHaveLength(1);
  });

  it('reports a spawn error per server without failing the others', async () => {
    const broken: McpServerConfig = {
      ...fixtureConfig({ id: 'broken', name: 'broken' }),
      command: '/nonexistent/mcp',
    };
    const healthy = fixtureConfig();
    const result = await pool.getEntries('u1', [broken, healthy]);
    expect(result.entries.some((entry) => entry.tool.definition.name.startsWith('broken_'))).toBe(false);
    expect(result.entries.some((entry) => entry.tool.definition.name === 'fixture_echo')).toBe(true);
    expect(result.statuses[0]).toMatchObject({ state: 'failed', connected: false });
    expect(result.statuses[0]!.lastError!.message).toMatch(/ENOENT/);
  });

  it('fails a handshake that never completes and ends that child', async () => {
    const quick = new McpClientPool({ connectTimeoutMs: 300 });
    const config = fixtureConfig({}, 'hang');
    try {
      const result = await quick.getEntries('u1', [config]);
      expect(result.entries).toEqual([]);
      expect(result.statuses[0]!.lastError!.message).toMatch(/handshake|timed out/i);
      const pid = Number(markerLines(config)[0]!.split(' ')[1]);
      await waitFor(() => !isAlive(pid), 'the hanging child to end');
    } finally {
      await quick.close();
    }
  });

  it('reports a crash mid-call as a failed call and reconnects on the next use', async () => {
    const config = fixtureConfig();
    await pool.getEntries('u1', [config]);
    const failure = await errorOf(pool.callTool('u1', config, 'crash', {}));
    expect(failure.code).toBe('execution_failed');
    expect(failure.message).toMatch(/closed the connection/);
    expect(pool.status('u1', [config])[0]).toMatchObject({ connected: false, state: 'failed' });

    const echoed = await pool.callTool('u1', config, 'echo', { text: 'again' });
    expect(echoed.content).toEqual([{ type: 'text', text: 'again' }]);
    expect(markerLines(config).filter((line) => line.startsWith('start'))).toHaveLength(2);
    expect(pool.status('u1', [config])[0]).toMatchObject({ connected: true, connectCount: 2 });
  });

  it('fails a call past its timeout, and lets progress extend it', async () => {
    const config = fixtureConfig();
    const timedOut = await errorOf(pool.callTool('u1', config, 'slow', { ms: 1_000 }, { timeoutMs: 200 }));
    expect(timedOut.code).toBe('timeout');
    expect(pool.status('u1', [config])[0]!.lastError!.message).toMatch(/did not answer/);

    const progress: number[] = [];
    const result = await pool.callTool(
      'u1',
      config,
      'slow',
      { ms: 900, intervalMs: 50 },
      { timeoutMs: 400, onProgress: (update) => progress.push(update.progress) },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'slept 900' }]);
    expect(progress.length).toBeGreaterThan(3);
  });

  it('ends every stdio child on close()', async () => {
    const configs = [fixtureConfig({ id: 'a', name: 'a' }), fixtureConfig({ id: 'b', name: 'b' })];
    await pool.getEntries('u1', configs);
    const pids = pool.status('u1').map((status) => status.pid!);
    expect(pids).toHaveLength(2);
    expect(pids.every(isAlive)).toBe(true);
    await pool.close();
    await waitFor(() => pids.every((pid) => !isAlive(pid)), 'children to end');
    await expect(pool.getEntries('u1', configs)).rejects.toThrow(/closed/);
  });
});

describe('MCP-1 a server that is slow, silent or broken does not stall its user', () => {
  it('answers a listing while a server that never answers its handshake is still connecting', async () => {
    // `node` with no arguments reads a script from its (piped) stdin and never speaks MCP.
    const silent: McpServerConfig = {
      id: 'silent',
      name: 'silent',
      enabled: true,
      transport: 'stdio',
      command: process.execPath,
    };
    const patient = new McpClientPool({ connectTimeoutMs: 30_000, listingWaitMs: 100 });
    try {
      const first = await patient.getEntries('u1', [silent]);
      expect(first.entries).toEqual([]);
      expect(first.statuses[0]).toMatchObject({ state: 'connecting', connected: false });
      // The attempt is past its listing budget: a second listing does not wait for it at all.
      const second = await patient.getEntries('u1', [silent]);
      expect(second.statuses[0]).toMatchObject({ state: 'connecting', connectCount: 0 });
    } finally {
      await patient.close();
    }
  });

  it("fails a handshake after the server's own connectTimeoutSeconds, then backs off without respawning", async () => {
    const config = fixtureConfig({ connectTimeoutSeconds: 1 }, 'hang');
    const backingOff = new McpClientPool({ listingWaitMs: 50, retryDelayMs: 60_000 });
    try {
      await backingOff.getEntries('u1', [config]);
      await waitFor(() => backingOff.status('u1', [config])[0]!.state === 'failed', 'the handshake to fail');
      const failed = backingOff.status('u1', [config])[0]!;
      expect(failed.lastError!.message).toMatch(/within 1 s/);
      expect(failed.consecutiveFailures).toBe(1);
      expect(Date.parse(failed.retryAt!)).toBeGreaterThan(Date.now());

      const again = await backingOff.getEntries('u1', [config]);
      expect(again.entries).toEqual([]);
      expect(again.statuses[0]).toMatchObject({ state: 'failed', retryAt: failed.retryAt });
      const call = await errorOf(backingOff.callTool('u1', config, 'echo', { text: 'x' }));
      expect(call.message).toMatch(/unavailable .*within 1 s.*next attempt/);
      expect(markerLines(config).filter((line) => line.startsWith('start'))).toHaveLength(1);
    } finally {
      await backingOff.close();
    }
  });

  it('retries once the backoff passed, doubling the delay after another failure', async () => {
    const config = fixtureConfig({ connectTimeoutSeconds: 1 }, 'hang');
    const retrying = new McpClientPool({ listingWaitMs: 5_000, retryDelayMs: 200 });
    try {
      await retrying.getEntries('u1', [config]);
      expect(retrying.status('u1', [config])[0]).toMatchObject({ state: 'failed', consecutiveFailures: 1 });
      await waitFor(() => retrying.status('u1', [config])[0]!.retryAt === undefined, 'the backoff to pass');
      await retrying.getEntries('u1', [config]);
      const status = retrying.status('u1', [config])[0]!;
      expect(status).toMatchObject({ state: 'failed', consecutiveFailures: 2 });
      expect(markerLines(config).filter((line) => line.startsWith('start'))).toHaveLength(2);
    } finally {
      await retrying.close();
    }
  });

  it('connects in the background: a server ready after the listing budget joins the next listing', async () => {
    const config = fixtureConfig();
    const quick = new McpClientPool({ listingWaitMs: 1 });
    try {
      const first = await quick.getEntries('u1', [config]);
      expect(first.entries).toEqual([]);
      await waitFor(() => quick.status('u1', [config])[0]!.toolCount === 7, 'the background listing');
      const next = await quick.getEntries('u1', [config]);
      expect(next.entries.map((entry) => entry.tool.definition.name)).toContain('fixture_echo');
      expect(markerLines(config).filter((line) => line.startsWith('start'))).toHaveLength(1);
    } finally {
      await quick.close();
    }
  });
});

describe('MCP-1 MCP tools in the runtime', () => {
  it('lists an MCP tool in createToolRuntime and executes it through runtime.execute', async () => {
    const config = fixtureConfig();
    const registry = registerBuiltinTools(new ToolRegistry());
    const { entries } = await pool.getEntries('u1', [config], {
      reservedNames: registry.listEntries().map((entry) => entry.tool.definition.name),
    });
    const runtime = createToolRuntime({
      entries: registry.listEntries(),
      extraEntries: entries,
      userId: 'u1',
    });

    const echo = runtime.tools.find((tool) => tool.definition.name === 'fixture_echo');
    expect(echo).toMatchObject({ source: { kind: 'mcp', origin: 'mcp:fixture' } });
    expect(echo!.tool.annotations).toEqual({ readOnlyHint: true });
    expect(runtime.tools.some((tool) => tool.definition.name === 'get_current_datetime')).toBe(true);

    const ok = await runtime.execute({ toolName: 'fixture_echo', arguments: '{"text":"hello"}' });
    expect(ok).toMatchObject({ ok: true, result: 'hello', output: 'hello' });

    // The tool's own failure (isError) reaches the model as a readable tool error.
    const toolError = await runtime.execute({ toolName: 'fixture_fail', arguments: {} });
    expect(toolError).toMatchObject({ ok: false, error: { code: 'execution_failed' } });
    expect(!toolError.ok && toolError.error.message).toBe('boom: the input was rejected');
    expect(toolError.output).toContain('boom: the input was rejected');

    // A protocol error is a failed call naming the server.
    const protocolError = await runtime.execute({ toolName: 'fixture_protocol_error', arguments: {} });
    expect(protocolError).toMatchObject({ ok: false, error: { code: 'execution_failed' } });
    expect(!protocolError.ok && protocolError.error.message).toMatch(/fixture failed the call.*refuses/);

    // Arguments are validated by core against the server's schema before the server sees them.
    const invalid = await runtime.execute({ toolName: 'fixture_echo', arguments: { text: 3 } });
    expect(invalid).toMatchObject({ ok: false, error: { code: 'validation_failed' } });

    expect(markerLines(config).filter((line) => line.startsWith('start'))).toHaveLength(1);
  });
});
