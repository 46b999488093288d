// CODE-1 code tools. Goals: 100 TS files discovered + imported cold ≤ 300 ms; reload after one changed file ≤ 50 ms;
// per-call overhead of a code tool over a built-in ≤ 10 µs (p50).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { executeTool } from '../src/core/execute-tool.ts';
import { ToolRegistry } from '../src/core/tool-registry.ts';
import { defineTool } from '../src/core/tool-types.ts';
import { TIMEOUT_SECONDS_DESCRIPTOR } from '../src/core/settings-policy.ts';
import { projectCodeToolFolders } from '../src/custom-tools/code-tool-folders.ts';
import { registerCodeTools } from '../src/custom-tools/code-tool-registration.ts';
import { CodeToolSet } from '../src/custom-tools/code-tool-set.ts';

const COLD_RUNS = 5;
const RELOAD_RUNS = 20;
const CALLS = 100_000;
const WARMUP_CALLS = 20_000;

// The cold runs use the built loader when there is one (what the bin runs: the plugin is imported, not bundled in).
const builtLoader = existsSync(new URL('../dist/custom-tools/code-tool-set.js', import.meta.url));
const loaderFile = (name: string): string =>
  fileURLToPath(
    new URL(
      builtLoader ? `../dist/custom-tools/${name}.js` : `../src/custom-tools/${name}.ts`,
      import.meta.url,
    ),
  );
const setSource = loaderFile('code-tool-set');
const foldersSource = loaderFile('code-tool-folders');

function toolFile(index: number, typescript: boolean, version = 0): string {
  const annotate = (type: string): string => (typescript ? `: ${type}` : '');
  return `import { tool } from "toolport/plugin"
${typescript ? 'interface Pair { a: number; b: number }\n' : ''}const offset${annotate('number')} = ${index + version}
export const add = tool({
  description: "Add two numbers (${index})",
  args: { a: tool.schema.number().describe("First number"), b: tool.schema.number().describe("Second number") },
  async execute(args${annotate('Pair')})${annotate('Promise<number>')} { return args.a + args.b + offset },
})
export const multiply = tool({
  description: "Multiply two numbers (${index})",
  args: { a: tool.schema.number(), b: tool.schema.number() },
  async execute(args${annotate('Pair')}) { return args.a * args.b },
})
`;
}

