// A stdio MCP server for `bench/mcp.bench.ts`: toolport's lean stdio server and executeTool with one `echo` tool, so
// its round trips compare like for like with server-everything's `echo` (get_current_datetime spends most of its
// time in Intl formatting, which is the tool's cost, not the MCP surface's).
import { ToolRegistry } from '../src/core/tool-registry.ts';
import { createToolRuntime } from '../src/core/tool-runtime.ts';
import { defineTool } from '../src/core/tool-types.ts';
import { serveMcpOverStdio } from '../src/mcp/mcp-stdio-server.ts';

const registry = new ToolRegistry();
registry.register(
  defineTool<{ message: string }>({
    definition: {
      name: 'echo',
      description: 'Echoes back the input string.',
      parameters: {
        type: 'object',
        properties: { message: { type: 'string' } },
        required: ['message'],
        additionalProperties: false,
      },
    },
    settings: {
      title: 'Echo',
      description: 'Echo',
      category: 'interaction',
      enabledByDefault: true,
      canDisable: true,
      defaultParameters: {},
      parameterDescriptors: [],
    },
    execute: async ({ message }) => `Echo: ${message}`,
  }),
);
await serveMcpOverStdio({ runtime: createToolRuntime({ entries: registry.listEntries(), userId: 'bench' }) })
  .closed;
