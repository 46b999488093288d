import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SOURCE_ROOT = resolve(import.meta.dirname, '../src');

/** Every module `entry` reaches through relative imports, and the bare packages they import. */
function importGraph(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(
      /^\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'|import\('([^']+)'\)/gm,
    )) {
      const specifier = match[1] ?? match[2]!;
      if (/^(import|export) type /.test(match[0].trim())) continue;
      if (specifier.startsWith('.')) visit(join(dirname(file), specifier));
      else packages.add(specifier);
    }
  };
  visit(join(SOURCE_ROOT, entry));
  return { files: [...files].map((file) => relative(SOURCE_ROOT, file)), packages: [...packages] };
}

describe('toolport/server entry', () => {
  it('the root entry loads no database driver, query builder or HTTP server', () => {
    const { packages, files } = importGraph('index.ts');
    expect(packages.filter((name) => /kysely|sqlite|^pg$|fastify|typebox/.test(name))).toEqual([]);
    expect(files.filter((file) => /^(persistence|http|services|server)\//.test(file))).toEqual([]);
  });

  it('toolport/server reaches the persistence, services and HTTP layers', () => {
    const { files } = importGraph('server/index.ts');
    for (const file of ['persistence/database.ts', 'services/toolport-services.ts', 'http/build-server.ts']) {
      expect(files).toContain(file);
    }
  });
});
