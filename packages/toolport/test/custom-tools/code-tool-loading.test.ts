import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getSafeEffectiveToolSettings } from '../../src/core/settings-policy.ts';
import {
  createSandbox,
  names,
  registryWith,
  run,
  sandboxToolSet,
  type CodeToolSandbox,
  mathTool,
} from './code-tool-harness.ts';

const MATH = mathTool();

let sandbox: CodeToolSandbox;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(() => sandbox.remove());

describe('CODE-1 loading code tools from files', () => {
  it('math.ts with two exports becomes math_add and math_multiply, and both run', async () => {
    sandbox.write('project/.toolport/tools/math.ts', MATH);
    const snapshot = await sandboxToolSet(sandbox).refresh();
    expect(names(snapshot)).toEqual(['math_add', 'math_multiply']);
    expect(snapshot.loadErrors).toEqual([]);
    const registry = registryWith(snapshot);
    expect(await run(registry, 'math_add', { a: 2, b: 3 })).toMatchObject({ ok: true, result: 5 });
    expect(await run(registry, 'math_multiply', { a: 4, b: 2.5 })).toMatchObject({ ok: true, result: 10 });
    expect(registry.getEntry('math_add')?.source).toEqual({
      kind: 'code',
      origin: join(sandbox.project, '.toolport/tools/math.ts'),
      file: join(sandbox.project, '.toolport/tools/math.ts'),
    });
  });

  it('a default export is named after the file; constants beside tools are ignored', async () => {
    sandbox.write(
      'project/.toolport/tools/database.ts',
      `import { tool } from "toolport/plugin"
export const LIMIT = 10
export const helper = { notATool: true }
export default tool({
  description: "Query the project database",
  args: { query: tool.schema.string().describe("SQL query to execute") },
  async execute(args) { return \`Executed query: \${args.query}\` },
})`,
    );
    const snapshot = await sandboxToolSet(sandbox).refresh();
    expect(names(snapshot)).toEqual(['database']);
    expect(snapshot.loadErrors).toEqual([]);
    const outcome = await run(registryWith(snapshot), 'database', { query: 'select 1' });
    expect(outcome).toMatchObject({
      ok: true,
      result: 'Executed query: select 1',
      output: 'Executed query: select 1',
    });
  });

  it('a plain object with zod args from "zod" works like tool(), without node_modules in the project', async () => {
    sandbox.write(
      'project/.toolport/tools/plain.js',
      `import { z } from "zod"
export default {
  description: "Tool description",
  args: { param: z.string().describe("Parameter description") },
  async execute(args, context) { return { echoed: args.param, hasContext: typeof context.directory === "string" } },
}`,
    );
    expect(existsSync(join(sandbox.project, 'node_modules'))).toBe(false);
    const snapshot = await sandboxToolSet(sandbox).refresh();
    const outcome = await run(registryWith(snapshot), 'plain', { param: 'x' });
    expect(outcome).toMatchObject({ ok: true, result: { echoed: 'x', hasContext: true } });
  });

  it('loads TypeScript with types, relative imports with and without an extension, and top-level await', async () => {
    sandbox.write(
      'project/.toolport/lib/scale.ts',
      'export interface Scale { factor: number }\nexport const scale: Scale = { factor: 3 };\n',
    );
    sandbox.write('project/.toolport/lib/offset.mts', 'export const offset: number = 1;\n');
    sandbox.write(
      'project/.toolport/tools/typed.ts',
      `import { tool, type ToolContext } from "toolport/plugin"
import { scale, type Scale } from "../lib/scale"
import { offset } from "../lib/offset.mts"
type Input = { x: number }
const ready: Scale = await Promise.resolve(scale)
function compute(input: Input, s: Scale): number { return input.x * s.factor + offset }
export default tool({
  description: "Typed",
  args: { x: tool.schema.number() },
  async execute(args: Input, _context: ToolContext): Promise<number> { return compute(args, ready) },
})`,
    );
    const snapshot = await sandboxToolSet(sandbox).refresh();
    expect(snapshot.loadErrors).toEqual([]);
    expect(await run(registryWith(snapshot), 'typed', { x: 2 })).toMatchObject({ ok: true, result: 7 });
  });

  it('import.meta.url/dirname are the tool file’s own', async () => {
    sandbox.write(
      'project/.toolport/tools/where.mjs',
      `export default { description: "where", args: {}, execute: () => ({ url: import.meta.url, dir: import.meta.dirname }) }`,
    );
    const snapshot = await sandboxToolSet(sandbox).refresh();
    const outcome = await run(registryWith(snapshot), 'where', {});
    expect(outcome).toMatchObject({
      ok: true,
      result: {
        url: `file://${join(sandbox.project, '.toolport/tools/where.mjs')}`,
        dir: join(sandbox.project, '.toolport/tools'),
      },
    });
  });

  it('every code tool has a timeoutSeconds setting (5–600, default 30) and is enabled by default', async () => {
    sandbox.write('project/.toolport/tools/math.ts', MATH);
    const tool = registryWith(await sandboxToolSet(sandbox).refresh()).get('math_add')!;
    expect(tool.settings.parameterDescriptors).toEqual([
      expect.objectContaining({ name: 'timeoutSeconds', minimum: 5, maximum: 600, default: 30 }),
    ]);
    expect(getSafeEffectiveToolSettings(tool, undefined, undefined)).toEqual({
      enabled: true,
      parameters: { timeoutSeconds: 30 },
    });
  });
});

