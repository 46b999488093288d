import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProviderAdapter } from '../../src/providers/create-provider-adapter.ts';
import { PROVIDER_NAMES, type ProviderName } from '../../src/providers/provider-adapter.ts';
import type { ErrorEvent, StreamEvent } from '../../src/providers/stream-events.ts';
import { FakeProviderServer } from './fake-provider-server.ts';
import { buildRuntime, runTurn } from './loop-helpers.ts';
import { scriptStep } from './scripted-streams.ts';
import { runAgentTurn, startConversation } from '../../src/providers/agent-loop.ts';

type Family = 'openai' | 'anthropic' | 'google';

const FAMILY: Record<ProviderName, Family> = {
  openai: 'openai',
  'openai-chat': 'openai',
  anthropic: 'anthropic',
  gemini: 'google',
  'gemini-interactions': 'google',
};

/** Each provider family's real error body for a status, as their APIs send it. */
function errorBody(family: Family, status: number, type: string, message: string): unknown {
  if (family === 'anthropic') return { type: 'error', error: { type, message } };
  if (family === 'openai') return { error: { message, type, param: null, code: type } };
  return { error: { code: status, message, status: type } };
}

interface ErrorCase {
  status: number;
  expectedType: string;
  retryable: boolean;
  bodies: Record<Family, [type: string, message: string]>;
}

const CASES: ErrorCase[] = [
  {
    status: 429,
    expectedType: 'rate_limited',
    retryable: true,
    bodies: {
      openai: ['rate_limit_exceeded', 'Rate limit reached for test-model on tokens per min (TPM)'],
      anthropic: ['rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'],
      google: ['RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).'],
    },
  },
  {
    status: 529,
    expectedType: 'overloaded',
    retryable: true,
    bodies: {
      openai: ['server_error', 'The engine is currently overloaded, please try again later'],
      anthropic: ['overloaded_error', 'Overloaded'],
      google: ['UNAVAILABLE', 'The model is overloaded. Please try again later.'],
    },
  },
  {
    status: 400,
    expectedType: 'invalid_request',
    retryable: false,
    bodies: {
      openai: ['invalid_request_error', "Invalid schema for function 'add'"],
      anthropic: ['invalid_request_error', 'messages: roles must alternate between "user" and "assistant"'],
      google: ['INVALID_ARGUMENT', '* GenerateContentRequest.contents: contents is not specified'],
    },
  },
  {
    status: 401,
    expectedType: 'authentication',
    retryable: false,
    bodies: {
      openai: ['invalid_api_key', 'Incorrect API key provided: test-key.'],
      anthropic: ['authentication_error', 'invalid x-api-key'],
      google: ['UNAUTHENTICATED', 'Request had invalid authentication credentials.'],
    },
  },
  {
    status: 500,
    expectedType: 'server',
    retryable: true,
    bodies: {
      openai: ['server_error', 'The server had an error while processing your request. Sorry about that!'],
      anthropic: ['api_error', 'Internal server error'],
      google: ['INTERNAL', 'An internal error has occurred. Please retry.'],
    },
  },
];

