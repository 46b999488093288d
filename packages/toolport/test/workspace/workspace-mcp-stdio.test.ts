import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/core/tool-registry.ts';
import { migrateDatabase, openDatabase } from '../../src/persistence/database.ts';
import { createToolportServices } from '../../src/services/toolport-services.ts';
import { registerBuiltinTools } from '../../src/tools/index.ts';
import {
  CREATE_TICKET_TOOL,
  createTicketScript,
  createWorkspace,
  startLoopbackServices,
  writeWorkspace,
} from './workspace-fixtures.ts';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
/** The real CLI, from src (Node strips the types): no build needed. */
const RUN_CLI = `import { runCli } from ${JSON.stringify(MAIN)}; process.exitCode = await runCli(process.argv.slice(1));`;
const SECRET_KEY = randomBytes(32).toString('base64');
const TICKET_KEY = 'tk-stdio-1a2b3c4d5e';

type TextContent = { type: string; text: string }[];

async function connect(args: string[], env: Record<string, string> = {}) {
  const client = new Client({ name: 'ws-stdio-test', version: '1.0.0' });
  const changes: number[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes.push(Date.now());
  });
  const logMessages: LoggingMessageNotification['params'][] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    logMessages.push(notification.params);
  });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--input-type=module', '-e', RUN_CLI, 'mcp', ...args],
      env: { PATH: process.env.PATH ?? '', TOOLPORT_OUTBOUND_ALLOW: '127.0.0.1/32', ...env },
      stderr: 'pipe',
    }),
  );
  return { client, changes, logMessages };
}

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('WS-1 toolport mcp --workdir: the MCP workspace surface over stdio (official SDK client)', () => {
  let loopback: Awaited<ReturnType<typeof startLoopbackServices>>;
  let workspace: string;
  let tools: unknown[];

  beforeAll(async () => {
    loopback = await startLoopbackServices();
    tools = [
      CREATE_TICKET_TOOL,
      {
        name: 'echo',
        description: 'Echoes',
        script: 'scripts/echo.js',
        parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
      },
      { name: 'read-secret', description: 'Reads a secret', script: 'scripts/read-secret.js' },
      { name: 'fetch-loopback', description: 'Uses fetch', script: 'scripts/fetch.js' },
    ];
    workspace = createWorkspace(tools, {
      'create-ticket.js': createTicketScript(`${loopback.url}/tickets`),
      'echo.js':
        'async function main() { console.log("echo", g.tool.args.word); return { word: g.tool.args.word }; }',
      'read-secret.js': 'async function main() { return await g.secrets.getSecret("TICKETING_API_KEY"); }',
      'fetch.js': 'async function main() { return await fetch("http://127.0.0.1"); }',
    });
  });
  afterAll(async () => {
    await loopback?.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  it('lists the three meta-tools and each script tool; runs them with origin mcp and logs as a second item', async () => {
    const { client, logMessages } = await connect(['--workdir', workspace]);
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(
        expect.arrayContaining([
          'GetWorkspaceTools',
          'ExecuteWorkspaceTool',
          'ReloadWorkspaceTools',
          'create-ticket',
          'echo',
        ]),
      );
      const listing = await client.callTool({ name: 'GetWorkspaceTools', arguments: {} });
      const listed = listing.structuredContent as { tools: { name: string; parameters: unknown }[] };
      expect(listed.tools.map((tool) => tool.name)).toEqual([
        'create-ticket',
        'echo',
        'read-secret',
        'fetch-loopback',
      ]);
      expect(listed.tools[0]?.parameters).toEqual(CREATE_TICKET_TOOL.parameters);
      expect(JSON.stringify(listing)).not.toContain('TICKETING_API_KEY');

      const echoed = await client.callTool({
        name: 'ExecuteWorkspaceTool',
        arguments: { name: 'echo', args: { word: 'hi' } },
      });
      expect(echoed.structuredContent).toEqual({ word: 'hi' });
      expect((echoed.content as TextContent)[1]).toEqual({ type: 'text', text: 'echo hi\n' });
      const direct = await client.callTool({ name: 'echo', arguments: { word: 'direct' } });
      expect(direct.structuredContent).toEqual({ word: 'direct' });
      // MCP-2: the script's console also reached the client while it ran, as notifications/message.
      expect(logMessages).toContainEqual({ level: 'info', logger: 'echo', data: 'echo direct' });

      const unknown = await client.callTool({ name: 'ExecuteWorkspaceTool', arguments: { name: 'nope' } });
      expect(unknown.isError).toBe(true);
      expect((unknown.content as TextContent)[0]?.text).toContain(
        'create-ticket, echo, read-secret, fetch-loopback',
      );

      const blocked = await client.callTool({ name: 'read-secret', arguments: {} });
      expect(blocked.isError).toBe(true);
      expect((blocked.content as TextContent)[0]?.text).toContain('blocked');
      expect((blocked.content as TextContent)[0]?.text).toContain('origin mcp');

      const fetched = await client.callTool({ name: 'fetch-loopback', arguments: {} });
      expect(fetched.isError).toBe(true);
      expect((fetched.content as TextContent)[0]?.text).toContain('fetch is not defined');

      // No data dir: a tool needing a secret fails before its script runs, saying where secrets come from.
      const before = loopback.requests.length;
      const noSecrets = await client.callTool({
        name: 'create-ticket',
        arguments: { title: 'a', body: 'b' },
      });
      expect(noSecrets.isError).toBe(true);
      expect((noSecrets.content as TextContent)[0]?.text).toContain('--data-dir');
      expect(loopback.requests.length).toBe(before);
      // The server is still up.
      expect(
        (await client.callTool({ name: 'echo', arguments: { word: 'still' } })).structuredContent,
      ).toEqual({ word: 'still' });
    } finally {
      await client.close();
    }
  });

  it('sends list_changed when tools.json changes (watcher) and keeps the last good set on an invalid reload', async () => {
    const { client, changes } = await connect(['--workdir', workspace]);
    try {
      await client.listTools();
      writeWorkspace(workspace, [...tools, { name: 'added', description: 'New', script: 'scripts/echo.js' }]);
      await waitFor(() => changes.length > 0, 'list_changed after the file changed');
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('added');

      writeWorkspace(workspace, [
        ...tools,
        { name: 'broken', description: 'x', script: 'scripts/missing.js' },
      ]);
      const reload = await client.callTool({ name: 'ReloadWorkspaceTools', arguments: {} });
      expect(reload.isError).toBe(true);
      expect((reload.content as TextContent)[0]?.text).toContain('tools[4] (broken) script');
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('added');
      expect(names).not.toContain('broken');
    } finally {
      await client.close();
      writeWorkspace(workspace, tools);
    }
  });

  it("with --data-dir and --user resolves header secrets from that user's store", async () => {
    const dataDirectory = mkdtempSync(join(tmpdir(), 'toolport-ws-mcp-data-'));
    const database = openDatabase(`sqlite:${join(dataDirectory, 'toolport.db')}`);
    await migrateDatabase(database);
    const services = createToolportServices({
      database,
      registry: registerBuiltinTools(new ToolRegistry()),
      secretKey: Buffer.from(SECRET_KEY, 'base64'),
    });
    const { user } = await services.tokens.createUser('carol');
    await services.secrets.set(user.id, 'TICKETING_API_KEY', TICKET_KEY);
    await services.mcp.close();
    await services.workspaceTools.close();
    await database.close();
    const { client } = await connect(
      ['--workdir', workspace, '--data-dir', dataDirectory, '--user', 'carol'],
      {
        TOOLPORT_SECRET_KEY: SECRET_KEY,
      },
    );
    try {
      const before = loopback.requests.length;
      const ticket = await client.callTool({
        name: 'create-ticket',
        arguments: { title: 'stdio', body: 'stored' },
      });
      expect(ticket.structuredContent).toEqual({ ticketId: 'T-1', url: `${loopback.url}/tickets/T-1` });
      expect(loopback.requests[before]?.headers.authorization).toBe(`Bearer ${TICKET_KEY}`);
      expect(JSON.stringify(ticket)).not.toContain(TICKET_KEY);
    } finally {
      await client.close();
      rmSync(dataDirectory, { recursive: true, force: true });
    }
  });

  it('toolport tools run --workdir runs a workspace tool with origin api (the real CLI)', async () => {
    const { spawnSync } = await import('node:child_process');
    const run = (args: string[]) =>
      spawnSync(process.execPath, ['--input-type=module', '-e', RUN_CLI, ...args], {
        encoding: 'utf8',
        env: {
          PATH: process.env.PATH ?? '',
          TOOLPORT_OUTBOUND_ALLOW: '127.0.0.1/32',
          TOOLPORT_STATE_DIR: workspace,
        },
      });
    const echoed = run(['tools', 'run', 'echo', '--workdir', workspace, '--args', '{"word":"cli"}']);
    expect(echoed.status).toBe(0);
    expect(JSON.parse(echoed.stdout)).toEqual({ word: 'cli' });
    expect(echoed.stderr).toContain('echo cli');
    // The published bin (dist/, built by `npm test`) loads isolated-vm's prebuilt binary the same way.
    const bin = spawnSync(
      process.execPath,
      [
        fileURLToPath(new URL('../../bin/toolport.js', import.meta.url)),
        'tools',
        'run',
        'echo',
        '--workdir',
        workspace,
        '--args',
        '{"word":"bin"}',
      ],
      { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', TOOLPORT_STATE_DIR: workspace } },
    );
    expect(bin.stderr).toContain('echo bin');
    expect(JSON.parse(bin.stdout)).toEqual({ word: 'bin' });
    const listed = run(['tools', 'list', '--json', '--workdir', workspace]);
    const entries = (JSON.parse(listed.stdout) as { tools: { name: string; source: string }[] }).tools;
    expect(entries.find((tool) => tool.name === 'echo')).toMatchObject({ source: 'workspace' });
    writeFileSync(
      join(workspace, 'scripts', 'throw.js'),
      'async function main() {\n  throw new Error("nope");\n}',
    );
    writeWorkspace(workspace, [...tools, { name: 'thrower', description: 'x', script: 'scripts/throw.js' }]);
    const thrown = run(['tools', 'run', 'thrower', '--workdir', workspace]);
    expect(thrown.status).toBe(1);
    expect(JSON.parse(thrown.stdout).error.message).toContain('nope (scripts/throw.js:2:');
    writeWorkspace(workspace, tools);
  });
});
