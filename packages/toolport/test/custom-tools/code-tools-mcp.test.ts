import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, mathTool, type CodeToolSandbox } from './code-tool-harness.ts';

// `toolport mcp` from the built bin (the root `npm test` builds first), spoken to by the official SDK client.
const bin = fileURLToPath(new URL('../../bin/toolport.js', import.meta.url));

let sandbox: CodeToolSandbox;
beforeEach(() => {
  sandbox = createSandbox('toolport-code-mcp-');
});
afterEach(() => sandbox.remove());

/** Resolves on the next `notifications/tools/list_changed`. */
function nextListChanged(client: Client): Promise<void> {
  return new Promise((resolve) =>
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
  );
}

async function connect(): Promise<Client> {
  const client = new Client({ name: 'code-tools-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [bin, 'mcp', '--workdir', sandbox.project],
      env: { PATH: process.env.PATH ?? '', HOME: sandbox.root, XDG_CONFIG_HOME: sandbox.xdg },
      stderr: 'pipe',
    }),
  );
  return client;
}

async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name);
}

describe('CODE-1 toolport mcp with code tools', () => {
  it('an MCP client sees code tools appear, change and go without a restart (tools/list_changed)', async () => {
    const client = await connect();
    try {
      expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
      expect(await toolNames(client)).not.toContain('math_add');

      // The folder does not exist yet when the server starts: the newcomer creates it.
      let changed = nextListChanged(client);
      const file = sandbox.write('project/.toolport/tools/math.ts', mathTool('Add two numbers'));
      await changed;
      expect(await toolNames(client)).toEqual(expect.arrayContaining(['math_add', 'math_multiply']));
      const result = await client.callTool({ name: 'math_add', arguments: { a: 2, b: 3 } });
      expect(result.content).toEqual([{ type: 'text', text: '5' }]);

      changed = nextListChanged(client);
      writeFileSync(file, mathTool('Add two numbers, edited'));
      await changed;
      const listed = (await client.listTools()).tools.find((tool) => tool.name === 'math_add');
      expect(listed?.description).toBe('Add two numbers, edited');

      changed = nextListChanged(client);
      rmSync(file);
      await changed;
      expect(await toolNames(client)).not.toContain('math_add');
    } finally {
      await client.close();
    }
  });

  it('serves the project’s code tools from the start; a broken file hides no other tool', async () => {
    sandbox.write('project/.toolport/tools/math.ts', mathTool('Add two numbers'));
    sandbox.write('project/.toolport/tools/broken.ts', 'export const = 1\n');
    const client = await connect();
    try {
      expect(await toolNames(client)).toEqual(
        expect.arrayContaining(['math_add', 'math_multiply', 'read_file']),
      );
      const result = await client.callTool({ name: 'math_multiply', arguments: { a: 2, b: 3 } });
      expect(result.content).toEqual([{ type: 'text', text: '6' }]);
    } finally {
      await client.close();
    }
  });
});
