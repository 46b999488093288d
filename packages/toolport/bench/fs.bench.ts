// `npm run bench -- fs`: grep and glob against ripgrep and fd, and sha256 throughput against openssl (issue 3, item 7).
// Builds (once) a large corpus under .bench-corpus/ (a real node_modules, hundreds of MB) and uses lodash's ~1,000
// files as the small one. Warm cache, median of several runs. Our numbers are in-process, as the server runs them;
// rg/fd/openssl are timed as processes (what a tool spawning them would pay).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, openSync, closeSync, writeSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { executeTool } from '../src/core/execute-tool.ts';
import { ToolRegistry } from '../src/core/tool-registry.ts';
import { sha256OfFile } from '../src/fs/hash-file.ts';
import { closeScanWorkers, runScan } from '../src/fs/scan-pool.ts';
import { registerBuiltinTools } from '../src/tools/index.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const corpusRoot = join(repositoryRoot, '.bench-corpus');
const largeProject = join(corpusRoot, 'large');
const large = join(largeProject, 'node_modules');
const small = join(large, 'lodash');
const hashFile = join(corpusRoot, 'hash-100mib.bin');
const CORPUS_PACKAGES = [
  'typescript',
  'aws-sdk',
  'googleapis',
  '@mui/icons-material',
  'date-fns',
  'lodash',
  'rxjs',
  '@babel/core',
  'eslint',
  'webpack',
];

function which(...names: string[]): string | undefined {
  for (const name of names) {
    const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (found.status === 0) return found.stdout.trim();
  }
  return undefined;
}

function ensureCorpus(): void {
  if (!existsSync(join(large, 'lodash'))) {
    process.stdout.write(`building the large corpus in ${largeProject} (npm install, once)…\n`);
    mkdirSync(largeProject, { recursive: true });
    writeFileSync(join(largeProject, 'package.json'), '{"name":"toolport-bench-corpus","private":true}\n');
    const install = spawnSync(
      'npm',
      ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--omit=optional', ...CORPUS_PACKAGES],
      { cwd: largeProject, stdio: 'inherit' },
    );
    if (install.status !== 0) throw new Error('npm install of the corpus failed');
  }
  if (!existsSync(hashFile) || statSync(hashFile).size !== 100 * 1024 * 1024) {
    const descriptor = openSync(hashFile, 'w');
    for (let written = 0; written < 100; written += 1) writeSync(descriptor, randomBytes(1024 * 1024));
    closeSync(descriptor);
  }
}

function countFiles(directory: string): { files: number; megabytes: number } {
  const result = spawnSync(
    'sh',
    ['-c', `find "${directory}" -type f | wc -l; du -sm "${directory}" | cut -f1`],
    {
      encoding: 'utf8',
    },
  );
  const [files, megabytes] = result.stdout.trim().split('\n').map(Number);
  return { files: files ?? 0, megabytes: megabytes ?? 0 };
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function measure(run: () => unknown, runs = RUNS): Promise<number> {
  await run(); // warm cache and warm workers
  const times: number[] = [];
  for (let index = 0; index < runs; index += 1) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  return median(times);
}

/** Ours and theirs alternate run by run, so a load spike from other processes hits both sides alike. */
async function measurePair(
  ours: () => unknown,
  theirs: () => unknown,
  runs = RUNS,
): Promise<[number, number]> {
  await ours();
  await theirs();
  const oursTimes: number[] = [];
  const theirTimes: number[] = [];
  for (let index = 0; index < runs; index += 1) {
    let start = performance.now();
    await ours();
    oursTimes.push(performance.now() - start);
    start = performance.now();
    await theirs();
    theirTimes.push(performance.now() - start);
  }
  return [median(oursTimes), median(theirTimes)];
}

function spawnTimed(command: string, args: string[]): () => void {
  return () => {
    const result = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'ignore'] });
    if (result.error) throw result.error;
  };
}

const registry = registerBuiltinTools(new ToolRegistry());

async function grep(path: string, pattern: string, maxResults: number): Promise<number> {
  const outcome = await executeTool(
    {
      toolName: 'grep',
      arguments: { pattern, path },
      userId: 'bench',
      settingsOverrides: {
        parameters: { maxResults, maxFileSizeBytes: 64 * 1024 * 1024, timeoutSeconds: 600 },
      },
    },
    { registry },
  );
  if (!outcome.ok) throw new Error(outcome.error.message);
  return (outcome.result as { matches: unknown[] }).matches.length;
}

function seconds(milliseconds: number): string {
  return `${(milliseconds / 1000).toFixed(3)} s`;
}

function report(label: string, ours: number, theirs: number, theirName: string, goal: number): void {
  const ratio = ours / theirs;
  const verdict = ratio <= goal ? 'meets' : 'MISSES';
  process.stdout.write(
    `${label.padEnd(40)} toolport ${seconds(ours).padStart(9)} | ${theirName} ${seconds(theirs).padStart(9)} | ` +
      `ratio ${ratio.toFixed(2)} (goal ≤ ${goal.toFixed(1)}: ${verdict})\n`,
  );
}