function errorEventOf(events: readonly StreamEvent[]): ErrorEvent {
  const errors = events.filter((event): event is ErrorEvent => event.type === 'error');
  expect(errors).toHaveLength(1);
  return errors[0]!;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe.each(PROVIDER_NAMES)('PROV-3 provider errors a client can act on: %s', (provider) => {
  let server: FakeProviderServer;
  beforeAll(async () => {
    server = await FakeProviderServer.start();
  });
  afterAll(() => server.close());

  it.each(CASES)('HTTP $status in the provider format → $expectedType', async (errorCase) => {
    const [type, providerMessage] = errorCase.bodies[FAMILY[provider]];
    server.enqueue(provider, {
      payloads: [],
      status: errorCase.status,
      errorBody: errorBody(FAMILY[provider], errorCase.status, type, providerMessage),
    });
    const { events, summary } = await runTurn(server, provider, buildRuntime());
    expect(summary.stopReason).toBe('error');
    const event = errorEventOf(events);
    expect(event).toMatchObject({
      code: 'provider_error',
      status: errorCase.status,
      provider,
      retryable: errorCase.retryable,
      error: {
        provider,
        status: errorCase.status,
        type: errorCase.expectedType,
        retryable: errorCase.retryable,
      },
    });
    expect(event.error!.message).toBe(event.message);
    // Plain words: the provider's own sentence, never its raw JSON body.
    expect(event.message).toContain(providerMessage.replace(/\.$/, ''));
    expect(event.message).not.toContain('{');
    expect(event.message).toContain(`HTTP ${errorCase.status}`);
    expect(events.at(-1)).toMatchObject({ type: 'turn_completed', stopReason: 'error' });
  });

  it('a closed port is a retryable connection error naming the URL tried', async () => {
    const port = await closedPort();
    const baseURL = `http://127.0.0.1:${port}${provider.startsWith('openai') ? '/v1' : ''}`;
    const adapter = createProviderAdapter(provider, {
      model: 'test-model',
      apiKey: 'test-key',
      baseURL,
      maxRetries: 0,
    });
    const runtime = buildRuntime();
    const session = startConversation({ adapter, runtime });
    const events: StreamEvent[] = [];
    for await (const event of runAgentTurn({ session, runtime, userMessage: 'hello' })) events.push(event);
    const event = errorEventOf(events);
    expect(event).toMatchObject({
      code: 'provider_error',
      provider,
      retryable: true,
      error: { provider, type: 'connection', retryable: true, url: baseURL },
    });
    expect(event.status).toBeUndefined();
    expect(event.message).toContain(baseURL);
    expect(event.message).toContain(`is the server at http://127.0.0.1:${port} running?`);
  });
});

describe('PROV-3 a failure mid-stream answers every call announced before it', () => {
  let server: FakeProviderServer;
  beforeAll(async () => {
    server = await FakeProviderServer.start();
  });
  afterAll(() => server.close());

  /** The step's payloads up to (not including) the end of its first tool call, then the provider's stream error. */
  const midStreamFailures: Partial<Record<ProviderName, () => unknown[]>> = {
    anthropic: () => {
      const payloads = scriptStep('anthropic', {
        toolCalls: [{ id: 'toolu_1', name: 'add', arguments: '{"a":1,"b":2}' }],
      });
      return [
        ...payloads.slice(0, 4),
        { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      ];
    },
    openai: () => {
      const payloads = scriptStep('openai', {
        toolCalls: [{ id: 'call_1', name: 'add', arguments: '{"a":1,"b":2}' }],
      });
      return [
        ...payloads.slice(0, 3),
        {
          type: 'response.failed',
          response: {
            id: 'resp_x',
            status: 'failed',
            output: [],
            error: { code: 'server_error', message: 'The model failed to generate a response.' },
          },
        },
      ];
    },
    'openai-chat': () => {
      const payloads = scriptStep('openai-chat', {
        toolCalls: [{ id: 'call_1', name: 'add', arguments: '{"a":1,"b":2}' }],
      });
      return [
        ...payloads.slice(0, 3),
        {
          error: {
            message: 'Upstream provider overloaded',
            type: 'overloaded_error',
            code: 'overloaded_error',
          },
        },
      ];
    },
  };

  it.each(Object.keys(midStreamFailures) as ProviderName[])(
    '%s: the announced call gets a not-run tool_result before the error event',
    async (provider) => {
      server.enqueue(provider, midStreamFailures[provider]!());
      const { events } = await runTurn(server, provider, buildRuntime());
      const started = events.filter((event) => event.type === 'tool_call_started');
      expect(started).toHaveLength(1);
      const results = events.filter((event) => event.type === 'tool_result');
      expect(results).toEqual([
        expect.objectContaining({
          id: started[0]!.id,
          name: 'add',
          error: expect.objectContaining({ code: 'aborted' }),
        }),
      ]);
      const errorIndex = events.findIndex((event) => event.type === 'error');
      expect(events.indexOf(results[0]!)).toBeLessThan(errorIndex);
      const event = errorEventOf(events);
      expect(event).toMatchObject({ code: 'provider_error', provider, retryable: true });
      expect(event.message).not.toContain('{');
    },
  );
});

describe('PROV-4 a cancellation mid-stream answers every call announced before it', () => {
  let server: FakeProviderServer;
  beforeAll(async () => {
    server = await FakeProviderServer.start();
  });
  afterAll(() => server.close());

  it.each(['openai-chat', 'anthropic'] as const)(
    '%s: the announced call gets a not-run tool_result',
    async (provider) => {
      const payloads = scriptStep(provider, {
        toolCalls: [{ id: 'call_1', name: 'add', arguments: '{"a":1,"b":2}' }],
      });
      server.enqueue(provider, { payloads: payloads.slice(0, provider === 'anthropic' ? 3 : 2), hang: true });
      const controller = new AbortController();
      const { events, summary } = await runTurn(server, provider, buildRuntime(), {
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === 'tool_call_started') controller.abort();
        },
      });
      expect(summary.stopReason).toBe('cancelled');
      const started = events.filter((event) => event.type === 'tool_call_started');
      expect(started).toHaveLength(1);
      expect(events.filter((event) => event.type === 'tool_result')).toEqual([
        expect.objectContaining({ id: started[0]!.id, error: expect.objectContaining({ code: 'aborted' }) }),
      ]);
      expect(events.at(-1)).toMatchObject({ type: 'turn_completed', stopReason: 'cancelled' });
    },
  );
});
