/**
 * opencode tools may use Bun-only APIs (`Bun.$`, `Bun.file`). toolport runs them on Node, so every code-tool bundle
 * starts with a module-scoped `Bun` bound to this stub: touching any field throws an error naming the API and the
 * replacement. It is scoped to tool bundles (a `const` in each bundle), never installed as a global.
 */
const BUN_STUB_KEY = 'toolport.code-tools.bun-unavailable';

const REPLACEMENTS: Record<string, string> = {
  $: 'use context.run(command, args) to run a program (it returns {stdout, stderr, exitCode, termination})',
  spawn: 'use context.run(command, args)',
  spawnSync: 'use context.run(command, args)',
  file: 'use readFile/writeFile from "node:fs/promises"',
  write: 'use writeFile from "node:fs/promises"',
};

function bunUnavailable(field: string): Error {
  const hint = REPLACEMENTS[field] ?? 'use the Node.js API, or context.run(command, args) to run a program';
  return new Error(
    `Bun.${field} is not available: toolport runs tools on Node.js, not Bun. Instead, ${hint}.`,
  );
}

const bunStub: object = new Proxy(
  {},
  {
    get(_target, property) {
      if (typeof property === 'symbol') return undefined;
      throw bunUnavailable(property);
    },
    has: () => false,
    set(_target, property) {
      throw bunUnavailable(String(property));
    },
  },
);

(globalThis as Record<symbol, unknown>)[Symbol.for(BUN_STUB_KEY)] = bunStub;

/** The first line of every bundle. */
export const BUN_STUB_BANNER = `const Bun = globalThis[Symbol.for(${JSON.stringify(BUN_STUB_KEY)})];`;
