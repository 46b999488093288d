import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectShellSandbox } from '../../src/tools/shell/shell-sandbox.ts';
import { createTestDatabase, type TestDatabaseTarget } from '../support/test-databases.ts';
import { createTestUser, startTestServer, type TestServer } from '../support/test-server.ts';

interface InspectedTool {
  name: string;
  sandboxed?: boolean;
  sandboxReason?: string;
}

/** FS-6 / MCP-3: the capability inspector says whether shell calls run in the sandbox, and why not. */
describe.each([
  { label: 'sandbox on', shellSandbox: {} },
  { label: 'sandbox turned off by the host', shellSandbox: { enabled: false } },
])('FS-6 capability inspector, $label', ({ shellSandbox }) => {
  let target: TestDatabaseTarget;
  let server: TestServer;
  beforeAll(async () => {
    target = await createTestDatabase('sqlite');
    server = await startTestServer(await target.open(), { services: { shellSandbox } });
  });
  afterAll(async () => {
    await server.close();
    await target.dispose();
  });

  it('marks bash with sandboxed (and a reason when false); other tools carry no such field', async () => {
    const user = await createTestUser(server.services, 'inspector');
    const call = (method: 'GET' | 'PUT' | 'POST', url: string, payload?: Record<string, unknown>) =>
      server.app.inject({
        method,
        url,
        headers: user.headers,
        ...(payload === undefined ? {} : { payload }),
      });
    expect((await call('PUT', '/api/settings/tools/bash', { enabled: true })).statusCode).toBe(200);
    const chatId = (await call('POST', '/api/chats', { title: 'c' })).json<{ id: string }>().id;
    const tools = (await call('GET', `/api/chats/${chatId}/capabilities`)).json<{ tools: InspectedTool[] }>()
      .tools;
    const bash = tools.find((tool) => tool.name === 'bash');
    const status = await detectShellSandbox();
    if (shellSandbox.enabled === false || !status.available) {
      expect(bash).toMatchObject({ sandboxed: false });
      expect(bash?.sandboxReason).toMatch(/turned off|not installed|only Linux|failed a trial|perl|setpriv/);
    } else {
      expect(bash).toMatchObject({ sandboxed: true });
      expect(bash?.sandboxReason).toBeUndefined();
    }
    expect(tools.find((tool) => tool.name === 'read_file')).not.toHaveProperty('sandboxed');
  });
});
