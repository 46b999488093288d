import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/*
 * vitest globalSetup: the suite gets a temp directory of its own (TMPDIR, inherited by every worker and by children
 * spawned with the parent environment), and fails at the end listing whatever the tests left in it — a test that
 * makes a temp dir must remove it in afterAll/afterEach. A private root, not a before/after diff of /tmp, because
 * other test runs on the machine create and remove their own entries there meanwhile.
 */
/**
 * Written by the runtime, not by a test: Node's module compile cache (npm enables it under the temp dir), and the shell
 * sandbox's per-user call-record directory of in-process CLI runs (FS-6 crash recovery; empty once calls end).
 */
const RUNTIME_ENTRIES = new Set([
  'node-compile-cache',
  `toolport-shell-calls-${process.getuid?.() ?? 'user'}`,
]);

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'toolport-test-run-'));
  // Like /tmp itself: the shell sandbox runs commands as an unprivileged uid when the suite runs as root, and that uid
  // must be able to reach the scratch directories tests make in here (mkdtemp's 0700 would lock it out).
  chmodSync(root, 0o1777);
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    const leaked = readdirSync(root).filter((entry) => !RUNTIME_ENTRIES.has(entry));
    rmSync(root, { recursive: true, force: true });
    if (leaked.length > 0) {
      throw new Error(
        `The test suite left ${leaked.length} entries in its temp dir: ${leaked.sort().join(', ')}. ` +
          'Remove what a test creates in afterAll/afterEach.',
      );
    }
  };
}
