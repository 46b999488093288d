import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

// Runs the real bin against the built dist (the root `npm test` builds first).
const bin = fileURLToPath(new URL('../../bin/toolport.js', import.meta.url));
const run = promisify(execFile);
// The CLI's read-before-write state: this file's own directory, removed afterwards.
const stateDirectory = mkdtempSync(join(tmpdir(), 'toolport-bin-state-'));
afterAll(() => rmSync(stateDirectory, { recursive: true, force: true }));
const env = { ...process.env, TOOLPORT_STATE_DIR: stateDirectory };

async function toolport(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], {
      env,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('CLI-1 the toolport bin', () => {
  // Issue 11 item 1: the `tools` commands load the bundled CLI (scripts/bundle-cli.mjs), the others the modules.
  const loadedToolportModules = async (...args: string[]): Promise<string[]> => {
    const hook =
      'data:text/javascript,import{registerHooks}from"node:module";const s=[];' +
      'registerHooks({load(u,c,n){s.push(u);return n(u,c)}});' +
      'process.on("exit",()=>process.stderr.write("LOADED "+JSON.stringify(s)+"\\n"))';
    const { stderr } = await run(process.execPath, ['--import', hook, bin, ...args], {
      env,
    });
    const line = stderr.split('\n').find((each) => each.startsWith('LOADED '))!;
    const dist = new URL('../../dist/', import.meta.url).href;
    return (JSON.parse(line.slice('LOADED '.length)) as string[])
      .filter((url) => url.startsWith(dist))
      .map((url) => `dist/${url.slice(dist.length)}`);
  };

  it('loads the one-shot tools commands from the bundle, a few files instead of the module graph', async () => {
    const loaded = await loadedToolportModules(
      'tools',
      'run',
      'grep',
      '--workdir',
      fileURLToPath(new URL('../../src/fs', import.meta.url)),
      '--args',
      '{"pattern":"readFileSync"}',
    );
    expect(loaded).toContain('dist/cli/main.bundle.js');
    // Only the bundle's files, and the generated validators it imports by URL.
    expect(loaded.filter((url) => !/^dist\/cli\/[^/]+\.bundle(-[A-Z0-9]+)?\.js$/.test(url))).toEqual([
      'dist/core/builtin-validators.js',
    ]);
    const listed = await toolport('tools', 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^grep\s/m);
  });

  it('exits quietly when its reader stops early (`toolport tools list | head -1`)', async () => {
    const child = spawn(process.execPath, [bin, 'tools', 'list'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Read the first chunk, then close the pipe, as `head -1` does.
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(stderr).not.toContain('EPIPE');
    expect(code).toBe(0);
  });

  it('loads every other command from the modules themselves (never two copies of one)', async () => {
    const loaded = await loadedToolportModules('user', 'create', '--help');
    expect(loaded).toContain('dist/cli/main.js');
    expect(loaded.some((url) => url.includes('.bundle'))).toBe(false);
  });

  it('runs a tool and prints its JSON result (exit 0)', async () => {
    const result = await toolport('tools', 'run', 'get_current_datetime', '--args', '{"timezone":"UTC"}');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ timezone: 'UTC', offset: '+00:00' });
  });

  it('exits 1 with the error JSON on stdout for a tool error', async () => {
    const result = await toolport(
      'tools',
      'run',
      'get_current_datetime',
      '--args',
      '{"timezone":"Nope/Nope"}',
    );
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'validation_failed' } });
  });

  it('exits 2 on bad usage with the message on stderr', async () => {
    const result = await toolport('tools', 'run', 'get_current_datetime', '--args', '{oops');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('--args is not valid JSON');
  });
});
