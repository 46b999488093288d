import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { runCli } from '../../src/cli/main.ts';
import type { ToolportDatabase } from '../../src/persistence/database.ts';
import { createTestDatabase, TEST_ENGINES, type TestDatabaseTarget } from '../support/test-databases.ts';
import { createTestUser, startTestServer, type TestServer } from '../support/test-server.ts';

type Json = Record<string, unknown>;

describe.each(TEST_ENGINES)('API-1/CORE-3 settings validated by their meaning on %s', (engine) => {
  let target: TestDatabaseTarget;
  let database: ToolportDatabase;
  let server: TestServer;
  let user: Awaited<ReturnType<typeof createTestUser>>;

  const call = async (method: 'GET' | 'PUT' | 'POST', url: string, payload?: unknown) => {
    const response = await server.app.inject({
      method,
      url,
      headers: user.headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: response.statusCode, body: response.json() as Json };
  };
  const put = (tool: string, parameters: Json) => call('PUT', `/api/settings/tools/${tool}`, { parameters });

  beforeAll(async () => {
    target = await createTestDatabase(engine);
    database = await target.open();
    server = await startTestServer(database);
    user = await createTestUser(server.services, 'settings');
  });
  afterAll(async () => {
    await server?.close();
    await target?.dispose();
  });

  it.each([
    ['get_current_datetime', 'defaultTimezone', 'Mars/Base'],
    ['get_current_datetime', 'defaultLocale', 'not a locale!'],
    ['read_file', 'allowedPaths', ['project']],
    ['grep', 'deniedPaths', ['/srv/ok', './secrets']],
  ])(
    '%s: %s = %j answers 422 invalid_settings naming the parameter, and stores nothing',
    async (tool, name, value) => {
      const refused = await put(tool, { [name]: value });
      expect(refused.status).toBe(422);
      expect(refused.body.error).toMatchObject({ code: 'invalid_settings', parameter: name });
      expect(String((refused.body.error as Json).message)).toContain(`\`${name}\``);
      const listed = (await call('GET', '/api/settings/tools')).body.tools as Json[];
      const descriptor = listed.find((entry) => entry.name === tool)!;
      expect((descriptor.parameters as Json)[name]).not.toEqual(value);
      expect(descriptor.updatedAt).toBeNull();
    },
  );

  it('accepts meaningful values: an IANA zone, a BCP 47 tag, absolute and ~ paths', async () => {
    expect(
      (await put('get_current_datetime', { defaultTimezone: 'Asia/Tokyo', defaultLocale: 'pt-BR' })).status,
    ).toBe(200);
    expect((await put('read_file', { allowedPaths: ['/srv/project', '~', '~/work'] })).status).toBe(200);
    const executed = await call('POST', '/api/tools/get_current_datetime/execute', { args: {} });
    expect(executed.status).toBe(200);
    expect(executed.body.result).toMatchObject({ timezone: 'Asia/Tokyo', locale: 'pt-BR' });
  });

  it('the descriptors tell a form what a string means (format), without the validator code', async () => {
    const listed = (await call('GET', '/api/settings/tools')).body.tools as Json[];
    const datetime = listed.find((entry) => entry.name === 'get_current_datetime')!;
    expect(datetime.parameterDescriptors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'defaultTimezone', format: 'time-zone' }),
        expect.objectContaining({ name: 'defaultLocale', format: 'locale' }),
      ]),
    );
    expect(datetime).not.toHaveProperty('parameterValidators');
  });

  it('a bad zone stored before validation blames the setting, not the model’s argument', async () => {
    const stored = await createTestUser(server.services, 'legacy');
    await server.services.repositories.toolSettings.update(stored.id, 'get_current_datetime', () => ({
      parameters: { defaultTimezone: 'Mars/Base' },
    }));
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/tools/get_current_datetime/execute',
      headers: stored.headers,
      payload: { args: {} },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({
      error: { code: 'invalid_settings', parameter: 'defaultTimezone' },
    });
    // The model naming a zone still works.
    const named = await server.app.inject({
      method: 'POST',
      url: '/api/tools/get_current_datetime/execute',
      headers: stored.headers,
      payload: { args: { timezone: 'UTC' } },
    });
    expect(named.statusCode).toBe(200);
  });
});

describe('CLI-1 toolport tools run --settings validated by meaning', () => {
  // The CLI's freshness ledger lives under TOOLPORT_STATE_DIR: a private one, removed afterwards.
  const stateDirectory = mkdtempSync(join(tmpdir(), 'toolport-settings-cli-'));
  afterAll(() => rmSync(stateDirectory, { recursive: true, force: true }));
  const run = async (argv: string[]) => {
    const output = { stdout: '', stderr: '' };
    const io: CliIo = {
      stdout: (text) => (output.stdout += text),
      stderr: (text) => (output.stderr += text),
      cwd: process.cwd(),
      env: { ...process.env, TOOLPORT_STATE_DIR: stateDirectory },
    };
    return { code: await runCli(argv, io), output };
  };

  it.each([
    ['get_current_datetime', '{}', '{"defaultTimezone":"Mars/Base"}', 'defaultTimezone'],
    ['read_file', '{"path":"/etc/hostname"}', '{"allowedPaths":["relative/dir"]}', 'allowedPaths'],
  ])(
    '%s --settings exits 1 with invalid_settings naming the setting (the tool-error contract)',
    async (tool, args, settings, name) => {
      const { code, output } = await run(['tools', 'run', tool, '--args', args, '--settings', settings]);
      expect(code).toBe(1);
      const printed = JSON.parse(output.stdout) as { error: { code: string; message: string } };
      expect(printed.error.code).toBe('invalid_settings');
      expect(printed.error.message).toContain(`\`${name}\``);
    },
  );
});
