// Issue 16: what a permission check costs per call — the parser's first load, then a shell line's evaluation
// (parse + match) and a path rule's. Prints medians of interleaved runs (noisy machine: compare within one run).
import { evaluateRule } from '../src/permissions/evaluate-rule.ts';
import { parseShellLine } from '../src/permissions/shell-commands.ts';

const LINE = 'git status && (cd build; rm -rf "x y") | grep -v $(echo hi) ; echo "a;b"';
const SHELL_RULE = { '*': 'ask', 'git status*': 'allow', 'rm -rf *': 'deny' } as const;
const PATH_RULE = { '*': 'ask', 'src/**': 'allow', '**/.env': 'deny' } as const;

const loadStart = performance.now();
parseShellLine('true && true');
process.stdout.write(`mvdan-sh first load + parse: ${(performance.now() - loadStart).toFixed(1)} ms\n`);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const ROUNDS = 9;
const ITERATIONS = 300;
const samples = { parse: [] as number[], shell: [] as number[], plain: [] as number[], path: [] as number[] };
for (let round = 0; round < ROUNDS; round += 1) {
  let start = performance.now();
  for (let index = 0; index < ITERATIONS; index += 1) parseShellLine(LINE);
  samples.parse.push(((performance.now() - start) * 1000) / ITERATIONS);
  start = performance.now();
  for (let index = 0; index < ITERATIONS; index += 1)
    evaluateRule(SHELL_RULE, 'bash', { command: LINE }, '/w');
  samples.shell.push(((performance.now() - start) * 1000) / ITERATIONS);
  start = performance.now();
  for (let index = 0; index < ITERATIONS; index += 1)
    evaluateRule(SHELL_RULE, 'bash', { command: 'git status' }, '/w');
  samples.plain.push(((performance.now() - start) * 1000) / ITERATIONS);
  start = performance.now();
  for (let index = 0; index < ITERATIONS; index += 1)
    evaluateRule(PATH_RULE, 'write_file', { path: 'src/a/b.ts' }, '/w');
  samples.path.push(((performance.now() - start) * 1000) / ITERATIONS);
}
process.stdout.write(`parse one line (6 commands): ${median(samples.parse).toFixed(1)} µs\n`);
process.stdout.write(`shell rule, whole check: ${median(samples.shell).toFixed(1)} µs\n`);
process.stdout.write(`shell rule, plain line (no parser): ${median(samples.plain).toFixed(1)} µs\n`);
process.stdout.write(`path rule, whole check: ${median(samples.path).toFixed(1)} µs\n`);
