import { readFile } from 'node:fs/promises';
import { dirname, extname, parse, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as EsbuildModule from 'esbuild';
import type { BuildFailure, Message, Metafile, Plugin, PluginBuild } from 'esbuild';
import { BUN_STUB_BANNER } from './code-tool-bun-stub.ts';

/**
 * CODE-1 loading without a build step, on every supported Node (22.12 strips no types): each tool file is bundled
 * by esbuild into one ESM text — TypeScript stripped, relative imports (with or without an extension) inlined,
 * top-level await kept — and imported from a `data:` URL. Bare `zod`, `toolport/plugin` and `@opencode-ai/plugin`
 * resolve to toolport's own modules (so a project needs no node_modules); other packages resolve from the tool
 * file's folder and stay external. A new text is a new URL, so an edited file never meets a stale ESM cache.
 * docs/code-tools.md has the measurements that chose esbuild over Node's type stripping, jiti, amaro and sucrase.
 */

export interface BundledToolFile {
  file: string;
  /** The ESM text to import; absent when bundling failed. */
  code?: string;
  /** Every source file the bundle read (the tool file and its relative imports): a change to any reloads it. */
  inputs: string[];
  /** Why bundling failed, with the location. */
  error?: string;
}

const SKIP_PLUGIN = Symbol('toolport.code-tool.resolved');
const TOOLPORT_DIRECTORY = dirname(fileURLToPath(import.meta.url));
// toolport's own sources (src/ or dist/): bundled in from src, never an input worth watching or stamping.
const TOOLPORT_SOURCE_ROOT = `${dirname(TOOLPORT_DIRECTORY)}${sep}`;
// `.ts` when running from src, `.js` from dist: the plugin entry sits next to this module's folder either way.
const PLUGIN_ENTRY_URL = new URL(
  `../plugin/index${extname(fileURLToPath(import.meta.url))}`,
  import.meta.url,
);
// From dist the tool imports toolport's loaded plugin module. From src (tests, `node src/…`) it is bundled in
// instead, so a Node without type stripping (22.12) never has to import a `.ts` file; errors stay recognizable
// across copies (isToolportError checks a registered symbol).
const PLUGIN_RESOLUTION = PLUGIN_ENTRY_URL.pathname.endsWith('.ts')
  ? { path: fileURLToPath(PLUGIN_ENTRY_URL) }
  : { path: PLUGIN_ENTRY_URL.href, external: true };
const PLUGIN_ALIASES = new Set(['toolport/plugin', '@opencode-ai/plugin']);
const BUN_MODULE = /^bun(:|$)/;
const INSIDE_NODE_MODULES = /[\\/]node_modules[\\/]/;
const IMPORT_META_FIELD = /\bimport\.meta\.(url|dirname|filename|dir|path)\b/g;
const SOURCE_LOADERS: Record<string, 'ts' | 'tsx' | 'js' | 'jsx'> = {
  '.ts': 'ts',
  '.mts': 'ts',
  '.cts': 'ts',
  '.tsx': 'tsx',
  '.js': 'js',
  '.mjs': 'js',
  '.cjs': 'js',
  '.jsx': 'jsx',
};

type Esbuild = typeof EsbuildModule;
let esbuildModule: Promise<Esbuild> | undefined;
/** Loaded on first use: a project without code tools never pays for esbuild. */
function loadEsbuild(): Promise<Esbuild> {
  esbuildModule ??= import('esbuild');
  return esbuildModule;
}

/** esbuild's message with its location; locations are relative to `root` (the build's working directory). */
function formatMessage(message: Message, root: string): string {
  const where = message.location;
  return where === null
    ? message.text
    : `${message.text} (${root}${where.file}:${where.line}:${where.column + 1})`;
}

/** The tool file's own `import.meta` fields, not the data: URL's (opencode files read `import.meta.dir`). */
function importMetaReplacement(path: string): (match: string, field: string) => string {
  return (_match, field) => {
    switch (field) {
      case 'url':
        return JSON.stringify(pathToFileURL(path).href);
      case 'filename':
      case 'path':
        return JSON.stringify(path);
      default:
        return JSON.stringify(dirname(path));
    }
  };
}

const resolutionPlugin: Plugin = {
  name: 'toolport-code-tools',
  setup(build: PluginBuild) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if ((args.pluginData as unknown) === SKIP_PLUGIN || args.path.startsWith('node:')) return undefined;
      if (PLUGIN_ALIASES.has(args.path)) return PLUGIN_RESOLUTION;
      if (BUN_MODULE.test(args.path)) {
        return {
          errors: [
            {
              text:
                `The Bun module "${args.path}" is not available: toolport runs tools on Node.js. ` +
                'Run programs with context.run(command, args) and use node:fs for files.',
            },
          ],
        };
      }
      const isZod = args.path === 'zod' || args.path.startsWith('zod/');
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        // zod is always toolport's own copy: tool.schema and the tool's zod must be one instance.
        resolveDir: isZod ? TOOLPORT_DIRECTORY : args.resolveDir,
        pluginData: SKIP_PLUGIN,
      });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      if (resolved.external || resolved.path === '') return undefined;
      return { path: pathToFileURL(resolved.path).href, external: true };
    });
    build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, async (args) => {
      if (INSIDE_NODE_MODULES.test(args.path)) return undefined;
      const source = await readFile(args.path, 'utf8');
      return {
        contents: source.replace(IMPORT_META_FIELD, importMetaReplacement(args.path)),
        loader: SOURCE_LOADERS[extname(args.path)] ?? 'js',
        resolveDir: dirname(args.path),
      };
    });
  },
};

