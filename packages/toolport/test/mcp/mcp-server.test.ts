import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolportError } from '../../src/core/errors.ts';
import { toolFailure } from '../../src/core/execute-tool.ts';
import { ToolRegistry } from '../../src/core/tool-registry.ts';
import { createToolRuntime, type ToolRuntime } from '../../src/core/tool-runtime.ts';
import { defineTool, type RegisteredTool } from '../../src/core/tool-types.ts';
import { runCli } from '../../src/cli/main.ts';
import { useMcpTestTransports } from '../support/mcp-test-transports.ts';

const execFileAsync = promisify(execFile);
const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(PACKAGE_ROOT, 'bin/toolport.js');
const INSPECTOR = fileURLToPath(
  import.meta.resolve('@modelcontextprotocol/inspector/package.json').replace(/package\.json$/, '') +
    'clients/launcher/build/index.js',
);

const settings = (title: string, enabledByDefault = true): RegisteredTool['settings'] => ({
  title,
  description: title,
  category: 'interaction',
  enabledByDefault,
  canDisable: true,
  defaultParameters: {},
  parameterDescriptors: [],
});
const objectSchema = (properties: Record<string, unknown> = {}, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

const cancelledCalls: string[] = [];

function testRuntime(userId = 'u1'): ToolRuntime {
  const registry = new ToolRegistry();
  registry.register(
    defineTool<{ text: string }>({
      definition: {
        name: 'shout',
        description: 'Upper-cases text.',
        parameters: objectSchema({ text: { type: 'string', minLength: 1 } }, ['text']),
      },
      settings: settings('Shout'),
      annotations: { readOnlyHint: true, destructiveHint: false },
      execute: async ({ text }) => ({ text: text.toUpperCase() }),
    }),
  );
  registry.register(
    defineTool({
      definition: { name: 'wipe', description: 'Refuses to wipe.', parameters: objectSchema() },
      settings: settings('Wipe'),
      annotations: { destructiveHint: true },
      execute: async () => {
        throw toolFailure('wipe refused: nothing to wipe');
      },
    }),
  );
  registry.register(
    defineTool<{ key: string }>({
      definition: {
        name: 'lookup',
        description: 'Finds nothing, like read_file on a missing file.',
        parameters: objectSchema({ key: { type: 'string' } }, ['key']),
      },
      settings: settings('Lookup'),
      execute: async ({ key }) => {
        throw new ToolportError('not_found', `No entry ${key}.`);
      },
    }),
  );
  registry.register(
    defineTool({
      definition: { name: 'count', description: 'Reports progress.', parameters: objectSchema() },
      settings: settings('Count'),
      execute: async (_args, context) => {
        for (let step = 1; step <= 3; step += 1) {
          context.reportProgress({ progress: step, total: 3, message: `step ${step}` });
          // Further apart than the progress throttle (100 ms), so every step is sent.
          await new Promise((resolve) => setTimeout(resolve, 110));
        }
        return 'counted';
      },
    }),
  );
  registry.register(
    defineTool({
      definition: { name: 'wait', description: 'Waits until cancelled.', parameters: objectSchema() },
      settings: settings('Wait'),
      execute: async (_args, context) => {
        await new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve()));
        cancelledCalls.push(context.callId);
        return 'cancelled';
      },
    }),
  );
  registry.register(
    defineTool({
      definition: { name: 'hidden', description: 'Disabled by default.', parameters: objectSchema() },
      settings: settings('Hidden', false),
      execute: async () => 'should not run',
    }),
  );
  return createToolRuntime({ entries: registry.listEntries(), userId });
}

const TOKEN = 'test-token-123';
const mcp = useMcpTestTransports(testRuntime, TOKEN);

