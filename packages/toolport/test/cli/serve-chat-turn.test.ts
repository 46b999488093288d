import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { runServeCommand } from '../../src/cli/serve-command.ts';
import type { ToolportServices } from '../../src/services/toolport-services.ts';
import { FakeProviderServer } from '../providers/fake-provider-server.ts';
import { scriptStep } from '../providers/scripted-streams.ts';
import { createTestRegistry } from '../support/server-test-tools.ts';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

async function startServe(dataDirectory: string, env: NodeJS.ProcessEnv) {
  const io: CliIo = { stdout: () => {}, stderr: () => {}, cwd: process.cwd(), env };
  const controller = new AbortController();
  let resolveListening!: (value: { url: string; services: ToolportServices }) => void;
  const listening = new Promise<{ url: string; services: ToolportServices }>(
    (resolve) => (resolveListening = resolve),
  );
  const exit = runServeCommand(
    ['--port', '0', '--data-dir', dataDirectory, '--log-level', 'silent'],
    io,
    controller.signal,
    { registry: createTestRegistry(), onListening: resolveListening },
  );
  const started = await listening;
  return { ...started, stop: () => (controller.abort(), exit) };
}

describe('CLI-1 / IMG-1 toolport serve runs chat turns with the database image store', () => {
  let fake: FakeProviderServer;
  let dataDirectory: string;
  beforeAll(async () => {
    fake = await FakeProviderServer.start();
    dataDirectory = mkdtempSync(join(tmpdir(), 'toolport-serve-turn-'));
  });
  afterAll(async () => {
    await fake?.close();
    rmSync(dataDirectory, { recursive: true, force: true });
  });

  it('uses OPENAI_API_KEY only when the operator opts in, and serves generated images from the database', async () => {
    const environmentKey = 'sk-operator-environment-key';
    for (const optIn of [false, true]) {
      const server = await startServe(dataDirectory, {
        OPENAI_API_KEY: environmentKey,
        ...(optIn ? { TOOLPORT_PROVIDER_KEYS_FROM_ENV: 'true' } : {}),
      });
      try {
        const token = readFileSync(join(dataDirectory, 'admin-token'), 'utf8').trim();
        const api = async (method: string, path: string, body?: unknown) =>
          fetch(`${server.url}${path}`, {
            method,
            headers: {
              authorization: `Bearer ${token}`,
              ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          });
        if (!optIn) {
          // The configuration names no secret and points at the real OpenAI (no base URL): nothing to use.
          const created = await api('POST', '/api/providers', {
            name: 'real',
            provider: 'openai',
            defaultModel: 'gpt-5',
          });
          expect(created.status).toBe(201);
          const chat = (await (await api('POST', '/api/chats', {})).json()) as { id: string };
          const refused = await api('POST', `/api/chats/${chat.id}/turns`, {
            message: 'hi',
            provider: 'real',
          });
          expect(refused.status).toBe(422);
          // Tests reach loopback only: nothing may ever use this configuration once the key is available.
          expect(
            (await api('DELETE', `/api/providers/${((await created.json()) as { id: string }).id}`)).status,
          ).toBe(204);
          continue;
        }
        await api('POST', '/api/providers', {
          name: 'fake',
          provider: 'openai',
          baseUrl: fake.baseURLFor('openai'),
          defaultModel: 'test-model',
        });
        // With a base URL and no secret, the environment key wins over the no-key placeholder once opted in.
        expect((await api('PUT', '/api/settings/tools/generate_image', { enabled: true })).status).toBe(200);
        const chat = (await (await api('POST', '/api/chats', {})).json()) as { id: string };
        fake.enqueue(
          'openai',
          scriptStep('openai', {
            toolCalls: [{ id: 'call_img', name: 'generate_image', arguments: '{"prompt":"a fox"}' }],
          }),
        );
        fake.enqueue('openai-images', {
          payloads: [],
          json: { created: 1, output_format: 'png', data: [{ b64_json: PNG.toString('base64') }] },
        });
        fake.enqueue('openai', scriptStep('openai', { text: 'Done.' }));
        const since = fake.requests.length;
        const response = await api('POST', `/api/chats/${chat.id}/turns`, {
          message: 'draw',
          provider: 'fake',
        });
        expect(response.headers.get('content-type')).toContain('text/event-stream');
        const stream = await response.text();
        expect(stream).toContain('event: turn_completed');
        expect(fake.requests.slice(since).map((request) => request.apiKey)).toEqual([
          environmentKey,
          environmentKey,
          environmentKey,
        ]);
        const url = /\/api\/images\/[0-9a-f-]{36}\.png/.exec(stream)?.[0];
        expect(url).toBeDefined();
        const image = await api('GET', url!);
        expect(image.headers.get('content-type')).toBe('image/png');
        expect(Buffer.from(await image.arrayBuffer())).toEqual(PNG);
        // IMG-1: in the database, so every instance can serve it; nothing lands in the data directory.
        expect(existsSync(join(dataDirectory, 'images'))).toBe(false);
      } finally {
        await server.stop();
      }
    }
  });
});
