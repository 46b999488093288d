import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const REPOSITORY_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const INSTALL_STEP = 'npm install -g ./packages/toolport';
const scripts = (
  JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  }
).scripts;
const VERSION = (
  JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'packages/toolport/package.json'), 'utf8')) as {
    version: string;
  }
).version;
const BUILT = existsSync(join(REPOSITORY_ROOT, 'packages/toolport/dist/cli/main.js'));

/*
 * README: `npm run install-cli` puts `toolport` on PATH from a clone. The test runs its install step into a temporary
 * prefix (offline: a folder install links the clone and fetches nothing), not the whole script, whose build would
 * replace dist/ under the tests that are running meanwhile.
 */
describe.skipIf(!BUILT)('install: npm run install-cli puts toolport on PATH from a clone', () => {
  const prefix = mkdtempSync(join(tmpdir(), 'toolport-global-'));
  afterAll(() => rmSync(prefix, { recursive: true, force: true }));

  it('is the build followed by a global install of the package folder', () => {
    expect(scripts['install-cli']).toBe(`npm run build && ${INSTALL_STEP}`);
  });

  it('installs a toolport bin that runs from any directory', () => {
    const install = spawnSync(
      `${INSTALL_STEP} --prefix ${JSON.stringify(prefix)} --offline --no-audit --no-fund`,
      {
        cwd: REPOSITORY_ROOT,
        shell: true,
        encoding: 'utf8',
      },
    );
    expect(install.status, install.stderr).toBe(0);
    const bin = join(prefix, 'bin', 'toolport');
    const version = spawnSync(bin, ['--version'], { cwd: prefix, encoding: 'utf8' });
    expect(version.stdout).toBe(`toolport ${VERSION}\n`);
    expect(version.status).toBe(0);
    const help = spawnSync(bin, ['mcp', '--help'], { cwd: prefix, encoding: 'utf8' });
    expect(help.stdout).toContain('toolport mcp');
  });
});