describe('CODE-1 failure isolation', () => {
  it('a file that does not parse, one that throws at import and a non-tool default export are load errors; the rest loads', async () => {
    sandbox.write('project/.toolport/tools/math.ts', MATH);
    const broken = sandbox.write('project/.toolport/tools/broken.ts', 'export const x = ;\n');
    const throws = sandbox.write(
      'project/.toolport/tools/throws.js',
      'throw new Error("kaboom at import");\n',
    );
    const notTool = sandbox.write('project/.toolport/tools/config.js', 'export default { port: 8080 };\n');
    const snapshot = await sandboxToolSet(sandbox).refresh();
    expect(names(snapshot)).toEqual(['math_add', 'math_multiply']);
    const byFile = new Map(snapshot.loadErrors.map((error) => [error.file, error.reason]));
    expect(byFile.size).toBe(3);
    expect(byFile.get(broken)).toMatch(/could not be compiled: .*Unexpected ";"/);
    expect(byFile.get(throws)).toMatch(/failed while importing: kaboom at import/);
    expect(byFile.get(notTool)).toMatch(/default export is not a tool/);
  });

  it('a tool that throws is an execution_failed result with its message, never a crash', async () => {
    sandbox.write(
      'project/.toolport/tools/fail.ts',
      `export default { description: "fails", args: {}, async execute() { throw new Error("the tool broke") } }`,
    );
    const outcome = await run(registryWith(await sandboxToolSet(sandbox).refresh()), 'fail', {});
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'execution_failed', message: 'the tool broke' },
    });
  });

  it('an export whose name breaks the name rule is refused clearly; its file’s other tools load', async () => {
    const file = sandbox.write(
      'project/.toolport/tools/bad name.ts',
      `export default { description: "d", args: {}, execute: () => 1 }`,
    );
    sandbox.write(
      'project/.toolport/tools/ok.ts',
      `export default { description: "d", args: {}, execute: () => 1 }`,
    );
    const snapshot = await sandboxToolSet(sandbox).refresh();
    expect(names(snapshot)).toEqual(['ok']);
    expect(snapshot.loadErrors).toEqual([
      { file, reason: expect.stringMatching(/"bad name".*not allowed.*1-64/) },
    ]);
  });

  it('args that are not zod schemas are a load error naming the argument', async () => {
    const file = sandbox.write(
      'project/.toolport/tools/wrong.ts',
      `export default { description: "d", args: { q: { type: "string" } }, execute: () => 1 }`,
    );
    const snapshot = await sandboxToolSet(sandbox).refresh();
    expect(snapshot.loadErrors).toEqual([
      { file, reason: expect.stringContaining('args.q is not a zod schema') },
    ]);
  });
});

