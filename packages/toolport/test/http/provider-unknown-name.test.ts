import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateDatabase, openDatabase, type ToolportDatabase } from '../../src/persistence/database.ts';
import { createTestUser, startTestServer, type TestServer } from '../support/test-server.ts';

describe('API-1 POST /api/providers names an unknown provider first', () => {
  let directory: string;
  let database: ToolportDatabase;
  let server: TestServer;
  let headers: { authorization: string };

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'toolport-provider-names-'));
    database = openDatabase(`sqlite:${join(directory, 'toolport.db')}`);
    await migrateDatabase(database);
    server = await startTestServer(database);
    headers = (await createTestUser(server.services)).headers;
  });
  afterAll(async () => {
    await server.close();
    await database.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('answers an unknown provider before the fields it would need are missing', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/providers',
      headers,
      payload: { provider: 'mistral' },
    });
    expect(response.statusCode).toBe(400);
    const { error } = response.json() as { error: { code: string; message: string; field: string } };
    expect(error.message).toBe(
      'Unknown provider "mistral": use one of openai, openai-chat, anthropic, gemini.',
    );
    expect(error.field).toBe('provider');
  });

  it('still names the missing field for a known provider, and refuses an unknown one in a PATCH', async () => {
    const missing = await server.app.inject({
      method: 'POST',
      url: '/api/providers',
      headers,
      payload: { provider: 'anthropic' },
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.body).toContain('defaultModel');
    const created = await server.app.inject({
      method: 'POST',
      url: '/api/providers',
      headers,
      payload: { provider: 'anthropic', defaultModel: 'm', baseUrl: 'http://127.0.0.1:9/' },
    });
    expect(created.statusCode).toBe(201);
    const patched = await server.app.inject({
      method: 'PATCH',
      url: `/api/providers/${(created.json() as { id: string }).id}`,
      headers,
      payload: { provider: 'mistral' },
    });
    expect(patched.statusCode).toBe(400);
    expect(patched.body).toContain('Unknown provider \\"mistral\\"');
  });
});
