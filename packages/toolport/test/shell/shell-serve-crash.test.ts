import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX_ID, detectShellSandbox } from '../../src/tools/shell/shell-sandbox.ts';
import { killCarrying, probeToken, processesCarrying, survivorsCarrying } from './process-probe.ts';

/**
 * FS-6 crash recovery through a real `toolport serve` (dist: `npm run build` first): the server is SIGKILLed in
 * the middle of a bash call, and once it is started again nothing that call started is left — sandboxed (the PID
 * namespace and cgroup) and on the unsandboxed fallback, where only the call record lets the restart find them.
 */
const bin = fileURLToPath(new URL('../../bin/toolport.js', import.meta.url));
const status = await detectShellSandbox();
if (!status.available)
  process.stdout.write(`FS-6 serve crash test: sandboxed leg skipped (${status.reason})\n`);

interface Serve {
  child: ChildProcess;
  url: string;
  stderr: () => string;
}

async function startServe(dataDirectory: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Serve> {
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--data-dir', dataDirectory], {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 30_000);
    child.stderr!.on('data', () => {
      const match = stderr.match(/listening on (http:\/\/\S+)/);
      if (match !== null && stderr.includes('shell sandbox:')) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  return { child, url, stderr: () => stderr };
}

const directories: string[] = [];
const tokens: string[] = [];
const servers: ChildProcess[] = [];
afterAll(() => {
  for (const server of servers) server.kill('SIGKILL');
  killCarrying(tokens);
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

describe.each([
  { leg: 'sandboxed', env: {}, runs: status.available },
  { leg: 'unsandboxed fallback', env: { TOOLPORT_SHELL_SANDBOX: 'off' }, runs: true },
])('FS-6 shell calls after a server crash ($leg)', ({ leg, env, runs }) => {
  it.runIf(runs)('a SIGKILLed server leaves nothing running once it is restarted', async () => {
    const dataDirectory = mkdtempSync(join(tmpdir(), 'toolport-crash-data-'));
    const workdir = realpathSync(mkdtempSync(join(tmpdir(), 'toolport-crash-cwd-')));
    directories.push(dataDirectory, workdir);
    if (process.getuid?.() === 0) chownSync(workdir, DEFAULT_SANDBOX_ID, DEFAULT_SANDBOX_ID);

    const first = await startServe(dataDirectory, workdir, env);
    servers.push(first.child);
    if (leg === 'sandboxed') expect(first.stderr()).toMatch(/shell sandbox: bubblewrap/);
    else
      expect(first.stderr()).toMatch(
        /shell sandbox: UNAVAILABLE \(turned off by TOOLPORT_SHELL_SANDBOX=off\)/,
      );

    const token = readFileSync(join(dataDirectory, 'admin-token'), 'utf8').trim();
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const enabled = await fetch(`${first.url}/api/settings/tools/bash`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ enabled: true }),
    });
    expect(enabled.status).toBe(200);

    const probe = probeToken();
    tokens.push(probe);
    const started = join(workdir, 'started');
    const command =
      `export TOOLPORT_PROBE=${probe}; sleep 300 & ` +
      `setsid sh -c 'exec sleep 300' < /dev/null > /dev/null 2>&1 & echo up > ${started}; wait`;
    const call = fetch(`${first.url}/api/tools/bash/execute`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ args: { command } }),
    }).catch(() => undefined);
    await expect.poll(() => existsSync(started), { timeout: 15_000 }).toBe(true);
    await expect.poll(() => processesCarrying(probe).length).toBeGreaterThanOrEqual(2);
    expect(readdirSync(join(dataDirectory, 'shell-calls'))).toHaveLength(1);

    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    await call;
    // Unsandboxed, the crash leaves the call's processes running: only the record lets the restart find them.
    if (leg !== 'sandboxed') expect(processesCarrying(probe).length).toBeGreaterThanOrEqual(1);

    const second = await startServe(dataDirectory, workdir, env);
    servers.push(second.child);
    expect(await survivorsCarrying(probe)).toEqual([]);
    expect(readdirSync(join(dataDirectory, 'shell-calls'))).toEqual([]);
    second.child.kill('SIGTERM');
    await new Promise((resolve) => second.child.once('exit', resolve));
  });
});
