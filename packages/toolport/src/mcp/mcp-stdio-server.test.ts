import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../core/tool-registry.ts';
import { createToolRuntime } from '../core/tool-runtime.ts';
import { defineTool } from '../core/tool-types.ts';
import { registerBuiltinTools } from '../tools/index.ts';
import { serveMcpOverStdio } from './mcp-stdio-server.ts';

/** Sends raw lines to the lean stdio server and collects the JSON it writes until `count` messages arrived. */
async function exchange(
  lines: string[],
  count: number,
  endAfterWriting = false,
): Promise<Array<Record<string, unknown>>> {
  const input = new PassThrough();
  const output = new PassThrough();
  const registry = registerBuiltinTools(new ToolRegistry());
  registry.register(
    defineTool({
      definition: { name: 'nap', description: 'Sleeps 100 ms.', parameters: { type: 'object' } },
      settings: {
        title: 'Nap',
        description: 'Nap',
        category: 'interaction',
        enabledByDefault: true,
        canDisable: true,
        defaultParameters: {},
        parameterDescriptors: [],
      },
      execute: async () => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        return { napped: true };
      },
    }),
  );
  const runtime = createToolRuntime({ entries: registry.listEntries(), userId: 'u' });
  const server = serveMcpOverStdio({ runtime, input, output });
  const messages: Array<Record<string, unknown>> = [];
  let buffered = '';
  const done = new Promise<void>((resolve) => {
    output.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop()!;
      for (const part of parts) messages.push(JSON.parse(part) as Record<string, unknown>);
      if (messages.length >= count) resolve();
    });
  });
  // Split one message across two writes: framing must not depend on chunk boundaries.
  const text = lines.join('\n') + '\n';
  input.write(text.slice(0, 7));
  input.write(text.slice(7));
  if (endAfterWriting) {
    input.end();
    await server.closed;
    return messages;
  }
  await done;
  input.end();
  await server.closed;
  return messages;
}

describe('MCP-2 lean stdio server protocol', () => {
  it('negotiates the protocol version, answers ping, and refuses what it does not serve', async () => {
    const messages = await exchange(
      [
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '1999-01-01' },
        }),
        JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'initialize',
          params: { protocolVersion: '2024-11-05' },
        }),
        JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }),
        JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'resources/list' }),
        '{not json',
        JSON.stringify({ jsonrpc: '1.0', id: 5, method: 'ping' }),
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
        JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: {} }),
      ],
      7,
    );
    const byId = (id: unknown) => messages.find((message) => message.id === id);
    expect(byId(1)).toMatchObject({ result: { protocolVersion: '2025-11-25', capabilities: { tools: {} } } });
    expect(byId(2)).toMatchObject({ result: { protocolVersion: '2024-11-05' } });
    expect(byId(3)).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    expect(byId(4)).toMatchObject({ error: { code: -32601 } });
    expect(byId(null)).toMatchObject({ error: { code: -32700 } });
    expect(byId(5)).toMatchObject({ error: { code: -32600 } });
    expect(byId(6)).toMatchObject({ error: { code: -32602 } });
  });

  it('answers a call that was in flight when the client closed stdin', async () => {
    const messages = await exchange(
      [
        JSON.stringify({
          jsonrpc: '2.0',
          id: 'a',
          method: 'tools/call',
          params: { name: 'nap', arguments: {} },
        }),
      ],
      1,
      true,
    );
    expect(messages[0]).toMatchObject({ id: 'a', result: { structuredContent: { napped: true } } });
  });
});
