import { chownSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolportDatabase } from '../../src/persistence/database.ts';
import type { ProviderName } from '../../src/providers/provider-adapter.ts';
import type { StreamEvent } from '../../src/providers/stream-events.ts';
import { FakeProviderServer, type RecordedRequest } from '../providers/fake-provider-server.ts';
import { scriptStep } from '../providers/scripted-streams.ts';
import { killCarrying, probeToken, survivorsCarrying, waitForLines } from '../shell/process-probe.ts';
import { createTestDatabase, TEST_ENGINES, type TestDatabaseTarget } from '../support/test-databases.ts';
import { createTestUser, startTestServer, type TestServer } from '../support/test-server.ts';

type Json = Record<string, unknown>;
type User = Awaited<ReturnType<typeof createTestUser>>;

// A real 1x1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/** Parses a `text/event-stream` body into its PROV-3 events, checking each event name matches its data's type. */
function parseSse(body: string): StreamEvent[] {
  return body
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const name = lines.find((line) => line.startsWith('event: '))?.slice('event: '.length);
      const data = lines.find((line) => line.startsWith('data: '))?.slice('data: '.length);
      const event = JSON.parse(data ?? 'null') as StreamEvent;
      expect(event.type).toBe(name);
      return event;
    });
}

/** What the provider received as history, reduced to comparable shapes per wire format. */
function historyShape(provider: ProviderName, body: Json): string[] {
  switch (provider) {
    case 'openai-chat':
      return (body.messages as Json[]).map((message) =>
        message.role === 'tool'
          ? `tool:${String(message.tool_call_id)}`
          : `${String(message.role)}${message.tool_calls ? ':calls' : ''}`,
      );
    case 'anthropic':
      return (body.messages as Json[]).map(
        (message) =>
          `${String(message.role)}:${
            typeof message.content === 'string'
              ? 'text'
              : (message.content as Json[]).map((block) => String(block.type)).join('+')
          }`,
      );
    case 'openai':
      return (body.input as Json[]).map((item) =>
        item.type === undefined ? String(item.role) : `${String(item.type)}`,
      );
    default:
      return (body.contents as Json[]).map(
        (content) =>
          `${String(content.role)}:${(content.parts as Json[])
            .map((part) => (part.functionCall ? 'call' : part.functionResponse ? 'response' : 'text'))
            .join('+')}`,
      );
  }
}

const EXPECTED_HISTORY: Record<string, string[]> = {
  'openai-chat': ['system', 'user', 'assistant:calls', 'tool:call_clock', 'assistant', 'user'],
  anthropic: ['user:text', 'assistant:tool_use', 'user:tool_result', 'assistant:text', 'user:text'],
  openai: ['user', 'function_call', 'function_call_output', 'assistant', 'user'],
  gemini: ['user:text', 'model:call', 'user:response', 'model:text', 'user:text'],
};

