import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/core/tool-registry.ts';
import { migrateDatabase, openDatabase } from '../../src/persistence/database.ts';
import { createToolportServices } from '../../src/services/toolport-services.ts';
import { registerBuiltinTools } from '../../src/tools/index.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/fixture-server.mjs', import.meta.url));
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
/** Runs the CLI from src (Node strips the types), so this test needs no build. */
const RUN_CLI = `import { runCli } from ${JSON.stringify(MAIN)}; process.exitCode = await runCli(process.argv.slice(1));`;
const SECRET_KEY = randomBytes(32).toString('base64');

describe('MCP-2 toolport mcp serving a stored user (--data-dir, --user)', () => {
  let dataDirectory: string;

  beforeAll(async () => {
    dataDirectory = mkdtempSync(join(tmpdir(), 'toolport-mcp-stored-'));
    const database = openDatabase(`sqlite:${join(dataDirectory, 'toolport.db')}`);
    await migrateDatabase(database);
    const services = createToolportServices({
      database,
      registry: registerBuiltinTools(new ToolRegistry()),
      secretKey: Buffer.from(SECRET_KEY, 'base64'),
    });
    const { user } = await services.tokens.createUser('alice');
    await services.toolSettings.update(user, 'get_current_datetime', { enabled: false });
    await services.secrets.set(user.id, 'GREETING', 'hello-from-secret');
    await services.repositories.mcpServers.create(user.id, {
      name: 'fixture',
      transport: 'stdio',
      config: {
        command: process.execPath,
        args: [FIXTURE],
        env: { FIXTURE_MARKER_FILE: join(dataDirectory, 'fixture.log'), UNUSED: '{{GREETING}}' },
      },
    });
    await services.mcp.close();
    await database.close();
  });

  afterAll(() => rmSync(dataDirectory, { recursive: true, force: true }));

  it("lists the user's enabled tools, their MCP servers' tools included, and calls one", async () => {
    const client = new Client({ name: 'test', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--input-type=module', '-e', RUN_CLI, 'mcp', '--data-dir', dataDirectory, '--user', 'alice'],
      env: { PATH: process.env.PATH ?? '', TOOLPORT_SECRET_KEY: SECRET_KEY },
      stderr: 'pipe',
    });
    try {
      await client.connect(transport);
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('fixture_echo');
      expect(names).not.toContain('get_current_datetime');
      const result = await client.callTool({ name: 'fixture_echo', arguments: { text: 'stored' } });
      expect(result.content).toEqual([{ type: 'text', text: 'stored' }]);
    } finally {
      await client.close();
    }
  });

  it('exits 2 naming the user when there is no such user', () => {
    const result = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', RUN_CLI, 'mcp', '--data-dir', dataDirectory, '--user', 'nobody'],
      { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', TOOLPORT_SECRET_KEY: SECRET_KEY }, input: '' },
    );
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('no user named "nobody"');
  });
});
