import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  EmptyResultSchema,
  LoggingMessageNotificationSchema,
  type LoggingMessageNotification,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/core/tool-registry.ts';
import { createToolRuntime, type ToolRuntime } from '../../src/core/tool-runtime.ts';
import { defineTool, TOOL_LOG_LEVELS, type ToolLogLevel } from '../../src/core/tool-types.ts';
import { useMcpTestTransports } from '../support/mcp-test-transports.ts';
import { createBashTool } from '../../src/tools/bash.ts';

/*
 * MCP-2 logging and progress, end to end: the official SDK client against the lean stdio server and against the
 * Streamable HTTP handler (both on the shared dispatcher), with the real bash tool reporting a long command's stderr lines and output.
 */

function testRuntime(userId = 'u1'): ToolRuntime {
  const registry = new ToolRegistry();
  const bash = createBashTool();
  if (bash === undefined) throw new Error('bash is required for this test');
  registry.register(bash);
  registry.register(
    defineTool({
      definition: {
        name: 'chatter',
        description: 'Logs one line at every level.',
        parameters: { type: 'object', properties: {}, additionalProperties: false },
      },
      settings: {
        title: 'Chatter',
        description: 'Chatter',
        category: 'interaction',
        enabledByDefault: true,
        canDisable: true,
        defaultParameters: {},
        parameterDescriptors: [],
      },
      execute: async (_args, context) => {
        for (const level of TOOL_LOG_LEVELS) context.log(level, `a ${level} line`);
        return 'done';
      },
    }),
  );
  return createToolRuntime({
    entries: registry.listEntries(),
    userId,
    savedSettings: new Map([['bash', { enabled: true }]]),
  });
}

const mcp = useMcpTestTransports(testRuntime, 'logging-test-token');

for (const [label, makeTransport] of Object.entries(mcp.transports)) {
  describe(`MCP-2 logging and progress over ${label}`, () => {
    let client: Client;
    const messages: LoggingMessageNotification['params'][] = [];
    beforeAll(async () => {
      client = new Client({ name: 'test', version: '1.0.0' });
      client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
        messages.push(notification.params);
      });
      await client.connect(makeTransport());
    });
    afterAll(async () => {
      await client.close();
    });

    it('declares the logging capability', () => {
      expect(client.getServerCapabilities()?.logging).toEqual({});
    });

    it('filters log messages by the level set with logging/setLevel', async () => {
      const levelsLogged = async (minimum: ToolLogLevel): Promise<string[]> => {
        messages.length = 0;
        await client.setLoggingLevel(minimum);
        await client.callTool({ name: 'chatter', arguments: {} });
        return messages.map((message) => message.level);
      };
      expect(await levelsLogged('warning')).toEqual(['warning', 'error', 'critical', 'alert', 'emergency']);
      expect(await levelsLogged('debug')).toEqual([...TOOL_LOG_LEVELS]);
      expect(await levelsLogged('emergency')).toEqual(['emergency']);
      expect(messages[0]).toEqual({ level: 'emergency', logger: 'chatter', data: 'a emergency line' });
    });

    it('refuses an unknown level', async () => {
      await expect(
        client.request({ method: 'logging/setLevel', params: { level: 'loud' } }, EmptyResultSchema),
      ).rejects.toMatchObject({ code: -32602 });
    });

    it("sends a long shell command's stderr lines as log messages and its output so far as progress", async () => {
      await client.setLoggingLevel('info');
      messages.length = 0;
      const progress: Progress[] = [];
      const result = await client.callTool(
        {
          name: 'bash',
          arguments: {
            command: 'for i in 1 2 3; do echo "out $i"; echo "err $i" >&2; sleep 0.3; done',
          },
        },
        undefined,
        { onprogress: (update) => progress.push(update) },
      );
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ stdout: 'out 1\nout 2\nout 3\n', exitCode: 0 });
      expect(messages.filter((message) => message.logger === 'bash').map((message) => message.data)).toEqual([
        'err 1',
        'err 2',
        'err 3',
      ]);
      expect(messages.every((message) => message.level === 'info')).toBe(true);
      // The chunks come 300 ms apart, further than the throttle: at least one update per step reaches the client (the
      // SDK client may deliver the very last one after the result, so only a prefix is certain).
      expect(progress.length).toBeGreaterThanOrEqual(2);
      const values = progress.map((update) => update.progress);
      expect(values).toEqual([...values].sort((a, b) => a - b));
      expect(new Set(values).size).toBe(values.length);
      expect(progress[0]?.message).toMatch(/^(out|err) 1$/);
    });
  });
}

describe('MCP-2 /mcp answers as JSON until a notification needs a stream', () => {
  const post = (body: unknown) =>
    fetch(mcp.url, {
      method: 'POST',
      headers: {
        authorization: 'Bearer logging-test-token',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(body),
    });

  it('a batch whose tool logs becomes an SSE stream carrying every answer, the earlier ones included', async () => {
    const response = await post([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'chatter', arguments: {} } },
    ]);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = (await response.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice('data: '.length)) as Record<string, unknown>);
    expect(events.filter((event) => event.method === 'notifications/message').length).toBeGreaterThan(0);
    expect(events.map((event) => event.id).filter((id) => id !== undefined)).toEqual(
      expect.arrayContaining([1, 2]),
    );
  });

  it('a call that logs nothing stays plain JSON', async () => {
    const response = await post({ jsonrpc: '2.0', id: 3, method: 'ping' });
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
  });
});