describe.each(TEST_ENGINES)(
  'PROV-4 chat turns, provider configurations and images over HTTP on %s',
  (engine) => {
    let target: TestDatabaseTarget;
    let database: ToolportDatabase;
    let server: TestServer;
    let fake: FakeProviderServer;
    let alice: User;
    let bob: User;
    let workdir: string;

    const call = async (
      method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
      url: string,
      who: User,
      payload?: unknown,
    ) => {
      const response = await server.app.inject({
        method,
        url,
        headers: who.headers,
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
      return {
        status: response.statusCode,
        headers: response.headers,
        raw: response.body,
        rawPayload: response.rawPayload,
        body: (response.body === '' || !String(response.headers['content-type']).includes('json')
          ? {}
          : response.json()) as Json,
      };
    };

    const configure = async (
      who: User,
      provider: ProviderName,
      secretValue: string,
      name: string = provider,
    ) => {
      const secretName = `KEY_${name.replaceAll('-', '_')}`;
      expect((await call('PUT', `/api/secrets/${secretName}`, who, { value: secretValue })).status).toBe(200);
      const created = await call('POST', '/api/providers', who, {
        name,
        provider,
        baseUrl: fake.baseURLFor(provider),
        defaultModel: 'test-model',
        apiKeySecret: secretName,
      });
      expect(created.status).toBe(201);
      return created.body;
    };

    const newChat = async (who: User, payload: Json = {}) => {
      const created = await call('POST', '/api/chats', who, payload);
      expect(created.status).toBe(201);
      return String(created.body.id);
    };

    const turn = async (who: User, chatId: string, payload: Json) => {
      const response = await call('POST', `/api/chats/${chatId}/turns`, who, payload);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toContain('text/event-stream');
      return parseSse(response.raw);
    };

    const requestsFor = (format: string, since: number): RecordedRequest[] =>
      fake.requests.slice(since).filter((recorded) => recorded.format === format);

    beforeAll(async () => {
      target = await createTestDatabase(engine);
      database = await target.open();
      fake = await FakeProviderServer.start();
      server = await startTestServer(database, { services: { providerMaxRetries: 0 } });
      alice = await createTestUser(server.services, 'alice');
      bob = await createTestUser(server.services, 'bob');
      workdir = realpathSync(mkdtempSync(join(tmpdir(), 'toolport-turn-')));
      // As root, sandboxed shells run as the working directory's owner: hand it to an unprivileged account.
      if (process.getuid?.() === 0) chownSync(workdir, 65534, 65534);
    });
    afterAll(async () => {
      await server?.close();
      await fake?.close();
      await target?.dispose();
      rmSync(workdir, { recursive: true, force: true });
    });

    describe('provider configurations', () => {
      it('creates, lists, updates and deletes; the API key is a secret reference and never returned', async () => {
        const user = await createTestUser(server.services, 'carol');
        const secret = 'sk-carol-very-secret-value';
        const created = await configure(user, 'anthropic', secret, 'claude');
        expect(created).toMatchObject({
          name: 'claude',
          provider: 'anthropic',
          defaultModel: 'test-model',
          apiKeySecret: 'KEY_claude',
        });
        const listed = await call('GET', '/api/providers', user);
        expect(listed.body.providers).toEqual([created]);
        const patched = await call('PATCH', `/api/providers/${String(created.id)}`, user, {
          defaultModel: 'claude-sonnet-4-5',
          baseUrl: null,
        });
        expect(patched.body).toMatchObject({
          defaultModel: 'claude-sonnet-4-5',
          baseUrl: null,
          name: 'claude',
        });
        for (const response of [
          listed,
          patched,
          await call('GET', `/api/providers/${String(created.id)}`, user),
        ])
          expect(response.raw).not.toContain(secret);

        expect(
          (
            await call('POST', '/api/providers', user, {
              name: 'claude',
              provider: 'openai',
              defaultModel: 'x',
            })
          ).status,
        ).toBe(409);
        expect(
          (await call('POST', '/api/providers', user, { provider: 'cohere', defaultModel: 'x' })).status,
        ).toBe(400);
        const badUrl = await call('POST', '/api/providers', user, {
          provider: 'openai',
          defaultModel: 'x',
          baseUrl: 'ftp://x',
        });
        expect(badUrl.status).toBe(422);
        const apiKeyInBody = await call('POST', '/api/providers', user, {
          provider: 'openai',
          defaultModel: 'x',
          apiKey: 'sk-1',
        });
        expect(apiKeyInBody.status).toBe(400);

        expect((await call('DELETE', `/api/providers/${String(created.id)}`, user)).status).toBe(204);
        expect((await call('GET', '/api/providers', user)).body.providers).toEqual([]);
      });

      it("answers 404 for another user's configuration (AUTH-1)", async () => {
        const owner = await createTestUser(server.services, 'dave');
        const created = await configure(owner, 'openai', 'sk-dave-secret-value');
        const url = `/api/providers/${String(created.id)}`;
        expect((await call('GET', url, bob)).status).toBe(404);
        expect((await call('PATCH', url, bob, { defaultModel: 'stolen' })).status).toBe(404);
        expect((await call('DELETE', url, bob)).status).toBe(404);
        expect((await call('GET', '/api/providers', bob)).body.providers).toEqual([]);
        expect((await call('GET', url, owner)).body).toMatchObject({ defaultModel: 'test-model' });
      });

      it('a turn without a usable provider fails with a JSON error before any stream starts', async () => {
        const user = await createTestUser(server.services, 'erin');
        const chatId = await newChat(user);
        const none = await call('POST', `/api/chats/${chatId}/turns`, user, { message: 'hi' });
        expect(none.status).toBe(422);
        expect(none.body).toMatchObject({ error: { code: 'validation_failed' } });
        await call('POST', '/api/providers', user, {
          provider: 'anthropic',
          defaultModel: 'm',
          apiKeySecret: 'MISSING',
        });
        const missing = await call('POST', `/api/chats/${chatId}/turns`, user, { message: 'hi' });
        expect(missing.status).toBe(422);
        expect(JSON.stringify(missing.body)).toContain('MISSING');
      });

      it('lists the new routes in the OpenAPI document', async () => {
        const document = await call('GET', '/api/openapi.json', alice);
        const paths = Object.keys(document.body.paths as Json);
        for (const path of [
          '/api/providers',
          '/api/providers/{providerId}',
          '/api/chats/{chatId}/turns',
          '/api/chats/{chatId}/messages',
          '/api/images/{imageId}',
        ])
          expect(paths).toContain(path);
      });
    });

    describe.each(['openai-chat', 'anthropic', 'openai', 'gemini'] as const)('a turn on %s', (provider) => {
      const secret = `sk-alice-${provider}-secret`;
      let chatId: string;

      beforeAll(async () => {
        await configure(alice, provider, secret);
        chatId = await newChat(alice, { workingDirectory: workdir });
      });

      it('streams a scripted tool-call turn as SSE with the key from the user’s secrets, and persists the transcript', async () => {
        const since = fake.requests.length;
        fake.enqueue(
          provider,
          scriptStep(provider, {
            toolCalls: [{ id: 'call_clock', name: 'get_current_datetime', arguments: '{"timezone":"UTC"}' }],
          }),
        );
        fake.enqueue(provider, scriptStep(provider, { text: 'It is now.' }));
        const events = await turn(alice, chatId, { message: 'What time is it?', provider });

        const types = events.map((event) => event.type);
        expect(types).toContain('tool_call_started');
        expect(types).toContain('tool_call_completed');
        expect(types.at(-1)).toBe('turn_completed');
        const result = events.find((event) => event.type === 'tool_result');
        expect(result).toMatchObject({ name: 'get_current_datetime', result: expect.any(Object) });
        expect(result).not.toHaveProperty('error');
        expect(events.at(-1)).toMatchObject({ stopReason: 'end_turn', iterations: 2 });
        expect(events.flatMap((event) => (event.type === 'text_delta' ? [event.delta] : [])).join('')).toBe(
          'It is now.',
        );

        const requests = requestsFor(provider, since);
        expect(requests).toHaveLength(2);
        expect(requests.map((recorded) => recorded.apiKey)).toEqual([secret, secret]);
        expect(requests[0]!.body.model ?? requests[0]!.path).toContain('test-model');
        // Agent mode (PATH-1): the chat's working directory is announced in the system prompt.
        expect(JSON.stringify(requests[0]!.body)).toContain(`Working directory: ${workdir}`);

        const transcript = await call('GET', `/api/chats/${chatId}/messages`, alice);
        expect(transcript.status).toBe(200);
        const messages = transcript.body.messages as Json[];
        expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
        expect(messages[0]).toMatchObject({ content: 'What time is it?', position: 0 });
        const callId = (result as { id: string }).id;
        expect(messages[1]).toMatchObject({
          content: '',
          toolCalls: [{ id: callId, name: 'get_current_datetime', arguments: '{"timezone":"UTC"}' }],
        });
        expect(messages[2]).toMatchObject({
          toolCallId: callId,
          toolName: 'get_current_datetime',
          isError: false,
          content: (result as { output: string }).output,
        });
        expect(messages[3]).toMatchObject({ content: 'It is now.' });
      });

      it('continues the conversation: the next turn sends the prior messages in the provider’s own format', async () => {
        const since = fake.requests.length;
        fake.enqueue(provider, scriptStep(provider, { text: 'Still now.' }));
        const events = await turn(alice, chatId, { message: 'And again?', provider });
        expect(events.at(-1)).toMatchObject({ type: 'turn_completed', stopReason: 'end_turn' });
        const [request] = requestsFor(provider, since);
        expect(historyShape(provider, request!.body)).toEqual(EXPECTED_HISTORY[provider]);
        const sent = JSON.stringify(request!.body);
        for (const text of ['What time is it?', 'It is now.', 'And again?', 'get_current_datetime'])
          expect(sent).toContain(text);
        const messages = (await call('GET', `/api/chats/${chatId}/messages`, alice)).body.messages as Json[];
        expect(messages.map((message) => message.role)).toEqual([
          'user',
          'assistant',
          'tool',
          'assistant',
          'user',
          'assistant',
        ]);
      });

      it("answers 404 to another user for the chat's turns and transcript", async () => {
        const pending = fake.requests.length;
        const turnAttempt = await call('POST', `/api/chats/${chatId}/turns`, bob, { message: 'hi' });
        expect(turnAttempt.status).toBe(404);
        expect(turnAttempt.body).toMatchObject({ error: { code: 'not_found' } });
        expect((await call('GET', `/api/chats/${chatId}/messages`, bob)).status).toBe(404);
        expect(fake.requests.length).toBe(pending);
      });
    });

    it('a call left unanswered by maxIterations is replayed as "not run", so the next turn stays valid', async () => {
      const user = await createTestUser(server.services, 'heidi');
      await configure(user, 'openai-chat', 'sk-heidi-chat-secret');
      const chatId = await newChat(user);
      fake.enqueue(
        'openai-chat',
        scriptStep('openai-chat', {
          toolCalls: [{ id: 'call_late', name: 'get_current_datetime', arguments: '{}' }],
        }),
      );
      const first = await turn(user, chatId, { message: 'time?', maxIterations: 1 });
      expect(first.at(-1)).toMatchObject({ type: 'turn_completed', stopReason: 'max_iterations' });
      const stored = (await call('GET', `/api/chats/${chatId}/messages`, user)).body.messages as Json[];
      expect(stored.map((message) => message.role)).toEqual(['user', 'assistant']);

      const since = fake.requests.length;
      fake.enqueue('openai-chat', scriptStep('openai-chat', { text: 'Sorry.' }));
      const second = await turn(user, chatId, { message: 'well?' });
      expect(second.at(-1)).toMatchObject({ type: 'turn_completed', stopReason: 'end_turn' });
      const messages = requestsFor('openai-chat', since)[0]!.body.messages as Json[];
      // The unanswered turn is closed by an assistant note, so the new user message follows an assistant one.
      expect(messages.map((message) => message.role)).toEqual([
        'user',
        'assistant',
        'tool',
        'assistant',
        'user',
      ]);
      expect(messages[2]).toMatchObject({ tool_call_id: 'call_late' });
      expect(String(messages[2]!.content)).toContain('Not run');
      expect(String(messages[3]!.content)).toContain('No answer');
    });

    it('IMG-1: generate_image stores images in the database, the result links to them, the owner alone reads them', async () => {
      const user = await createTestUser(server.services, 'frank');
      const openaiSecret = 'sk-frank-images-secret';
      await configure(user, 'openai-chat', 'sk-frank-chat-secret');
      await configure(user, 'openai', openaiSecret);
      expect((await call('PUT', '/api/settings/tools/generate_image', user, { enabled: true })).status).toBe(
        200,
      );
      const chatId = await newChat(user);
      const since = fake.requests.length;
      fake.enqueue(
        'openai-chat',
        scriptStep('openai-chat', {
          toolCalls: [{ id: 'call_img', name: 'generate_image', arguments: '{"prompt":"a lighthouse"}' }],
        }),
      );
      fake.enqueue('openai-images', {
        payloads: [],
        json: { created: 1, output_format: 'png', data: [{ b64_json: PNG.toString('base64') }] },
      });
      fake.enqueue('openai-chat', scriptStep('openai-chat', { text: 'Here it is.' }));
      const events = await turn(user, chatId, { message: 'draw', provider: 'openai-chat' });

      const final = events.find((event) => event.type === 'tool_result' && event.partial !== true) as {
        result: { images: Array<{ id: string; url: string }> };
        output: string;
      };
      const [image] = final.result.images;
      expect(image!.url).toBe(`/api/images/${image!.id}`);
      expect(final.output).toContain(image!.url);
      expect(requestsFor('openai-images', since).map((recorded) => recorded.apiKey)).toEqual([openaiSecret]);

      const served = await call('GET', image!.url, user);
      expect(served.status).toBe(200);
      expect(served.headers['content-type']).toBe('image/png');
      expect(Buffer.from(served.rawPayload)).toEqual(PNG);
      expect((await call('GET', image!.url, bob)).status).toBe(404);
      expect((await call('GET', '/api/images/not-an-id', user)).status).toBe(404);
    });

    it("closing the connection aborts the turn: the shell tool's child processes are gone and the transcript says so", async () => {
      const user = await createTestUser(server.services, 'grace');
      await configure(user, 'openai-chat', 'sk-grace-chat-secret');
      expect((await call('PUT', '/api/settings/tools/bash', user, { enabled: true })).status).toBe(200);
      const chatId = await newChat(user, { workingDirectory: workdir });
      const pidFile = join(workdir, `pids-${engine}`);
      const token = probeToken();
      const command = `export TOOLPORT_PROBE=${token}; sleep 300 & echo $! >> ${pidFile}; echo $$ >> ${pidFile}; wait`;
      fake.enqueue(
        'openai-chat',
        scriptStep('openai-chat', {
          toolCalls: [{ id: 'call_sleep', name: 'bash', arguments: JSON.stringify({ command }) }],
        }),
      );

      const address = await server.app.listen({ host: '127.0.0.1', port: 0 });
      const port = (server.app.server.address() as AddressInfo).port;
      expect(address).toContain('127.0.0.1');
      const received: string[] = [];
      const client = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/api/chats/${chatId}/turns`,
        headers: { ...user.headers, 'content-type': 'application/json' },
      });
      client.on('response', (response) =>
        response.on('data', (chunk: Buffer) => received.push(chunk.toString())),
      );
      client.on('error', () => {});
      client.end(JSON.stringify({ message: 'sleep', provider: 'openai-chat' }));
      try {
        await waitForLines(pidFile, 2);
        // The events were written before the tool started; on a loaded machine the socket may deliver them later.
        await expect.poll(() => received.join('')).toContain('event: tool_call_completed');
        client.destroy();
        expect(await survivorsCarrying(token)).toEqual([]);
        await expect
          .poll(
            async () =>
              ((await call('GET', `/api/chats/${chatId}/messages`, user)).body.messages as Json[]).length,
          )
          .toBe(3);
        const messages = (await call('GET', `/api/chats/${chatId}/messages`, user)).body.messages as Json[];
        expect(messages[2]).toMatchObject({ role: 'tool', toolName: 'bash', isError: true });
        expect(String(messages[2]!.content)).toContain('aborted');
      } finally {
        killCarrying([token]);
      }
    });
  },
);