function isBuildFailure(error: unknown): error is BuildFailure {
  return typeof error === 'object' && error !== null && Array.isArray((error as BuildFailure).errors);
}

async function bundle(files: readonly string[]): Promise<BundledToolFile[]> {
  const esbuild = await loadEsbuild();
  const root = parse(files[0]!).root;
  const result = await esbuild.build({
    entryPoints: files.map((file, index) => ({ in: file, out: `m${index}` })),
    absWorkingDir: root,
    outdir: `${root}toolport-code-tools`,
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    resolveExtensions: ['.ts', '.mts', '.tsx', '.js', '.mjs', '.jsx', '.cts', '.cjs', '.json'],
    banner: { js: BUN_STUB_BANNER },
    logLevel: 'silent',
    plugins: [resolutionPlugin],
  });
  const metafile: Metafile = result.metafile;
  return files.map((file, index) => {
    const outputKey = `toolport-code-tools/m${index}.js`;
    const output = result.outputFiles.find((candidate) => candidate.path === `${root}${outputKey}`);
    const inputs = Object.keys(metafile.outputs[outputKey]?.inputs ?? {})
      .map((input) => `${root}${input}`)
      .filter((input) => !input.startsWith(TOOLPORT_SOURCE_ROOT));
    return output === undefined
      ? { file, inputs: [file], error: 'esbuild produced no output for this file.' }
      : { file, code: output.text, inputs: inputs.length === 0 ? [file] : inputs };
  });
}

/**
 * Bundles every file in one esbuild call; when that fails (one file does not parse or resolve), bundles each file
 * alone so the failure is reported for its own file and every other file still loads (CODE-1 failure isolation).
 */
export async function bundleCodeToolFiles(files: readonly string[]): Promise<BundledToolFile[]> {
  if (files.length === 0) return [];
  try {
    return await bundle(files);
  } catch (error) {
    if (!isBuildFailure(error) || files.length === 1) {
      const reason = isBuildFailure(error)
        ? error.errors.map((message) => formatMessage(message, parse(files[0]!).root)).join('; ')
        : error instanceof Error
          ? error.message
          : String(error);
      return files.map((file) => ({ file, inputs: [file], error: reason }));
    }
    return (await Promise.all(files.map((file) => bundleCodeToolFiles([file])))).flat();
  }
}
