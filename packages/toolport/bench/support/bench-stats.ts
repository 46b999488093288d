// Small helpers the interleaved benchmarks share: medians, percentiles, and the load line every report starts with
// (on a shared machine the load average says how much an absolute number can be trusted: not much).
import { loadavg } from 'node:os';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** `fraction` of 0.99 is p99; the input need not be sorted. */
export function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

export function loadLine(): string {
  return `load average ${loadavg()
    .map((load) => load.toFixed(2))
    .join(' ')} (absolute numbers are unreliable on this shared machine; compare the ratios)`;
}

export const TOOLPORT_BIN = fileURLToPath(new URL('../../bin/toolport.js', import.meta.url));

export function requireBuild(): void {
  if (!existsSync(fileURLToPath(new URL('../../dist/cli/mcp-command.js', import.meta.url)))) {
    process.stderr.write('dist/ is missing: run `npm run build` first.\n');
    process.exit(1);
  }
}

/** A dev-dependency MCP server's entry in node_modules (never npx-downloaded). */
export function mcpPeerEntry(packageName: string): string {
  return fileURLToPath(
    import.meta.resolve(`${packageName}/package.json`).replace(/package\.json$/, 'dist/index.js'),
  );
}

export async function connectStdio(args: string[]): Promise<Client> {
  const client = new Client({ name: 'toolport-bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' }));
  return client;
}

export function ratio(ours: number, theirs: number): string {
  return (ours / theirs).toFixed(2);
}
