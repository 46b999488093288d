import { createProviderAdapter } from '../../src/providers/create-provider-adapter.ts';
import type { ProviderName, StepOutcome } from '../../src/providers/provider-adapter.ts';
import type { StepEvent } from '../../src/providers/stream-events.ts';
import type { ToolDefinition } from '../../src/core/tool-types.ts';
import type { FakeProviderServer } from './fake-provider-server.ts';

export function adapterFor(server: FakeProviderServer, provider: ProviderName, model = 'test-model') {
  return createProviderAdapter(provider, {
    model,
    apiKey: 'test-key',
    baseURL: server.baseURLFor(provider),
    maxRetries: 0,
  });
}

/** One model call through the real SDK against the fake server: the events and the outcome. */
export async function runStep(
  server: FakeProviderServer,
  provider: ProviderName,
  tools: readonly ToolDefinition[] = [],
): Promise<{ events: StepEvent[]; outcome: StepOutcome }> {
  const session = adapterFor(server, provider).createSession({ tools });
  session.addUserMessage('What is the weather in San Francisco?');
  const events: StepEvent[] = [];
  const generator = session.streamStep();
  for (;;) {
    const next = await generator.next();
    if (next.done === true) return { events, outcome: next.value };
    events.push(next.value);
  }
}
