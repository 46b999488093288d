import { describe, expect, it } from 'vitest';
import { isToolportError } from '../core/errors.ts';
import { runIsolatedScript } from './isolate-script-runner.ts';
import { readTimeoutPragma } from './script-pragmas.ts';
import { ScriptLogCollector } from './script-log-collector.ts';

async function run(
  source: string,
  options: { timeoutMs?: number; memoryLimitMb?: number; args?: unknown } = {},
) {
  const logs = new ScriptLogCollector();
  try {
    const value = await runIsolatedScript({
      source,
      filename: 'scripts/test.js',
      args: options.args ?? {},
      timeoutMs: options.timeoutMs ?? 5000,
      memoryLimitMb: options.memoryLimitMb ?? 64,
      logs,
      host: async (operation, payload) => ({ operation, payload }),
    });
    return { ok: true as const, value, logs: logs.text() };
  } catch (error) {
    if (!isToolportError(error)) throw error;
    return {
      ok: false as const,
      code: error.code,
      message: error.message,
      details: error.details,
      logs: logs.text(),
    };
  }
}

describe('WS-1 isolate script runner (isolated-vm)', () => {
  it('runs main() with frozen args and returns its JSON value and console output', async () => {
    const result = await run(
      'async function main() { console.log("got", g.tool.args.word); console.warn({ n: 1 }); ' +
        'try { g.tool.args.word = "changed"; } catch {} return { word: g.tool.args.word, frozen: Object.isFrozen(g.tool.args) }; }',
      { args: { word: 'hi' } },
    );
    expect(result).toEqual({
      ok: true,
      value: { word: 'hi', frozen: true },
      logs: 'got hi\nwarn: {"n":1}\n',
    });
  });

  it('hands g.http and g.secrets calls to the host as JSON', async () => {
    const result = await run(
      'async function main() { return g.http.makeHttpRequest({ url: "http://x/", method: "POST" }); }',
    );
    expect(result).toMatchObject({
      ok: true,
      value: { operation: 'http', payload: { url: 'http://x/', method: 'POST' } },
    });
  });

  it('stops an infinite loop with a timeout, before and after an await', async () => {
    expect(await run('async function main() { while (true) {} }', { timeoutMs: 300 })).toMatchObject({
      ok: false,
      code: 'timeout',
    });
    expect(
      await run('async function main() { await g.http.makeHttpRequest({ url: "u" }); for (;;) {} }', {
        timeoutMs: 300,
      }),
    ).toMatchObject({ ok: false, code: 'timeout' });
  });

  it('stops unbounded allocation at the memory limit (1 GB asked, 16 MB allowed)', async () => {
    const result = await run(
      'async function main() { const chunks = []; for (let i = 0; i < 1024; i++) chunks.push(new Array(1024 * 1024 / 8).fill(i)); return chunks.length; }',
      { memoryLimitMb: 16 },
    );
    expect(result).toMatchObject({ ok: false, code: 'execution_failed' });
    expect(result.ok === false && result.message).toContain('memory limit');
  });

  it('refuses one huge allocation (a 1 GB ArrayBuffer) naming the memory limit', async () => {
    const result = await run('async function main() { return new ArrayBuffer(1024 ** 3).byteLength; }');
    expect(result).toMatchObject({ ok: false, code: 'execution_failed' });
    expect(result.ok === false && result.message).toContain('memory limit of 64 MB');
  });

  it('gives the script nothing of the host: process, require, import, fetch', async () => {
    for (const [expression, missing] of [
      ['process.env', 'process is not defined'],
      ['require("fs")', 'require is not defined'],
      ['fetch("http://127.0.0.1")', 'fetch is not defined'],
    ]) {
      const result = await run(`async function main() { return ${expression}; }`);
      expect(result.ok === false && result.message).toContain(missing);
    }
    const imported = await run('async function main() { return await import("node:fs"); }');
    expect(imported.ok).toBe(false);
    const globals = await run(
      'async function main() { return Object.getOwnPropertyNames(globalThis).filter((n) => /^(process|require|module|Buffer|setTimeout)$/.test(n)); }',
    );
    expect(globals).toMatchObject({ ok: true, value: [] });
  });

  it("reports a throw with the script's message and line", async () => {
    const result = await run(
      'async function main() {\n  const x = 1;\n  throw new Error("ticket system down");\n}',
    );
    expect(result).toMatchObject({
      ok: false,
      code: 'execution_failed',
      details: { file: 'scripts/test.js', line: 3 },
    });
    expect(result.ok === false && result.message).toContain('ticket system down (scripts/test.js:3:');
  });

  it('refuses values that are not JSON, naming where they are', async () => {
    const fn = await run('async function main() { return { nested: { f() {} } }; }');
    expect(fn.ok === false && fn.message).toContain('a function at result.nested.f');
    const cycle = await run('async function main() { const a = {}; a.self = a; return a; }');
    expect(cycle.ok === false && cycle.message).toContain('a cycle at result.self');
    expect(await run('async function main() { return 10n; }')).toMatchObject({
      ok: false,
      code: 'execution_failed',
    });
    expect(await run('async function main() {}')).toMatchObject({ ok: true, value: null });
  });

  it('caps console output at 64 KB', async () => {
    const result = await run(
      'async function main() { for (let i = 0; i < 2000; i++) console.log("x".repeat(100)); }',
    );
    expect(result.logs.length).toBeLessThan(64 * 1024 + 100);
    expect(result.logs).toContain('[logs truncated at 64 KB]');
  });

  it('reads the @timeout pragma from leading comments only', () => {
    expect(readTimeoutPragma('// helper\n// @timeout 5\nasync function main() {}', 's.js')).toBe(5);
    expect(readTimeoutPragma('/* @timeout 7 */\nmain()', 's.js')).toBe(7);
    expect(readTimeoutPragma('const a = 1; // @timeout 9', 's.js')).toBeUndefined();
    expect(() => readTimeoutPragma('// @timeout 0', 's.js')).toThrow(/1 to 600/);
  });
});
