import { randomBytes } from 'node:crypto';
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
import { echoAsJson, startLoopbackServer, type LoopbackServer } from '../support/loopback-upstream.ts';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const RUN_CLI = `import { runCli } from ${JSON.stringify(MAIN)}; process.exitCode = await runCli(process.argv.slice(1));`;
const SECRET_KEY = randomBytes(32).toString('base64');

describe('HTTP-1 toolport mcp --user serves the stored user’s HTTP tools', () => {
  let dataDirectory: string;
  let upstream: LoopbackServer;

  beforeAll(async () => {
    upstream = await startLoopbackServer('127.0.0.2', (request, response) => echoAsJson(request, response));
    dataDirectory = mkdtempSync(join(tmpdir(), 'toolport-mcp-http-'));
    const database = openDatabase(`sqlite:${join(dataDirectory, 'toolport.db')}`);
    await migrateDatabase(database);
    const services = createToolportServices({
      database,
      registry: registerBuiltinTools(new ToolRegistry()),
      secretKey: Buffer.from(SECRET_KEY, 'base64'),
    });
    const { user } = await services.tokens.createUser('alice');
    await services.secrets.set(user.id, 'API_TOKEN', 'stored-mode-token-77');
    await services.httpTools.create(
      { id: user.id, isAdmin: false },
      {
        name: 'lookup',
        config: {
          url: `${upstream.origin}/things/{{id}}`,
          method: 'GET',
          parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
          auth: { type: 'bearer', value: '{{API_TOKEN}}' },
        },
      },
    );
    await services.httpTools.close();
    await services.mcp.close();
    await database.close();
  });

  afterAll(async () => {
    await upstream?.close();
    rmSync(dataDirectory, { recursive: true, force: true });
  });

  it('lists and calls it through NET-1 with the stored secret, redacted from the result', async () => {
    const client = new Client({ name: 'test', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--input-type=module', '-e', RUN_CLI, 'mcp', '--data-dir', dataDirectory, '--user', 'alice'],
      env: {
        PATH: process.env.PATH ?? '',
        TOOLPORT_SECRET_KEY: SECRET_KEY,
        TOOLPORT_OUTBOUND_ALLOW: '127.0.0.2',
      },
      stderr: 'pipe',
    });
    try {
      await client.connect(transport);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('lookup');
      const result = await client.callTool({ name: 'lookup', arguments: { id: 'a/b' } });
      expect(result.isError).toBeFalsy();
      expect(upstream.received.at(-1)).toMatchObject({
        url: '/things/a%2Fb',
        headers: { authorization: 'Bearer stored-mode-token-77' },
      });
      expect(JSON.stringify(result)).not.toContain('stored-mode-token-77');
    } finally {
      await client.close();
    }
  });
});
