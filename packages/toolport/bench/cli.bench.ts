// `npm run bench -- cli` (build first): the one-shot CLI as a user runs it, whole process: `toolport tools run grep`
// on a small tree (this package's src/fs, ~30 files) against `node -e 0` and rg on the same tree, interleaved run by
// run, medians. Issue 11 item 1: within 80 ms of `node -e 0`. BENCH_CLI_RUNS tunes it.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadLine, median, requireBuild, TOOLPORT_BIN } from './support/bench-stats.ts';

requireBuild();
const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 15);
const tree = fileURLToPath(new URL('../src/fs', import.meta.url));
const PATTERN = 'resolveAndValidatePath';

function timed(command: string, args: string[]): () => number {
  return () => {
    const started = performance.now();
    const result = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'ignore'] });
    if (result.error) throw result.error;
    return performance.now() - started;
  };
}

const hasRg = spawnSync('sh', ['-c', 'command -v rg'], { stdio: 'ignore' }).status === 0;
const sides: Record<string, () => number> = {
  'node -e 0': timed(process.execPath, ['-e', '0']),
  'toolport tools run grep': timed(process.execPath, [
    TOOLPORT_BIN,
    'tools',
    'run',
    'grep',
    '--workdir',
    tree,
    '--args',
    JSON.stringify({ pattern: PATTERN }),
  ]),
  ...(hasRg ? { 'rg -n': timed('rg', ['-n', PATTERN, tree]) } : {}),
};
const times: Record<string, number[]> = Object.fromEntries(Object.keys(sides).map((name) => [name, []]));
for (const run of Object.values(sides)) run(); // warm the page cache and Node's compile cache
for (let index = 0; index < RUNS; index += 1) {
  for (const [name, run] of Object.entries(sides)) times[name]!.push(run());
}
const node = median(times['node -e 0']!);
process.stdout.write(`${loadLine()}\n${RUNS} interleaved runs, whole process, median:\n`);
for (const [name, values] of Object.entries(times)) {
  process.stdout.write(
    `${name.padEnd(26)} ${median(values).toFixed(0).padStart(5)} ms (min ${Math.min(...values).toFixed(0)})\n`,
  );
}
const tool = median(times['toolport tools run grep']!);
process.stdout.write(
  `toolport over node -e 0: +${(tool - node).toFixed(0)} ms (goal ≤ +80 ms: ${tool - node <= 80 ? 'meets' : 'MISSES'})` +
    `${hasRg ? `; ${(tool / median(times['rg -n']!)).toFixed(1)}× rg` : ''}\n`,
);