for (const [label, makeTransport] of Object.entries(mcp.transports)) {
  describe(`MCP-2 toolport as an MCP server over ${label}`, () => {
    let client: Client;
    beforeAll(async () => {
      client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(makeTransport());
    });
    afterAll(async () => {
      await client.close();
    });

    it('lists the enabled tools with their JSON Schemas and annotations', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['count', 'lookup', 'shout', 'wait', 'wipe']);
      const shout = tools.find((tool) => tool.name === 'shout')!;
      expect(shout.inputSchema).toEqual(objectSchema({ text: { type: 'string', minLength: 1 } }, ['text']));
      expect(shout.annotations).toEqual({ title: 'Shout', readOnlyHint: true, destructiveHint: false });
      expect(tools.find((tool) => tool.name === 'wipe')!.annotations).toMatchObject({
        destructiveHint: true,
      });
    });

    it('calls a tool and returns its result as text and structured content', async () => {
      const result = await client.callTool({ name: 'shout', arguments: { text: 'hi' } });
      expect(result.isError).toBeFalsy();
      expect(result.content).toEqual([{ type: 'text', text: '{"text":"HI"}' }]);
      expect(result.structuredContent).toEqual({ text: 'HI' });
    });

    it("returns a tool's failure and invalid arguments as isError results", async () => {
      const failed = await client.callTool({ name: 'wipe', arguments: {} });
      expect(failed.isError).toBe(true);
      expect(JSON.stringify(failed.content)).toContain('wipe refused: nothing to wipe');
      const invalid = await client.callTool({ name: 'shout', arguments: { text: 7 } });
      expect(invalid.isError).toBe(true);
      expect(JSON.stringify(invalid.content)).toContain('validation_failed');
    });

    it('answers unknown and disabled tools with a protocol error', async () => {
      for (const name of ['nope', 'hidden']) {
        const error = await client.callTool({ name, arguments: {} }).then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect(error).toBeInstanceOf(McpError);
        expect((error as McpError).code).toBe(-32602);
        // The client adds the "MCP error -32602:" prefix once; the server's message must not carry it already.
        expect((error as McpError).message).toMatch(
          new RegExp(`^MCP error -32602: Unknown tool: ${name}\\.`),
        );
      }
    });

    it("answers a tool's own not_found as an isError result with its code and message, not as an unknown tool", async () => {
      const result = await client.callTool({ name: 'lookup', arguments: { key: 'k1' } });
      expect(result.isError).toBe(true);
      const text = (result.content as Array<{ type: string; text: string }>)[0]!.text;
      expect(JSON.parse(text)).toMatchObject({ error: { code: 'not_found', message: 'No entry k1.' } });
    });

    it('forwards progress to a client that asked for it', async () => {
      const updates: Array<{ progress: number; message?: string }> = [];
      const result = await client.callTool({ name: 'count', arguments: {} }, undefined, {
        onprogress: (progress) => updates.push(progress),
      });
      expect(result.content).toEqual([{ type: 'text', text: 'counted' }]);
      expect(updates.map((update) => update.progress)).toEqual([1, 2, 3]);
      expect(updates[2]).toMatchObject({ total: 3, message: 'step 3' });
    });

    it("aborts the tool's signal when the client cancels the call", async () => {
      const before = cancelledCalls.length;
      const controller = new AbortController();
      const call = client.callTool({ name: 'wait', arguments: {} }, undefined, { signal: controller.signal });
      await new Promise((resolve) => setTimeout(resolve, 50));
      controller.abort('user cancelled');
      await expect(call).rejects.toThrow();
      for (let attempt = 0; attempt < 100 && cancelledCalls.length === before; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(cancelledCalls.length).toBe(before + 1);
    });
  });
}

function rawPost(headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      mcp.url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
  });
}

describe('MCP-2 Streamable HTTP handler guards', () => {
  it('refuses a request without a valid bearer token', async () => {
    expect((await rawPost({})).status).toBe(401);
    expect((await rawPost({ authorization: 'Bearer wrong' })).status).toBe(401);
  });

  it('refuses a foreign Host or Origin (DNS-rebinding protection)', async () => {
    const authorization = `Bearer ${TOKEN}`;
    expect((await rawPost({ authorization, host: 'evil.example' })).status).toBe(403);
    expect((await rawPost({ authorization, origin: 'http://evil.example' })).status).toBe(403);
    expect((await rawPost({ authorization, origin: `http://localhost:${mcp.url.port}` })).status).not.toBe(
      403,
    );
  });
});

