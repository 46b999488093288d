/*
 * `npm run conformance`: the official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned as a dev
 * dependency, run from node_modules — nothing is downloaded) against both sides of toolport:
 *   - server scenarios against `toolport serve`'s `/mcp` (started in-process from src, with a temporary data dir,
 *     behind a loopback proxy that adds the admin bearer token: the harness cannot send headers);
 *   - client scenarios (`initialize`, `tools_call`, `sse-retry`, the `auth` suite) through `client.ts`, which drives
 *     `McpClientPool`.
 * `expected-failures.yml` lists the scenarios for features toolport does not offer, each with its reason; the harness
 * fails on any other failure and on a listed scenario that passes (a stale entry). Exit code 0 when all legs pass.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/cli/main.ts';
import { startBearerProxy } from './bearer-proxy.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const EXPECTED_FAILURES = join(HERE, 'expected-failures.yml');
const CLIENT_DRIVER = join(HERE, 'client.ts');
const HARNESS = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')),
  'dist/index.js',
);
const CLIENT_SCENARIOS = ['initialize', 'tools_call', 'sse-retry'];

function runHarness(args: string[], outputDirectory: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [HARNESS, ...args, '--expected-failures', EXPECTED_FAILURES, '-o', outputDirectory],
      { stdio: 'inherit' },
    );
    child.once('error', reject);
    child.once('exit', (code) => resolve(code ?? 1));
  });
}

async function startServe(
  dataDirectory: string,
): Promise<{ url: URL; token: string; stop(): Promise<number> }> {
  const controller = new AbortController();
  let banner = '';
  let onBanner: (url: string) => void = () => {};
  const listening = new Promise<string>((resolve) => (onBanner = resolve));
  const exit = runCli(
    ['serve', '--port', '0', '--data-dir', dataDirectory, '--log-level', 'warn'],
    {
      stdout: () => {},
      stderr: (text) => {
        banner += text;
        const match = /listening on (http:\/\/\S+)/.exec(banner);
        if (match?.[1] !== undefined) onBanner(match[1]);
      },
      cwd: process.cwd(),
      env: { ...process.env, TOOLPORT_DATA_DIR: dataDirectory },
    },
    controller.signal,
  );
  const url = await Promise.race([
    listening,
    exit.then((code) => Promise.reject(new Error(`toolport serve exited ${code}: ${banner}`))),
  ]);
  const token = readFileSync(join(dataDirectory, 'admin-token'), 'utf8').trim();
  return {
    url: new URL('/mcp', url),
    token,
    stop: async () => {
      controller.abort();
      return exit;
    },
  };
}

async function main(): Promise<number> {
  const scratch = mkdtempSync(join(tmpdir(), 'toolport-conformance-'));
  const failures: string[] = [];
  try {
    const serve = await startServe(join(scratch, 'data'));
    const proxy = await startBearerProxy(serve.url, serve.token);
    try {
      console.log(`\n=== server scenarios against toolport serve /mcp (${proxy.url.href}) ===`);
      if ((await runHarness(['server', '--url', proxy.url.href], join(scratch, 'server'))) !== 0)
        failures.push('server scenarios');
    } finally {
      await proxy.close();
      await serve.stop();
    }
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLIENT_DRIVER)}`;
    for (const scenario of CLIENT_SCENARIOS) {
      console.log(`\n=== client scenario ${scenario} (McpClientPool) ===`);
      if (
        (await runHarness(
          ['client', '--command', command, '--scenario', scenario],
          join(scratch, scenario),
        )) !== 0
      )
        failures.push(`client ${scenario}`);
    }
    console.log('\n=== client auth suite (McpClientPool) ===');
    if ((await runHarness(['client', '--command', command, '--suite', 'auth'], join(scratch, 'auth'))) !== 0)
      failures.push('client auth suite');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  console.log(
    failures.length === 0
      ? '\nconformance: every leg passed (expected failures: test/conformance/expected-failures.yml)'
      : `\nconformance: FAILED: ${failures.join(', ')}`,
  );
  return failures.length === 0 ? 0 : 1;
}

process.exitCode = await main();
