import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const sourceRoot = fileURLToPath(new URL('../src/', import.meta.url));

/** Every module `entry` pulls in, following relative imports; bare specifiers are collected as they are. */
function importGraph(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/(?:import|export)\s(?:[^'"]*?\sfrom\s)?['"]([^'"]+)['"]/g)) {
      const specifier = match[1]!;
      if (specifier.startsWith('.')) pending.push(resolve(dirname(file), specifier));
      else packages.add(specifier);
    }
  }
  return { files: [...files].map((file) => relative(sourceRoot, file)), packages: [...packages] };
}

describe('toolport/plugin stays light (STYLE)', () => {
  const graph = importGraph(resolve(sourceRoot, 'plugin/index.ts'));

  it('pulls in only core/ modules of ours', () => {
    expect(graph.files.length).toBeGreaterThan(1);
    for (const file of graph.files) expect(file).toMatch(/^(plugin|core)\//);
  });

  it('pulls in no database, server, provider SDK or process module', () => {
    const forbidden =
      /^(node:)?(child_process|http|https|net|worker_threads)$|kysely|sqlite|^pg$|fastify|openai|anthropic|@google|modelcontextprotocol/;
    expect(graph.packages.filter((name) => forbidden.test(name))).toEqual([]);
  });
});