function makeProject(count: number, typescript: boolean): string {
  const project = mkdtempSync(join(tmpdir(), 'toolport-bench-code-'));
  const folder = join(project, '.toolport', 'tools');
  mkdirSync(folder, { recursive: true });
  for (let index = 0; index < count; index += 1)
    writeFileSync(join(folder, `t${index}.${typescript ? 'ts' : 'js'}`), toolFile(index, typescript));
  return project;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** A fresh Node process: imports the loader (zod, esbuild) and loads the folder, timing both. */
function coldLoad(project: string): { totalMs: number; loaderImportMs: number; tools: number } {
  const script = `
const t0 = performance.now();
const [{ CodeToolSet }, { projectCodeToolFolders }] = await Promise.all([import(${JSON.stringify(setSource)}), import(${JSON.stringify(foldersSource)})]);
const t1 = performance.now();
const snapshot = await new CodeToolSet({ folders: projectCodeToolFolders(${JSON.stringify(project)}), workspace: ${JSON.stringify(project)} }).refresh();
if (snapshot.loadErrors.length > 0) throw new Error(JSON.stringify(snapshot.loadErrors));
console.log(JSON.stringify({ totalMs: performance.now() - t0, loaderImportMs: t1 - t0, tools: snapshot.entries.length }));`;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return JSON.parse(output.trim().split('\n').pop()!) as {
    totalMs: number;
    loaderImportMs: number;
    tools: number;
  };
}

console.log(
  `node ${process.version}; cold = a fresh process per run (median of ${COLD_RUNS}), loader from ` +
    `${builtLoader ? 'dist/' : 'src/'}; load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`,
);
console.log(
  'files  kind  tools  cold total (ms)  of which loader import: zod+esbuild (ms)  discovery+bundle+import (ms)',
);
for (const typescript of [true, false]) {
  for (const count of [1, 20, 100]) {
    const project = makeProject(count, typescript);
    try {
      const runs = Array.from({ length: COLD_RUNS }, () => coldLoad(project));
      const total = median(runs.map((run) => run.totalMs));
      const loader = median(runs.map((run) => run.loaderImportMs));
      const files = median(runs.map((run) => run.totalMs - run.loaderImportMs));
      console.log(
        `${String(count).padStart(5)}  ${typescript ? 'TS' : 'JS'}    ${String(runs[0]!.tools).padStart(5)}  ` +
          `${total.toFixed(1).padStart(15)}  ${loader.toFixed(1).padStart(38)}  ${files.toFixed(1).padStart(27)}`,
      );
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  }
}

// Reload after one file changed, in a warm process holding 100 TS tools.
{
  const project = makeProject(100, true);
  try {
    const set = new CodeToolSet({ folders: projectCodeToolFolders(project), workspace: project });
    await set.refresh();
    const unchanged: number[] = [];
    const reloads: number[] = [];
    for (let run = 0; run < RELOAD_RUNS; run += 1) {
      let started = performance.now();
      await set.refresh();
      unchanged.push(performance.now() - started);
      writeFileSync(join(project, '.toolport', 'tools', 't7.ts'), toolFile(7, true, run + 1));
      started = performance.now();
      const snapshot = await set.refresh();
      reloads.push(performance.now() - started);
      if (snapshot.entries.length !== 200) throw new Error('reload lost tools');
    }
    console.log(
      `\nreload, 100 TS files, one changed: median ${median(reloads).toFixed(1)} ms (max ${Math.max(...reloads).toFixed(1)}); ` +
        `a listing with nothing changed: median ${median(unchanged).toFixed(2)} ms`,
    );
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}

// Per-call overhead: a code tool (zod parse + context) against a built-in-style tool with the same JSON Schema.
{
  const project = makeProject(1, true);
  try {
    const snapshot = await new CodeToolSet({
      folders: projectCodeToolFolders(project),
      workspace: project,
    }).refresh();
    const registry = new ToolRegistry();
    registerCodeTools(registry, snapshot);
    const codeTool = registry.get('t0_add')!;
    registry.register(
      defineTool<{ a: number; b: number }>({
        definition: { name: 'builtin_add', description: 'Add', parameters: codeTool.definition.parameters },
        settings: {
          title: 'Add',
          description: 'Add',
          category: 'system',
          enabledByDefault: true,
          canDisable: true,
          defaultParameters: { timeoutSeconds: 30 },
          parameterDescriptors: [TIMEOUT_SECONDS_DESCRIPTOR],
        },
        execute: async ({ a, b }) => a + b,
      }),
    );
    const measure = async (toolName: string): Promise<number> => {
      const call = () => executeTool({ toolName, arguments: { a: 1, b: 2 }, userId: 'bench' }, { registry });
      for (let index = 0; index < WARMUP_CALLS; index += 1) await call();
      const samples = new Float64Array(CALLS);
      for (let index = 0; index < CALLS; index += 1) {
        const before = performance.now();
        await call();
        samples[index] = performance.now() - before;
      }
      samples.sort();
      return samples[Math.floor(CALLS / 2)]! * 1000;
    };
    // Interleaved twice so neither side gets only the warmer half of the run.
    const builtin = [await measure('builtin_add')];
    const code = [await measure('t0_add')];
    builtin.push(await measure('builtin_add'));
    code.push(await measure('t0_add'));
    const builtinP50 = Math.min(...builtin);
    const codeP50 = Math.min(...code);
    console.log(
      `\nper call (executeTool, p50 of ${CALLS.toLocaleString('en-US')}): built-in ${builtinP50.toFixed(2)} µs, ` +
        `code tool ${codeP50.toFixed(2)} µs, overhead ${(codeP50 - builtinP50).toFixed(2)} µs`,
    );
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}
