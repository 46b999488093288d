import { ToolRegistry } from '../../src/core/tool-registry.ts';
import { createToolRuntime, type ToolRuntime } from '../../src/core/tool-runtime.ts';
import { defineTool, type RegisteredTool, type ToolMode } from '../../src/core/tool-types.ts';
import { runAgentTurn, startConversation, type AgentTurnSummary } from '../../src/providers/agent-loop.ts';
import type { ProviderName } from '../../src/providers/provider-adapter.ts';
import type { StreamEvent } from '../../src/providers/stream-events.ts';
import { registerBuiltinTools } from '../../src/tools/index.ts';
import type { FakeProviderServer } from './fake-provider-server.ts';
import { adapterFor } from './run-step.ts';

export const addTool = defineTool<{ a: number; b: number }>({
  definition: {
    name: 'add',
    description: 'Adds two integers.',
    parameters: {
      type: 'object',
      properties: { a: { type: 'integer' }, b: { type: 'integer' } },
      required: ['a', 'b'],
      additionalProperties: false,
    },
  },
  settings: {
    title: 'Add',
    description: 'Adds',
    category: 'interaction',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: {},
    parameterDescriptors: [],
  },
  execute: async ({ a, b }) => ({ sum: a + b }),
});

export function buildRuntime(
  extraTools: readonly RegisteredTool[] = [addTool],
  options: { mode?: ToolMode; workingDirectory?: string } = {},
): ToolRuntime {
  const registry = registerBuiltinTools(new ToolRegistry());
  for (const tool of extraTools) registry.register(tool, { kind: 'custom', origin: 'test' });
  return createToolRuntime({
    entries: registry.listEntries(),
    userId: 'tester',
    chatId: 'chat-1',
    ...options,
  });
}

export async function runTurn(
  server: FakeProviderServer,
  provider: ProviderName,
  runtime: ToolRuntime,
  options: { maxIterations?: number; signal?: AbortSignal; onEvent?: (event: StreamEvent) => void } = {},
): Promise<{ events: StreamEvent[]; summary: AgentTurnSummary }> {
  const session = startConversation({ adapter: adapterFor(server, provider), runtime });
  const events: StreamEvent[] = [];
  const turn = runAgentTurn({ session, runtime, userMessage: 'Do the thing.', ...options });
  for (;;) {
    const next = await turn.next();
    if (next.done === true) return { events, summary: next.value };
    events.push(next.value);
    options.onEvent?.(next.value);
  }
}

/** The tool results a request carries, read from each provider's own message format: [call id or name, output]. */
export function toolResultsIn(
  provider: ProviderName,
  body: Record<string, unknown>,
): Array<[string, string]> {
  switch (provider) {
    case 'openai':
      return (body.input as Array<Record<string, unknown>>)
        .filter((item) => item.type === 'function_call_output')
        .map((item) => [item.call_id as string, item.output as string]);
    case 'openai-chat':
      return (body.messages as Array<Record<string, unknown>>)
        .filter((message) => message.role === 'tool')
        .map((message) => [message.tool_call_id as string, message.content as string]);
    case 'anthropic': {
      const last = (body.messages as Array<{ role: string; content: unknown }>).at(-1)!;
      if (!Array.isArray(last.content)) return [];
      return (last.content as Array<Record<string, unknown>>)
        .filter((block) => block.type === 'tool_result')
        .map((block) => [block.tool_use_id as string, block.content as string]);
    }
    case 'gemini': {
      const last = (body.contents as Array<{ role: string; parts: Array<Record<string, unknown>> }>).at(-1)!;
      return last.parts
        .filter((part) => part.functionResponse !== undefined)
        .map((part) => {
          const response = part.functionResponse as {
            name: string;
            response: { output?: string; error?: string };
          };
          return [response.name, response.response.output ?? response.response.error ?? ''];
        });
    }
    case 'gemini-interactions':
      if (!Array.isArray(body.input)) return [];
      return (body.input as Array<Record<string, unknown>>)
        .filter((step) => step.type === 'function_result')
        .map((step) => [step.call_id as string, step.result as string]);
  }
}
