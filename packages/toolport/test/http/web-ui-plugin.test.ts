import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebUiPlugin } from '../../src/http/plugins/web-ui.ts';
import { migrateDatabase, openDatabase, type ToolportDatabase } from '../../src/persistence/database.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

const INDEX =
  '<!doctype html><html><body><div id="root"></div><script type="module" src="/assets/app-1a2b.js"></script></body></html>';
const APP_JS = `console.log(${JSON.stringify('x'.repeat(4000))});`;

describe('UI-1 web UI plugin: static assets at / with an SPA fallback that leaves /api and /mcp alone', () => {
  let directory: string;
  let database: ToolportDatabase;
  let server: TestServer;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'toolport-web-dist-'));
    mkdirSync(join(directory, 'assets'));
    writeFileSync(join(directory, 'index.html'), INDEX);
    writeFileSync(join(directory, 'assets', 'app-1a2b.js'), APP_JS);
    writeFileSync(join(directory, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    database = openDatabase('sqlite::memory:');
    await migrateDatabase(database);
    server = await startTestServer(database, { plugins: [createWebUiPlugin({ directory })] });
  });
  afterAll(async () => {
    await server.close();
    await database.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const get = (url: string, headers: Record<string, string> = {}) =>
    server.app.inject({ method: 'GET', url, headers });

  it('serves index.html at / and for every client-side route, with a strict CSP and no caching', async () => {
    for (const url of ['/', '/tools', '/mcp-servers', '/playground?tool=read_file', '/deep/client/route']) {
      const response = await get(url);
      expect(response.statusCode, url).toBe(200);
      expect(response.body).toBe(INDEX);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.headers['content-security-policy']).toContain("script-src 'self'");
      expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    }
  });

  it('never answers /api/* or /mcp with the page: their 404s stay JSON', async () => {
    for (const url of ['/api', '/api/', '/api/no-such-route', '/api/settings/nope/deeper', '/mcp/anything']) {
      const response = await get(url);
      expect(response.statusCode, url).toBe(404);
      expect(response.headers['content-type'], url).toContain('application/json');
      expect(response.json()).toMatchObject({ error: { code: 'not_found' } });
    }
    // Real API routes are untouched (and still need a token).
    expect((await get('/api/settings/tools')).statusCode).toBe(401);
    expect((await get('/api/health')).statusCode).toBe(200);
  });

  it('serves hashed assets immutable and gzipped on request; a missing asset is a 404, not the page', async () => {
    const plain = await get('/assets/app-1a2b.js');
    expect(plain.statusCode).toBe(200);
    expect(plain.body).toBe(APP_JS);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const zipped = await get('/assets/app-1a2b.js', { 'accept-encoding': 'gzip, br' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zipped.rawPayload).toString('utf8')).toBe(APP_JS);
    expect((await get('/favicon.svg')).headers['content-type']).toBe('image/svg+xml');
    // A malformed escape never reaches the handler: Fastify refuses the URL.
    expect((await get('/assets/%E0%A4%A.js')).statusCode).toBe(400);
    for (const url of ['/assets/stale-0000.js', '/missing.png', '/assets/../index.html.bak']) {
      expect((await get(url)).statusCode, url).toBe(404);
    }
  });

  it('mounts nothing without a build, so the text landing page answers /', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'toolport-web-none-'));
    const bare = await startTestServer(database, { plugins: [createWebUiPlugin({ directory: empty })] });
    try {
      const landing = await bare.app.inject({ method: 'GET', url: '/' });
      expect(landing.statusCode).toBe(200);
      expect(landing.body).toContain('npm run build');
      // No fallback either: an unknown path is no route (the auth hook answers it first, as before the UI).
      expect((await bare.app.inject({ method: 'GET', url: '/tools' })).statusCode).toBe(401);
    } finally {
      await bare.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
