// `npm run bench -- entry`: cold import of each package entry from dist/ in a fresh Node process (median of runs):
// time to import and resident memory after it. The root entry must stay far below `toolport/providers` (issue 10 #18).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const ENTRIES = ['index.js', 'plugin/index.js', 'providers/index.js', 'mcp/index.js', 'server/index.js'];
const RUNS = 7;

if (!existsSync(`${DIST}index.js`)) {
  process.stderr.write('dist/ is missing: run `npm run build` first\n');
  process.exit(1);
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

process.stdout.write('| entry | import ms (median) | RSS MB (median) |\n|---|---|---|\n');
for (const entry of ENTRIES) {
  const times: number[] = [];
  const memory: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const script =
      `const t=performance.now();await import(${JSON.stringify(pathToFileURL(DIST + entry).href)});` +
      'console.log(JSON.stringify({ms:performance.now()-t,rss:process.memoryUsage().rss}))';
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    const line = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { ms: number; rss: number };
    times.push(line.ms);
    memory.push(line.rss / 1e6);
  }
  process.stdout.write(`| ${entry} | ${median(times).toFixed(0)} | ${median(memory).toFixed(0)} |\n`);
}