describe('CLI-1 toolport mcp usage', () => {
  it.each([[['mcp', '--workdir', '/nonexistent/toolport-dir']], [['mcp', '--bogus']]])(
    'exits 2 on bad usage: %j',
    async (argv) => {
      let stderr = '';
      const io = {
        stdout: () => {},
        stderr: (text: string) => (stderr += text),
        cwd: process.cwd(),
        env: {},
      };
      expect(await runCli(argv, io)).toBe(2);
      expect(stderr).toMatch(/toolport:/);
    },
  );
});

describe('MCP-2 toolport mcp (the real bin over stdio)', () => {
  beforeAll(() => {
    if (!existsSync(join(PACKAGE_ROOT, 'dist/cli/mcp-command.js'))) {
      throw new Error('dist/ is missing or stale: run `npm run build` (npm test builds first).');
    }
  });

  it('serves the built-ins to the official SDK client', async () => {
    const workdir = mkdtempSync(join(tmpdir(), 'toolport-mcp-bin-'));
    const client = new Client({ name: 'test', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--workdir', workdir],
      stderr: 'pipe',
    });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('get_current_datetime');
      const result = await client.callTool({ name: 'get_current_datetime', arguments: { timezone: 'UTC' } });
      expect(result.structuredContent).toMatchObject({ timezone: 'UTC' });
      // read_file's own not_found is the tool's outcome (isError), not "Unknown tool: read_file".
      const missing = await client.callTool({ name: 'read_file', arguments: { path: 'missing.txt' } });
      expect(missing.isError).toBe(true);
      expect(JSON.stringify(missing.content)).toContain('not_found');
    } finally {
      await client.close();
      rmSync(workdir, { recursive: true, force: true });
    }
  });

  it('answers tools/list without loading the MCP SDK (the cold-start budget)', async () => {
    // Records every bare specifier the process resolves; the stdio path must not pull in the SDK.
    const hook =
      "data:text/javascript,import{registerHooks}from'node:module';registerHooks({resolve(s,c,n){" +
      "if(s.startsWith('@modelcontextprotocol'))process.stderr.write('LOADED '+s+'\\n');return n(s,c)}})";
    const child = spawn(process.execPath, ['--import', hook, BIN, 'mcp'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.stdin.end(
      [
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {} },
        },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      ]
        .map((message) => JSON.stringify(message))
        .join('\n') + '\n',
    );
    expect(await exited).toBe(0);
    const responses = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; result: unknown });
    expect(responses.find((response) => response.id === 2)!.result).toMatchObject({
      tools: expect.arrayContaining([expect.objectContaining({ name: 'get_current_datetime' })]),
    });
    expect(stderr).toContain('serving');
    expect(stderr).not.toContain('LOADED');
  });

  it('is driven by the MCP Inspector CLI: list and call a tool', async () => {
    const home = mkdtempSync(join(tmpdir(), 'toolport-inspector-home-'));
    const environment = { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, 'mcp.json') };
    try {
      const listed = await execFileAsync(
        process.execPath,
        [INSPECTOR, '--cli', process.execPath, BIN, 'mcp', '--method', 'tools/list'],
        { env: environment, timeout: 60_000 },
      );
      expect(JSON.parse(listed.stdout).tools.map((tool: { name: string }) => tool.name)).toContain(
        'get_current_datetime',
      );
      const called = await execFileAsync(
        process.execPath,
        [
          INSPECTOR,
          '--cli',
          process.execPath,
          BIN,
          'mcp',
          '--method',
          'tools/call',
          '--tool-name',
          'get_current_datetime',
          '--tool-arg',
          'timezone=America/Sao_Paulo',
        ],
        { env: environment, timeout: 60_000 },
      );
      expect(JSON.parse(called.stdout).structuredContent).toMatchObject({ timezone: 'America/Sao_Paulo' });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 120_000);
});
