import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
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

const PROVIDER_SDKS = /^(openai|@anthropic-ai\/sdk|@google\/genai)(\/|$)/;
const DIST_ROOT = resolve(import.meta.dirname, '../dist');

/** The bare specifiers a fresh Node process resolves while importing `entry` from dist/ (a resolve hook records them). */
function packagesLoadedBy(entry: string): string[] {
  const hook =
    "data:text/javascript,import{registerHooks}from'node:module';registerHooks({resolve(s,c,n){" +
    "if(!s.startsWith('.')&&!s.startsWith('node:')&&!s.startsWith('file:'))process.stderr.write('LOADED '+s+'\\n');" +
    'return n(s,c)}})';
  const result = spawnSync(
    process.execPath,
    [
      '--import',
      hook,
      '--input-type=module',
      '-e',
      `await import(${JSON.stringify(pathToFileURL(join(DIST_ROOT, entry)).href)})`,
    ],
    { encoding: 'utf8' },
  );
  expect(result.status, result.stderr).toBe(0);
  return [...result.stderr.matchAll(/^LOADED (.+)$/gm)].map((match) => match[1]!);
}

describe('toolport root entry and toolport/providers', () => {
  it('the root entry reaches no provider SDK through its imports', () => {
    const { packages, files } = importGraph('index.ts');
    expect(packages.filter((name) => PROVIDER_SDKS.test(name))).toEqual([]);
    expect(
      files.filter((file) => /stream-adapter|image-generation-service|create-provider-adapter/.test(file)),
    ).toEqual([]);
  });

  it('import("toolport") loads no provider SDK at run time; import("toolport/providers") loads all three', () => {
    if (!existsSync(join(DIST_ROOT, 'providers/index.js')))
      throw new Error('dist/ is missing or stale: run `npm run build` (npm test builds first).');
    expect(packagesLoadedBy('index.js').filter((name) => PROVIDER_SDKS.test(name))).toEqual([]);
    const providers = packagesLoadedBy('providers/index.js');
    for (const sdk of ['openai', '@anthropic-ai/sdk', '@google/genai'])
      expect(
        providers.some((name) => name === sdk || name.startsWith(`${sdk}/`)),
        sdk,
      ).toBe(true);
  });

  it('package.json exports ./providers from dist', () => {
    const manifest = JSON.parse(readFileSync(resolve(import.meta.dirname, '../package.json'), 'utf8')) as {
      exports: Record<string, { default: string }>;
    };
    expect(manifest.exports['./providers']?.default).toBe('./dist/providers/index.js');
  });
});
