import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buildServer } from '../../src/http/build-server.ts';
import { createToolportServices } from '../../src/services/toolport-services.ts';
import { createTestDatabase } from '../support/test-databases.ts';
import { createTestRegistry } from '../support/server-test-tools.ts';
import { TEST_SECRET_KEY } from '../support/test-server.ts';

describe('AUTH-1 request logs', () => {
  it('never contain a token sent in a query string or an Authorization header, nor an OAuth code or state', async () => {
    const target = await createTestDatabase('sqlite');
    const database = await target.open();
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const services = createToolportServices({
      database,
      registry: createTestRegistry(),
      secretKey: TEST_SECRET_KEY,
    });
    const app = await buildServer({ services, logger: { level: 'info', stream } });
    try {
      await app.inject({ method: 'GET', url: '/?token=tp_SECRET_IN_QUERY&x=1' });
      await app.inject({
        method: 'GET',
        url: '/api/settings/tools',
        headers: { authorization: 'Bearer tp_SECRET_IN_HEADER' },
      });
      // MCP-1 OAuth: the browser's return carries the authorization code and the state.
      await app.inject({
        method: 'GET',
        url: '/api/mcp-servers/oauth/callback?code=CODE_IN_QUERY_77&state=STATE_IN_QUERY_88',
      });
      const log = lines.join('');
      expect(log).toContain('code=***&state=***');
      expect(log).not.toContain('CODE_IN_QUERY_77');
      expect(log).not.toContain('STATE_IN_QUERY_88');
      expect(log).toContain('incoming request');
      expect(log).toContain('token=***');
      expect(log).not.toContain('tp_SECRET_IN_QUERY');
      expect(log).not.toContain('tp_SECRET_IN_HEADER');
    } finally {
      await app.close();
      await database.close();
      await target.dispose();
    }
  });
});
