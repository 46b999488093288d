import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolportDatabase } from '../../src/persistence/database.ts';
import { FakeProviderServer } from '../providers/fake-provider-server.ts';
import { scriptStep } from '../providers/scripted-streams.ts';
import { createTestDatabase, TEST_ENGINES, type TestDatabaseTarget } from '../support/test-databases.ts';
import { createTestUser, startTestServer, type TestServer } from '../support/test-server.ts';

type Json = Record<string, unknown>;

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * IMG-1 behind a load balancer: two instances (own connections, one database). An image generated through one is
 * served by the other, to its owner only — it lives in the database, not on one instance's disk.
 */
describe.each(TEST_ENGINES)('IMG-1 images every instance can serve on %s', (engine) => {
  let target: TestDatabaseTarget;
  let databases: ToolportDatabase[];
  let first: TestServer;
  let second: TestServer;
  let fake: FakeProviderServer;

  beforeAll(async () => {
    target = await createTestDatabase(engine);
    databases = [await target.open(), await target.open()];
    fake = await FakeProviderServer.start();
    first = await startTestServer(databases[0]!, { services: { providerMaxRetries: 0 } });
    second = await startTestServer(databases[1]!, { services: { providerMaxRetries: 0 } });
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
    await fake?.close();
    for (const database of databases ?? []) await database.close();
    await target?.dispose();
  });

  it('an image made on one instance is served by the other, to its owner only', async () => {
    const alice = await createTestUser(first.services, 'alice');
    const bob = await createTestUser(first.services, 'bob');
    const on = (
      server: TestServer,
      who: typeof alice,
      method: 'GET' | 'POST' | 'PUT',
      url: string,
      payload?: unknown,
    ) =>
      server.app.inject({
        method,
        url,
        headers: who.headers,
        ...(payload === undefined ? {} : { payload: payload as object }),
      });

    for (const [name, provider] of [
      ['chat', 'openai-chat'],
      ['images', 'openai'],
    ] as const) {
      expect(
        (await on(first, alice, 'PUT', `/api/secrets/KEY_${name}`, { value: `sk-alice-${name}-secret` }))
          .statusCode,
      ).toBe(200);
      expect(
        (
          await on(first, alice, 'POST', '/api/providers', {
            name,
            provider,
            baseUrl: fake.baseURLFor(provider),
            defaultModel: 'test-model',
            apiKeySecret: `KEY_${name}`,
          })
        ).statusCode,
      ).toBe(201);
    }
    expect(
      (await on(first, alice, 'PUT', '/api/settings/tools/generate_image', { enabled: true })).statusCode,
    ).toBe(200);
    const chat = (await on(first, alice, 'POST', '/api/chats', {})).json() as Json;

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
    const turn = await on(first, alice, 'POST', `/api/chats/${String(chat.id)}/turns`, {
      message: 'draw',
      provider: 'chat',
    });
    expect(turn.statusCode).toBe(200);
    const result = turn.body
      .split('\n\n')
      .filter((block) => block.includes('event: tool_result'))
      .map(
        (block) => JSON.parse(block.split('data: ')[1]!) as { partial?: boolean; result: { images: Json[] } },
      )
      .find((event) => event.partial !== true)!;
    const url = String(result.result.images[0]!.url);
    expect(url).toMatch(/^\/api\/images\/[0-9a-f-]{36}\.png$/);

    const served = await on(second, alice, 'GET', url);
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(Buffer.from(served.rawPayload)).toEqual(PNG);
    expect((await on(second, bob, 'GET', url)).statusCode).toBe(404);
    expect((await on(first, bob, 'GET', url)).statusCode).toBe(404);
    expect(
      (await on(second, alice, 'GET', '/api/images/00000000-0000-0000-0000-000000000000.png')).statusCode,
    ).toBe(404);
  });
});