describe('CODE-1 discovery and precedence', () => {
  const tool = (text: string): string =>
    `export default { description: ${JSON.stringify(text)}, args: {}, execute: () => ${JSON.stringify(text)} }`;

  it('project .toolport/tools > project .opencode > global toolport > global opencode, shadowed ones listed', async () => {
    const strongest = sandbox.write('project/.toolport/tools/pick.ts', tool('project toolport'));
    const projectOpencode = sandbox.write('project/.opencode/tool/pick.ts', tool('project opencode'));
    sandbox.write('project/.opencode/tools/only_opencode.ts', tool('opencode tools folder'));
    const globalToolport = sandbox.write('xdg/toolport/tools/pick.ts', tool('global toolport'));
    sandbox.write('xdg/toolport/tools/global_only.ts', tool('global only'));
    sandbox.write('xdg/opencode/tools/pick.ts', tool('global opencode'));
    sandbox.write('xdg/opencode/tool/global_opencode_only.js', tool('global opencode only'));
    const snapshot = await sandboxToolSet(sandbox).refresh();
    expect(names(snapshot)).toEqual(['global_only', 'global_opencode_only', 'only_opencode', 'pick']);
    const registry = registryWith(snapshot);
    expect(await run(registry, 'pick', {})).toMatchObject({ result: 'project toolport' });
    expect(await run(registry, 'global_opencode_only', {})).toMatchObject({ result: 'global opencode only' });
    expect(snapshot.shadowed).toEqual([
      { name: 'pick', file: projectOpencode, shadowedBy: strongest },
      { name: 'pick', file: globalToolport, shadowedBy: strongest },
      { name: 'pick', file: join(sandbox.xdg, 'opencode/tools/pick.ts'), shadowedBy: strongest },
    ]);
  });

  it('two files of one folder producing one name are a load error naming both; neither wins', async () => {
    const first = sandbox.write('project/.toolport/tools/math_add.ts', tool('file named math_add'));
    const second = sandbox.write('project/.toolport/tools/math.ts', MATH);
    const snapshot = await sandboxToolSet(sandbox).refresh();
    expect(names(snapshot)).toEqual(['math_multiply']);
    for (const file of [first, second]) {
      expect(snapshot.loadErrors).toContainEqual({
        file,
        reason: expect.stringMatching(new RegExp(`${second}.*${first}|${first}.*${second}`)),
      });
    }
  });

  it('a code tool named like a built-in replaces it, enabled by default, and the listing says so', async () => {
    sandbox.write(
      'project/.toolport/tools/bash.ts',
      `export default { description: "Restricted bash wrapper", args: { command: (await import("zod")).z.string() }, async execute(args) { return \`blocked: \${args.command}\` } }`,
    );
    const snapshot = await sandboxToolSet(sandbox).refresh();
    const registry = registryWith(snapshot);
    expect(registry.getEntry('bash')?.source.kind).toBe('code');
    expect(await run(registry, 'bash', { command: 'rm -rf /' })).toMatchObject({
      ok: true,
      result: 'blocked: rm -rf /',
    });
  });

  it('ignores declaration files, hidden files and other extensions', async () => {
    sandbox.write('project/.toolport/tools/types.d.ts', 'export interface X { a: number }\n');
    sandbox.write('project/.toolport/tools/.hidden.ts', tool('hidden'));
    sandbox.write('project/.toolport/tools/readme.md', '# not a tool\n');
    sandbox.write('project/.toolport/tools/real.mts', tool('real'));
    expect(names(await sandboxToolSet(sandbox).refresh())).toEqual(['real']);
  });
});

describe('CODE-1 reloading without a restart', () => {
  it('an edit, a new file, an edited relative import and a removal are seen by the next refresh', async () => {
    const set = sandboxToolSet(sandbox);
    const file = sandbox.write(
      'project/.toolport/tools/greet.ts',
      `import { word } from "../lib/word"\nexport default { description: "v1", args: {}, execute: () => word + " v1" }`,
    );
    sandbox.write('project/.toolport/lib/word.ts', 'export const word = "hello";\n');
    let registry = registryWith(await set.refresh());
    expect(await run(registry, 'greet', {})).toMatchObject({ result: 'hello v1' });

    writeFileSync(
      file,
      `import { word } from "../lib/word"\nexport default { description: "v2", args: {}, execute: () => word + " v2" }`,
    );
    registry = registryWith(await set.refresh());
    expect(await run(registry, 'greet', {})).toMatchObject({ result: 'hello v2' });
    expect(registry.get('greet')?.definition.description).toBe('v2');

    sandbox.write('project/.toolport/lib/word.ts', 'export const word = "bonjour";\n');
    registry = registryWith(await set.refresh());
    expect(await run(registry, 'greet', {})).toMatchObject({ result: 'bonjour v2' });

    sandbox.write('project/.toolport/tools/math.ts', MATH);
    expect(names(await set.refresh())).toEqual(['greet', 'math_add', 'math_multiply']);

    rmSync(file);
    expect(names(await set.refresh())).toEqual(['math_add', 'math_multiply']);
  });

  it('an unchanged folder keeps its tool objects (no re-import)', async () => {
    sandbox.write('project/.toolport/tools/math.ts', MATH);
    const set = sandboxToolSet(sandbox);
    const first = await set.refresh();
    const second = await set.refresh();
    expect(second.entries[0]!.tool).toBe(first.entries[0]!.tool);
    expect(second.generation).toBe(first.generation);
  });
});
