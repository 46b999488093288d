import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/core/tool-registry.ts';
import { createToolRuntime, type ToolRuntime } from '../../src/core/tool-runtime.ts';
import { FileImageStore } from '../../src/providers/images/file-image-store.ts';
import { createImageGenerationService } from '../../src/providers/images/image-generation-service.ts';
import { runAgentTurn, startConversation } from '../../src/providers/agent-loop.ts';
import type { StreamEvent } from '../../src/providers/stream-events.ts';
import { registerBuiltinTools } from '../../src/tools/index.ts';
import { FakeProviderServer } from './fake-provider-server.ts';
import { adapterFor } from './run-step.ts';
import { scriptStep } from './scripted-streams.ts';

// A real 1x1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
const openaiImage = { created: 1, output_format: 'png', data: [{ b64_json: PNG.toString('base64') }] };
const geminiImage = {
  candidates: [
    {
      content: {
        role: 'model',
        parts: [{ inlineData: { mimeType: 'image/png', data: PNG.toString('base64') } }],
      },
    },
  ],
};

describe('IMG-1 generate_image on the providers image APIs', () => {
  let server: FakeProviderServer;
  let directory: string;
  let store: FileImageStore;

  beforeAll(async () => {
    server = await FakeProviderServer.start();
    directory = await mkdtemp(join(tmpdir(), 'toolport-images-'));
    store = new FileImageStore(directory);
  });
  afterAll(async () => {
    await server.close();
    await rm(directory, { recursive: true, force: true });
  });

  function runtime(parameters: Record<string, unknown> = {}): ToolRuntime {
    return createToolRuntime({
      entries: registerBuiltinTools(new ToolRegistry()).listEntries(),
      savedSettings: new Map([['generate_image', { enabled: true, parameters }]]),
      userId: 'artist',
      chatId: 'chat-images',
      environment: {
        services: {
          images: createImageGenerationService({
            openai: { apiKey: 'k', baseURL: server.baseURLFor('openai-images') },
            gemini: { apiKey: 'k', baseURL: server.baseURLFor('gemini-images') },
            maxRetries: 0,
          }),
          imageStore: store,
        },
      },
    });
  }

  it('OpenAI Images: count capped by maxImagesPerCall, one streamed result per image, one summary, images stored', async () => {
    server.enqueue('openai-images', { payloads: [], json: openaiImage });
    server.enqueue('openai-images', { payloads: [], json: openaiImage });
    const before = server.requests.length;
    const partials: unknown[] = [];
    const progress: unknown[] = [];
    const outcome = await runtime({ maxImagesPerCall: 2 }).execute(
      { toolName: 'generate_image', arguments: { prompt: 'a lighthouse', count: 4, quality: 'high' } },
      { onPartialResult: (partial) => partials.push(partial), onProgress: (update) => progress.push(update) },
    );
    expect(outcome.ok, outcome.output).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.result).toMatchObject({
      model: 'gpt-image-1',
      quality: 'high',
      requested: 2,
      generated: 2,
    });
    expect(partials).toHaveLength(2);
    // MCP-2: n of m, as each image settles.
    expect(progress).toEqual([
      { progress: 1, total: 2, message: 'image 1 of 2' },
      { progress: 2, total: 2, message: 'image 2 of 2' },
    ]);
    const requests = server.requests.slice(before);
    expect(requests.map((request) => request.body)).toEqual([
      { model: 'gpt-image-1', prompt: 'a lighthouse', n: 1, quality: 'high' },
      { model: 'gpt-image-1', prompt: 'a lighthouse', n: 1, quality: 'high' },
    ]);
    const images = (outcome.result as { images: Array<{ id: string; url: string; bytes: number }> }).images;
    for (const image of images) {
      expect(image.url).toBe(`/api/images/${image.id}`);
      expect(await readFile(join(directory, image.id))).toEqual(PNG);
      expect(await store.readImage(image.id)).toEqual({ data: new Uint8Array(PNG), mimeType: 'image/png' });
    }
  });

  it('Gemini image models through generateContent', async () => {
    server.enqueue('gemini-images', { payloads: [], json: geminiImage });
    const before = server.requests.length;
    const outcome = await runtime({ defaultModel: 'gemini-2.5-flash-image' }).execute({
      toolName: 'generate_image',
      arguments: { prompt: 'a fox' },
    });
    expect(outcome).toMatchObject({ ok: true, result: { model: 'gemini-2.5-flash-image', generated: 1 } });
    expect(server.requests[before]!.path).toContain('gemini-2.5-flash-image:generateContent');
    expect(server.requests[before]!.body).toMatchObject({
      generationConfig: { responseModalities: ['IMAGE', 'TEXT'] },
    });
  });

  it('respects the time budget: a provider slower than timeoutSeconds ends in timeout and its request is cancelled', async () => {
    server.enqueue('openai-images', { payloads: [], hang: true });
    const aborted = server.abortedRequests;
    const outcome = await runtime({ timeoutSeconds: 5 }).execute({
      toolName: 'generate_image',
      arguments: { prompt: 'slow' },
    });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'timeout' } });
    await expect.poll(() => server.abortedRequests).toBe(aborted + 1);
  });

  it('streams each image as a partial tool_result in the agent loop, then the summary', async () => {
    server.enqueue('openai-images', { payloads: [], json: openaiImage });
    server.enqueue('openai-images', { payloads: [], json: openaiImage });
    server.enqueue(
      'openai',
      scriptStep('openai', {
        toolCalls: [{ id: 'call_img', name: 'generate_image', arguments: '{"prompt":"two cats","count":2}' }],
      }),
    );
    server.enqueue('openai', scriptStep('openai', { text: 'Here they are.' }));
    const images = runtime();
    const session = startConversation({ adapter: adapterFor(server, 'openai'), runtime: images });
    const events: StreamEvent[] = [];
    for await (const event of runAgentTurn({ session, runtime: images, userMessage: 'draw' }))
      events.push(event);
    const results = events.filter((event) => event.type === 'tool_result');
    expect(results.map((event) => event.partial === true)).toEqual([true, true, false]);
    expect(results[2]).toMatchObject({ id: 'call_img', result: { generated: 2 } });
    expect(events.at(-1)).toMatchObject({ type: 'turn_completed', stopReason: 'end_turn' });
  });
});
