// Run by `npm run build` after tsc (issue 11 item 1): bundles dist/cli/main.js and its static graph of toolport
// modules into one file, dist/cli/main.bundle.js, which bin/toolport.js loads for the one-shot `tools` commands.
// Node resolves, reads and links each ESM module on its own (~0.7 ms apiece on a slow VM), and `tools run` needs
// about 80 of them. One file saves ~35 ms of the command's start.
// - npm packages stay imports (one copy per process, resolved from dist/cli as before).
// - Every module's `import.meta.url` becomes its own dist file's URL, computed from the bundle's location at run
//   time. Worker entries, the validators' `createRequire`, package.json and the code-tool plugin entry therefore
//   resolve exactly as they do unbundled, wherever the package is installed.
// - The commands main.js imports on use (serve, chat, mcp…) stay imports of their dist files. bin/toolport.js sends
//   those commands to dist/cli/main.js instead, so no process holds two copies of a toolport module.
import { readFile } from 'node:fs/promises';
import { dirname, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const cliDirectory = fileURLToPath(new URL('../dist/cli/', import.meta.url));
const entry = `${cliDirectory}main.js`;

const keepImported = {
  name: 'toolport-keep-commands-imported',
  setup(build) {
    build.onResolve({ filter: /^\.\/[a-z-]+-command\.js$/ }, (args) =>
      args.kind === 'dynamic-import' && args.importer === entry
        ? { path: args.path, external: true }
        : undefined,
    );
    build.onLoad({ filter: /\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const fromBundle = relative(cliDirectory, args.path).split(sep).join('/');
      const ownUrl = `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`;
      return {
        contents: source.replace(/\bimport\.meta\.url\b/g, ownUrl),
        loader: 'js',
        resolveDir: dirname(args.path),
      };
    });
  },
};

const result = await esbuild.build({
  entryPoints: [entry],
  // Beside main.js, so each module's relative URL below holds for the entry and for every chunk alike.
  outdir: cliDirectory,
  entryNames: '[name].bundle',
  // What a toolport module imports on use becomes a chunk loaded on use, with the packages it imports: a package the
  // command never reaches is never loaded.
  splitting: true,
  chunkNames: '[name].bundle-[hash]',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  packages: 'external',
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
  plugins: [keepImported],
});
const modules = Object.keys(result.metafile.inputs).length;
const files = Object.keys(result.metafile.outputs).length;
process.stdout.write(`bundle-cli: ${modules} modules into dist/cli/main.bundle.js and ${files - 1} chunks\n`);