ensureCorpus();
const rg = which('rg');
const fd = which('fd', 'fdfind');
const openssl = which('openssl');
const largeSize = countFiles(large);
const smallSize = countFiles(small);
process.stdout.write(
  `load average ${loadavg()
    .map((load) => load.toFixed(2))
    .join(' ')}; ` +
    `node ${process.version}; large corpus ${largeSize.files} files, ${largeSize.megabytes} MB; small corpus ` +
    `${smallSize.files} files; ${RUNS} runs, median, warm cache\n`,
);

const RARE = 'zqxjv_nomatch_[0-9]+';
if (rg === undefined) {
  process.stdout.write('rg not found: apt-get install -y ripgrep\n');
} else {
  // --no-ignore: the corpus sits in a gitignored directory, and our grep does not read .gitignore either.
  const [fullOurs, fullRg] = await measurePair(
    () => grep(large, RARE, 5000),
    spawnTimed(rg, ['--no-ignore', '-c', RARE, large]),
  );
  report('grep full scan (large)', fullOurs, fullRg, 'rg', 1.5);

  // Issue 11 item 4: a top-level alternation is prefiltered by one literal per alternative.
  const ALTERNATION = 'createProgram|readFileSync';
  const [alternationOurs, alternationRg] = await measurePair(
    () => grep(large, ALTERNATION, 5000),
    spawnTimed(rg, ['--no-ignore', '-c', ALTERNATION, large]),
  );
  report(`grep ${ALTERNATION} (large)`, alternationOurs, alternationRg, 'rg', 1.0);

  const firstOurs = await measure(() => grep(large, 'function', 100));
  const firstRg = await measure(
    spawnTimed('sh', ['-c', `"${rg}" --no-ignore -n function "${large}" | head -100`]),
  );
  report('grep first 100 matches (large)', firstOurs, firstRg, 'rg|head', 1.0);

  const [smallOurs, smallRg] = await measurePair(
    () => grep(small, RARE, 5000),
    spawnTimed(rg, ['--no-ignore', '-c', RARE, small]),
    RUNS * 4,
  );
  report('grep full scan (small)', smallOurs, smallRg, 'rg', 1.0);

  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  await grep(large, RARE, 5000);
  delay.disable();
  process.stdout.write(
    `event loop during a full scan: max delay ${(delay.max / 1e6).toFixed(1)} ms, p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms\n`,
  );
}

if (fd === undefined) {
  process.stdout.write('fd not found: apt-get install -y fd-find\n');
} else {
  const globTool = async (): Promise<number> => {
    const outcome = await executeTool(
      {
        toolName: 'glob',
        arguments: { pattern: '**/*.d.ts', cwd: large },
        userId: 'bench',
        settingsOverrides: { parameters: { maxResults: 5000, timeoutSeconds: 600 } },
      },
      { registry },
    );
    if (!outcome.ok) throw new Error(outcome.error.message);
    return (outcome.result as { matches: unknown[] }).matches.length;
  };
  // The whole walk, every match (fd's job), then what the tool does with its 5,000-result cap.
  const fullWalk = () =>
    runScan(
      {
        kind: 'glob',
        root: large,
        pattern: '**/*.d.ts',
        includeDotfiles: false,
        keepDotEntries: false,
        deniedRoots: [],
        respectGitignore: false,
        maxResults: Number.MAX_SAFE_INTEGER,
      },
      { deadlineMs: 600_000 },
    );
  const [globOurs, globFd] = await measurePair(
    fullWalk,
    spawnTimed(fd, ['--no-ignore', '-g', '*.d.ts', large]),
    RUNS * 2,
  );
  const matched = (await fullWalk()).items.length;
  report(`glob **/*.d.ts, all ${matched} (large)`, globOurs, globFd, 'fd', 1.0);
  const globCapped = await measure(globTool);
  process.stdout.write(`glob tool with maxResults 5000 (large): ${seconds(globCapped)}\n`);
}

const hashOurs = await measure(() => sha256OfFile(hashFile));
// (openssl is measured separately below: it is a reference, not a goal.)
process.stdout.write(
  `sha256 of 100 MiB, 1 MiB reads: toolport ${seconds(hashOurs)} = ${(0.1048576 / (hashOurs / 1000)).toFixed(2)} GB/s (goal ≥ 1 GB/s)`,
);
if (openssl !== undefined) {
  const hashOpenssl = await measure(spawnTimed(openssl, ['dgst', '-sha256', hashFile]));
  process.stdout.write(
    ` | openssl ${seconds(hashOpenssl)} = ${(0.1048576 / (hashOpenssl / 1000)).toFixed(2)} GB/s | ratio ${(hashOurs / hashOpenssl).toFixed(2)}`,
  );
}
process.stdout.write('\n');
await closeScanWorkers();
