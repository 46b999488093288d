import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { runServeCommand } from '../../src/cli/serve-command.ts';
import { survivorsAfterGrace } from '../shell/process-probe.ts';
import { createTestRegistry } from '../support/server-test-tools.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/fixture-server.mjs', import.meta.url));

function captureIo(env: NodeJS.ProcessEnv): CliIo & { err: string[] } {
  const err: string[] = [];
  return { err, stdout: () => {}, stderr: (text) => err.push(text), cwd: process.cwd(), env };
}

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe('MCP-1/MCP-2 on toolport serve', () => {
  it('mounts /mcp behind the bearer token, and ends every stdio child when the server stops', async () => {
    const dataDirectory = mkdtempSync(join(tmpdir(), 'toolport-mcp-serve-'));
    directories.push(dataDirectory);
    const io = captureIo({ TOOLPORT_DATA_DIR: dataDirectory });
    const controller = new AbortController();
    let onListening!: (info: { url: string }) => void;
    const listening = new Promise<{ url: string }>((resolve) => (onListening = resolve));
    const exit = runServeCommand(['--port', '0'], io, controller.signal, {
      registry: createTestRegistry(),
      onListening,
    });
    const { url } = await Promise.race([
      listening,
      exit.then((code) => Promise.reject(new Error(`exited ${code}: ${io.err.join('')}`))),
    ]);
    const token = readFileSync(join(dataDirectory, 'admin-token'), 'utf8').trim();
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown) =>
      (await (
        await fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })
      ).json()) as {
        id: string;
      };

    const markerFile = join(dataDirectory, 'fixture.log');
    await post('/api/mcp-servers', {
      name: 'fixture',
      transport: 'stdio',
      config: { command: process.execPath, args: [FIXTURE], env: { FIXTURE_MARKER_FILE: markerFile } },
    });
    const chat = await post('/api/chats', { title: 'x' });
    const inspected = await fetch(`${url}/api/chats/${chat.id}/capabilities`, { headers });
    expect(inspected.status).toBe(200);
    const pid = Number(/start (\d+)/.exec(readFileSync(markerFile, 'utf8'))?.[1]);
    expect(pid).toBeGreaterThan(0);

    const anonymous = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(anonymous.status).toBe(401);
    const client = new Client({ name: 'serve-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }),
    );
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    await client.close();
    expect(names).toContain('fixture_echo');
    expect(readFileSync(markerFile, 'utf8').match(/^start/gm)).toHaveLength(1);

    controller.abort();
    expect(await exit).toBe(0);
    expect(await survivorsAfterGrace([pid])).toEqual([]);
  });

  it('exits 1 with one line for a malformed TOOLPORT_OUTBOUND_ALLOW', async () => {
    const dataDirectory = mkdtempSync(join(tmpdir(), 'toolport-mcp-serve-'));
    directories.push(dataDirectory);
    const io = captureIo({ TOOLPORT_DATA_DIR: dataDirectory, TOOLPORT_OUTBOUND_ALLOW: '10.0.0.0/40' });
    const code = await runServeCommand(['--port', '0'], io, new AbortController().signal, {
      registry: createTestRegistry(),
    });
    expect(code).toBe(1);
    expect(io.err.join('')).toMatch(
      /^toolport serve: policy is invalid: \/outboundAllow TOOLPORT_OUTBOUND_ALLOW: Invalid CIDR "10\.0\.0\.0\/40"/,
    );
  });
});
