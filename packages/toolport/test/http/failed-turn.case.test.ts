import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolportDatabase } from '../../src/persistence/database.ts';
import type { ProviderName } from '../../src/providers/provider-adapter.ts';
import type { StreamEvent } from '../../src/providers/stream-events.ts';
import { FakeProviderServer } from '../providers/fake-provider-server.ts';
import { scriptStep } from '../providers/scripted-streams.ts';
import { createTestDatabase, TEST_ENGINES, type TestDatabaseTarget } from '../support/test-databases.ts';
import { createTestUser, startTestServer, type TestServer } from '../support/test-server.ts';

type Json = Record<string, unknown>;
type User = Awaited<ReturnType<typeof createTestUser>>;

const ERROR_BODIES: Record<string, unknown> = {
  'openai-chat': { error: { message: 'Overloaded', type: 'server_error', param: null, code: null } },
  openai: { error: { message: 'Overloaded', type: 'server_error', param: null, code: null } },
  anthropic: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
  gemini: { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } },
};

/** The roles of a request's history, tool results folded into the role that carries them on that wire format. */
function roles(provider: ProviderName, body: Json): string[] {
  switch (provider) {
    case 'openai-chat':
      return (body.messages as Json[]).map((message) => String(message.role));
    case 'openai':
      return (body.input as Json[]).map((item) =>
        item.type === 'function_call'
          ? 'assistant'
          : item.type === 'function_call_output'
            ? 'tool'
            : String(item.role),
      );
    case 'anthropic':
      return (body.messages as Json[]).map((message) => String(message.role));
    default:
      return (body.contents as Json[]).map((content) => String(content.role));
  }
}

/** No two user turns in a row, and (where results ride in a user turn) no user text right after tool results. */
function expectAlternation(provider: ProviderName, sequence: string[]): void {
  if (provider === 'anthropic' || provider === 'gemini') {
    const model = provider === 'anthropic' ? 'assistant' : 'model';
    sequence.forEach((role, index) => {
      expect(role, `${sequence.join(',')} at ${index}`).toBe(index % 2 === 0 ? 'user' : model);
    });
    return;
  }
  // Chat Completions and Responses: every user message follows an assistant message (or opens the chat).
  sequence.forEach((role, index) => {
    if (role === 'user' && index > 0) expect(sequence[index - 1], sequence.join(',')).toBe('assistant');
  });
}

describe.each(TEST_ENGINES)('PROV-4 a failed turn leaves a valid history on %s', (engine) => {
  let target: TestDatabaseTarget;
  let database: ToolportDatabase;
  let server: TestServer;
  let fake: FakeProviderServer;
  let alice: User;

  const call = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) => {
    const response = await server.app.inject({
      method,
      url,
      headers: alice.headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: response.statusCode, raw: response.body, json: () => response.json() as Json };
  };

  const turn = async (chatId: string, provider: ProviderName, message: string): Promise<StreamEvent[]> => {
    const response = await call('POST', `/api/chats/${chatId}/turns`, { message, provider });
    expect(response.status, response.raw).toBe(200);
    return response.raw
      .split('\n\n')
      .filter((block) => block.includes('data: '))
      .map((block) => JSON.parse(block.split('data: ')[1]!) as StreamEvent);
  };

  beforeAll(async () => {
    target = await createTestDatabase(engine);
    database = await target.open();
    fake = await FakeProviderServer.start();
    server = await startTestServer(database, { services: { providerMaxRetries: 0 } });
    alice = await createTestUser(server.services, 'alice');
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
    await target?.dispose();
  });

  describe.each(['openai-chat', 'anthropic', 'openai', 'gemini'] as const)('on %s', (provider) => {
    beforeAll(async () => {
      expect(
        (
          await call('PUT', `/api/secrets/KEY_${provider.replace('-', '_')}`, {
            value: 'sk-failed-turn-secret',
          })
        ).status,
      ).toBe(200);
      const created = await call('POST', '/api/providers', {
        name: provider,
        provider,
        baseUrl: fake.baseURLFor(provider),
        defaultModel: 'test-model',
        apiKeySecret: `KEY_${provider.replace('-', '_')}`,
      });
      expect(created.status).toBe(201);
    });

    const newChat = async (): Promise<string> => {
      const created = await call('POST', '/api/chats', {});
      expect(created.status).toBe(201);
      return String(created.json().id);
    };

    it('a turn that failed before any answer is recorded as a failure note; the next turn alternates', async () => {
      const chatId = await newChat();
      fake.enqueue(provider, { payloads: [], status: 529, errorBody: ERROR_BODIES[provider] });
      const failed = await turn(chatId, provider, 'First question');
      expect(failed.map((event) => event.type)).toEqual(['error', 'turn_completed']);

      const transcript = (await call('GET', `/api/chats/${chatId}/messages`)).json().messages as Json[];
      expect(transcript.map((message) => message.role)).toEqual(['user', 'assistant']);
      expect(String(transcript[1]!.content)).toContain('the turn failed');
      expect(String(transcript[1]!.content)).toContain('overloaded');

      fake.enqueue(provider, scriptStep(provider, { text: 'Second answer.' }));
      const since = fake.requests.length;
      const second = await turn(chatId, provider, 'Second question');
      expect(second.at(-1)).toMatchObject({ type: 'turn_completed', stopReason: 'end_turn' });
      const sequence = roles(provider, fake.requests[since]!.body);
      expect(sequence.filter((role) => role === 'user')).toHaveLength(2);
      expectAlternation(provider, sequence);
    });

    it('a turn that failed after a tool call ran keeps the call and its result, then alternates', async () => {
      const chatId = await newChat();
      fake.enqueue(
        provider,
        scriptStep(provider, {
          toolCalls: [{ id: 'call_clock', name: 'get_current_datetime', arguments: '{"timezone":"UTC"}' }],
        }),
      );
      fake.enqueue(provider, { payloads: [], status: 500, errorBody: ERROR_BODIES[provider] });
      const failed = await turn(chatId, provider, 'What time is it?');
      expect(failed.filter((event) => event.type === 'tool_result')).toHaveLength(1);
      expect(failed.at(-1)).toMatchObject({ stopReason: 'error' });

      const transcript = (await call('GET', `/api/chats/${chatId}/messages`)).json().messages as Json[];
      expect(transcript.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);

      fake.enqueue(provider, scriptStep(provider, { text: 'Noon.' }));
      const since = fake.requests.length;
      await turn(chatId, provider, 'Again?');
      const sequence = roles(provider, fake.requests[since]!.body);
      expect(sequence.at(-1)).toBe('user');
      expectAlternation(provider, sequence);
    });

    it('a transcript that already ends on an unanswered user message still replays alternating', async () => {
      const chatId = await newChat();
      // As a turn that failed before failures were recorded left it.
      await server.services.repositories.chatMessages.append(chatId, [
        { role: 'user', content: 'Lost question' },
      ]);
      fake.enqueue(provider, scriptStep(provider, { text: 'Here.' }));
      const since = fake.requests.length;
      await turn(chatId, provider, 'Next question');
      expectAlternation(provider, roles(provider, fake.requests[since]!.body));
    });
  });
});
