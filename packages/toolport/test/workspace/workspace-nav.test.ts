import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromiumExecutable } from '../../src/workspace/chromium-browser.ts';
import {
  SEARCH_PRODUCTS_TOOL,
  createWorkspace,
  searchProductsScript,
  startLoopbackServices,
} from './workspace-fixtures.ts';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const RUN_CLI = `import { runCli } from ${JSON.stringify(MAIN)}; process.exitCode = await runCli(process.argv.slice(1));`;

// .ci/run installs Debian's chromium; a machine without one fails here rather than skipping g.nav.
describe('WS-1 g.nav: the seed search-products example on headless Chromium', () => {
  let loopback: Awaited<ReturnType<typeof startLoopbackServices>>;
  let workspace: string;
  // Asynchronous: the loopback server lives in this process and must answer while the CLI runs.
  const run = (env: Record<string, string>, args = '{"keyword":"lamp","maxResults":2}') =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          RUN_CLI,
          'tools',
          'run',
          'search-products',
          '--workdir',
          workspace,
          '--args',
          args,
        ],
        { encoding: 'utf8', env: { TOOLPORT_STATE_DIR: workspace, ...env }, timeout: 60_000 },
        (error, stdout, stderr) =>
          resolve({ status: error === null ? 0 : (error.code as number | null), stdout, stderr }),
      );
    });

  beforeAll(async () => {
    loopback = await startLoopbackServices();
    workspace = createWorkspace([SEARCH_PRODUCTS_TOOL], {
      'search-products.js': searchProductsScript(loopback.url),
    });
  });
  afterAll(async () => {
    await loopback?.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  it('navigates a local page and returns the extracted results', async () => {
    expect(findChromiumExecutable(process.env)).toBeDefined();
    const result = await run({ PATH: process.env.PATH ?? '', TOOLPORT_OUTBOUND_ALLOW: '127.0.0.1/32' });
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(['Red lamp', 'Blue lamp']);
    expect(loopback.requests.some((request) => request.url === '/search?q=lamp')).toBe(true);
  });

  it('sends every page request through NET-1: loopback is refused without the operator allowlist', async () => {
    const before = loopback.requests.length;
    const result = await run({ PATH: process.env.PATH ?? '' });
    expect(result.status).toBe(1);
    expect(JSON.parse(result.stdout).error.message).toContain('Refused to connect to 127.0.0.1');
    expect(loopback.requests.length).toBe(before);
  });

  it('says "no browser configured" when there is none', async () => {
    const result = await run({ PATH: '/nonexistent-toolport-bin', TOOLPORT_OUTBOUND_ALLOW: '127.0.0.1/32' });
    expect(result.status).toBe(1);
    expect(JSON.parse(result.stdout).error.message).toContain('no browser configured');
  });
});
