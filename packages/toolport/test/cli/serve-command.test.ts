import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { runCli } from '../../src/cli/main.ts';
import { runServeCommand } from '../../src/cli/serve-command.ts';
import type { OperatorPolicy } from '../../src/policy/operator-policy.ts';
import type { ToolportServices } from '../../src/services/toolport-services.ts';
import { createTestDatabase } from '../support/test-databases.ts';
import { createTestRegistry, waitToolEvents } from '../support/server-test-tools.ts';

interface CapturedIo extends CliIo {
  out: string[];
  err: string[];
}

function captureIo(env: NodeJS.ProcessEnv = {}): CapturedIo {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    cwd: process.cwd(),
    env,
  };
}

interface RunningServer {
  url: string;
  services: ToolportServices;
  io: CapturedIo;
  stop(): Promise<number>;
}

async function startServe(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<RunningServer> {
  const io = captureIo(env);
  const controller = new AbortController();
  let resolveListening!: (value: { url: string; services: ToolportServices }) => void;
  const listening = new Promise<{ url: string; services: ToolportServices }>(
    (resolve) => (resolveListening = resolve),
  );
  const exit = runServeCommand(['--port', '0', ...argv], io, controller.signal, {
    registry: createTestRegistry(),
    onListening: resolveListening,
  });
  const started = await Promise.race([
    listening,
    exit.then((code) => Promise.reject(new Error(`exited ${code}: ${io.err.join('')}`))),
  ]);
  return {
    ...started,
    io,
    stop: async () => {
      controller.abort();
      return exit;
    },
  };
}

const directories: string[] = [];
function tempDataDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'toolport-serve-'));
  directories.push(directory);
  return directory;
}

afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe('CLI-1 toolport serve', () => {
  it('first start creates the admin, writes admin-token 0600 and prints a login URL that works', async () => {
    const dataDirectory = tempDataDirectory();
    const server = await startServe(['--data-dir', dataDirectory]);
    try {
      const tokenPath = join(dataDirectory, 'admin-token');
      const token = readFileSync(tokenPath, 'utf8').trim();
      expect(statSync(tokenPath).mode & 0o777).toBe(0o600);
      expect(statSync(join(dataDirectory, 'secret.key')).mode & 0o777).toBe(0o600);
      expect(statSync(join(dataDirectory, 'toolport.db')).mode & 0o777).toBe(0o600);
      const banner = server.io.err.join('');
      expect(banner).toContain(`${server.url}/#token=${token}`);
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const listed = await fetch(`${server.url}/api/settings/tools`, { headers });
      expect(listed.status).toBe(200);
      const secretValue = 'sk-never-in-logs-123456';
      const put = await fetch(`${server.url}/api/secrets/KEY`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ value: secretValue }),
      });
      expect(put.status).toBe(200);
      expect(await fetch(`${server.url}/api/settings/tools`)).toHaveProperty('status', 401);

      const logs = server.io.out.join('');
      expect(logs).toContain('"msg":"request completed"');
      expect(logs).not.toContain(secretValue);
      expect(logs).not.toContain(token);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(server.io.err.join('')).toContain('toolport stopped.');

    // A second start keeps the one admin and prints the stored login URL again.
    const again = await startServe(['--data-dir', dataDirectory]);
    try {
      expect(await again.services.repositories.users.count()).toBe(1);
      expect(again.io.err.join('')).toContain('/#token=tp_');
      expect(again.io.err.join('')).not.toContain('written to');
    } finally {
      await again.stop();
    }
  });

  it('on shutdown aborts running tools, lets their requests finish, and exits 0', async () => {
    const dataDirectory = tempDataDirectory();
    const server = await startServe([], { TOOLPORT_DATA_DIR: dataDirectory });
    const token = readFileSync(join(dataDirectory, 'admin-token'), 'utf8').trim();
    const inFlight = fetch(`${server.url}/api/tools/wait/execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ args: {} }),
    });
    await once(waitToolEvents, 'started');
    const exit = server.stop();
    const response = await inFlight;
    expect(response.status).toBe(499);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('aborted');
    expect(await exit).toBe(0);
  });

  it('exits 1 with one line for an unsupported database URL, 2 for a bad port', async () => {
    const io = captureIo();
    expect(
      await runCli(['serve', '--database-url', 'mysql://x', '--data-dir', tempDataDirectory()], io),
    ).toBe(1);
    expect(io.err.join('')).toMatch(/Unsupported database URL/);
    const usage = captureIo();
    expect(await runCli(['serve', '--port', 'abc'], usage)).toBe(2);
  });

  it('two instances starting at once on one PostgreSQL database create one admin and share settings', async () => {
    const target = await createTestDatabase('postgres');
    try {
      if (target.url === undefined) return; // PGlite cannot be shared between servers; CI runs the real server.
      const [first, second] = await Promise.all(
        [tempDataDirectory(), tempDataDirectory()].map((dataDirectory) =>
          startServe(['--data-dir', dataDirectory, '--database-url', target.url!], {
            TOOLPORT_SECRET_KEY: 'a'.repeat(64),
          }),
        ),
      );
      try {
        expect(await first!.services.repositories.users.count()).toBe(1);
        const written = first!.io.err.join('') + second!.io.err.join('');
        expect(written.match(/Admin token written/g)).toHaveLength(1);
        const { token } = await first!.services.tokens.createUser('shared-user');
        const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
        const put = await fetch(`${first!.url}/api/settings/tools/configurable`, {
          method: 'PUT',
          headers,
          body: JSON.stringify({ parameters: { maxResults: 33 } }),
        });
        expect(put.status).toBe(200);
        const read = await fetch(`${second!.url}/api/settings/tools/configurable`, { headers });
        expect(((await read.json()) as { parameters: { maxResults: number } }).parameters.maxResults).toBe(
          33,
        );
      } finally {
        await Promise.all([first!.stop(), second!.stop()]);
      }
    } finally {
      await target.dispose();
    }
  });
});

describe('CLI-1 toolport user create', () => {
  it('prints a token that authenticates, and refuses a taken name with exit 1', async () => {
    const dataDirectory = tempDataDirectory();
    const io = captureIo();
    expect(await runCli(['user', 'create', 'carol', '--data-dir', dataDirectory], io)).toBe(0);
    const token = io.out.join('').trim();
    expect(token).toMatch(/^tp_[A-Za-z0-9_-]{43}$/);
    const duplicate = captureIo();
    expect(await runCli(['user', 'create', 'carol', '--data-dir', dataDirectory], duplicate)).toBe(1);
    expect(duplicate.err.join('')).toMatch(/already exists/);
    expect(await runCli(['user', 'create'], captureIo())).toBe(2);

    const server = await startServe(['--data-dir', dataDirectory]);
    try {
      // Users exist already, so no admin is bootstrapped.
      expect(server.io.err.join('')).not.toContain('token=tp_');
      const response = await fetch(`${server.url}/api/chats`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});

describe('AUTH-2 toolport serve --policy', () => {
  it('loads <data dir>/policy.json, or --policy FILE, and shows the effective policy to the admin', async () => {
    const dataDirectory = tempDataDirectory();
    writeFileSync(join(dataDirectory, 'policy.json'), JSON.stringify({ tools: { disabled: ['glob'] } }));
    const other = join(dataDirectory, 'shared-server.json');
    writeFileSync(other, JSON.stringify({ workspaceRoots: ['/srv/projects'], mcp: { remote: 'admins' } }));
    for (const [argv, check] of [
      [[], (policy: OperatorPolicy) => expect(policy.tools.disabled).toEqual(['glob'])],
      [
        ['--policy', other],
        (policy: OperatorPolicy) => expect(policy.workspaceRoots).toEqual(['/srv/projects']),
      ],
    ] as const) {
      const server = await startServe(['--data-dir', dataDirectory, ...argv]);
      try {
        const token = readFileSync(join(dataDirectory, 'admin-token'), 'utf8').trim();
        const response = await fetch(`${server.url}/api/policy`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(response.status).toBe(200);
        const policy = (await response.json()) as OperatorPolicy;
        check(policy);
        expect(policy.deniedPaths).toEqual(expect.arrayContaining(['/proc', dataDirectory]));
      } finally {
        expect(await server.stop()).toBe(0);
      }
    }
  });

  it('refuses to start with a policy file that does not validate, naming the JSON path and what was expected', async () => {
    const dataDirectory = tempDataDirectory();
    const file = join(dataDirectory, 'bad.json');
    writeFileSync(file, JSON.stringify({ mcp: { stdio: 'everyone' }, tools: { adminOnly: 'bash' } }));
    const io = captureIo();
    const code = await runServeCommand(
      ['--data-dir', dataDirectory, '--policy', file],
      io,
      new AbortController().signal,
      {
        registry: createTestRegistry(),
      },
    );
    expect(code).toBe(1);
    const message = io.err.join('');
    expect(message).toContain(`toolport serve: Policy file ${file} is invalid:`);
    expect(message).toMatch(/\/tools\/adminOnly must be array/);
    expect(message).toMatch(/\/mcp\/stdio/);
  });
});
