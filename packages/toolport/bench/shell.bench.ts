// `npm run bench -- shell`: the shell tool's overhead over a bare spawn of `bash -c 'echo hi'` (issue 3 goal: ≤ 20%
// unsandboxed), and what the sandbox adds per call (issue 9 goal: ≤ 15 ms p50). Each variant runs ROUNDS times,
// interleaved so machine noise hits all of them alike; medians, p90 and the sandbox's added cost are printed.
import { spawn } from 'node:child_process';
import { executeTool } from '../src/core/execute-tool.ts';
import { ToolRegistry } from '../src/core/tool-registry.ts';
import { findBashSpec } from '../src/tools/bash.ts';
import { buildShellTool } from '../src/tools/shell/build-shell-tool.ts';
import { buildChildEnvironment } from '../src/tools/shell/build-child-environment.ts';
import { runShellCommand } from '../src/tools/shell/run-shell-command.ts';
import {
  describeShellSandboxStatus,
  detectShellSandbox,
  planShellSandbox,
} from '../src/tools/shell/shell-sandbox.ts';

const ROUNDS = Number(process.env.SHELL_BENCH_ROUNDS ?? 100);
const WARMUP = 20;
const COMMAND = 'echo hi';

const spec = findBashSpec();
if (spec === undefined) throw new Error('bash is not on PATH');
const interpreter = spec.interpreter;

/** The baseline: what any Node program does to run a command and read its output. */
function bareSpawn(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(interpreter, ['-c', COMMAND], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', () => resolve(out));
  });
}

const environment = buildChildEnvironment(process.env, []);
const status = await detectShellSandbox();
process.stdout.write(`${describeShellSandboxStatus(status)}\n`);
const sandbox = await planShellSandbox({ status, workingDirectory: undefined, services: {} });
const runDirectly = (plan: typeof sandbox) => () =>
  runShellCommand({
    interpreter,
    args: ['-c', COMMAND],
    cwd: process.cwd(),
    env: environment,
    timeoutMs: 30_000,
    maxOutputBytes: 100 * 1024,
    sandbox: plan,
  });
const runDirect = runDirectly(undefined);
const runSandboxed = runDirectly(sandbox);

const registry = new ToolRegistry();
registry.register(buildShellTool(spec), { kind: 'builtin', origin: 'builtin:bash' });
const runTool = (sandboxEnabled: boolean) => async () => {
  const outcome = await executeTool(
    {
      toolName: 'bash',
      arguments: { command: COMMAND },
      userId: 'bench',
      settingsOverrides: { enabled: true },
    },
    { registry, services: { shellSandbox: { enabled: sandboxEnabled } } },
  );
  if (!outcome.ok) throw new Error(outcome.error.message);
};

const UNSANDBOXED_TOOL = 'bash tool, unsandboxed';
const SANDBOXED_TOOL = 'bash tool, sandboxed';
const variants: [string, () => Promise<unknown>][] = [
  ['bare spawn (bash -c, pipes)', bareSpawn],
  ['runShellCommand', runDirect],
  [UNSANDBOXED_TOOL, runTool(false)],
  ...(sandbox === undefined
    ? []
    : ([
        ['runShellCommand, sandboxed', runSandboxed],
        [SANDBOXED_TOOL, runTool(true)],
      ] as [string, () => Promise<unknown>][])),
];

const timings = new Map<string, number[]>(variants.map(([name]) => [name, []]));
for (let round = 0; round < WARMUP + ROUNDS; round += 1) {
  for (const [name, run] of variants) {
    const start = performance.now();
    await run();
    if (round >= WARMUP) timings.get(name)!.push(performance.now() - start);
  }
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};
const baseline = median(timings.get(variants[0]![0])!);
process.stdout.write(`node ${process.version}, ${ROUNDS} rounds, command ${JSON.stringify(COMMAND)}\n`);
for (const [name] of variants) {
  const values = timings.get(name)!;
  const value = median(values);
  const p90 = [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.9)]!;
  const overhead = ((value / baseline - 1) * 100).toFixed(1);
  process.stdout.write(
    `${name.padEnd(30)} median ${value.toFixed(2).padStart(6)} ms  p90 ${p90.toFixed(2).padStart(6)} ms  ` +
      `overhead ${overhead.padStart(5)}%${name === UNSANDBOXED_TOOL ? '  (goal ≤ 20%)' : ''}\n`,
  );
}
if (sandbox !== undefined) {
  const added = median(timings.get(SANDBOXED_TOOL)!) - median(timings.get(UNSANDBOXED_TOOL)!);
  process.stdout.write(`sandbox adds ${added.toFixed(2)} ms per call at p50 (goal ≤ 15 ms)\n`);
} else process.stdout.write('sandbox unavailable here: only the unsandboxed path was measured\n');
