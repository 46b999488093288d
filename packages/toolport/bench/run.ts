// `npm run bench -- <name> [...]` runs bench/<name>.bench.ts. Each benchmark prints its own numbers.
// Runs on Node >= 23.6 (built-in type stripping); benchmarks are measured on Node 24.
import { readdirSync } from 'node:fs';

const available = readdirSync(new URL('.', import.meta.url))
  .filter((file) => file.endsWith('.bench.ts'))
  .map((file) => file.replace(/\.bench\.ts$/, ''))
  .sort();
const requested = process.argv.slice(2).filter((argument) => !argument.startsWith('-'));
if (requested.length === 0) {
  process.stderr.write(`usage: npm run bench -- <${available.join('|')}>\n`);
  process.exit(2);
}
for (const name of requested) {
  if (!available.includes(name)) {
    process.stderr.write(`unknown benchmark "${name}"; available: ${available.join(', ')}\n`);
    process.exit(2);
  }
  process.stdout.write(`\n## bench ${name}\n`);
  await import(`./${name}.bench.ts`);
}
