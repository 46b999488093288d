#!/usr/bin/env node
import module from 'node:module';
import { nodeVersionProblem } from './node-version.js';

// Node's on-disk compile cache (22.1+): later runs skip compiling the CLI's modules. Absent on older Node: skipped.
module.enableCompileCache?.();

const problem = nodeVersionProblem(process.versions.node);
if (problem !== undefined) {
  process.stderr.write(problem);
  process.exit(1);
}
// The one-shot `tools` commands load the CLI as one bundled file (scripts/bundle-cli.mjs: ~35 ms less start-up);
// every other command loads the modules themselves, so a process never holds two copies of one.
const { runCli } =
  process.argv[2] === 'tools'
    ? await import('../dist/cli/main.bundle.js')
    : await import('../dist/cli/main.js');
// `toolport tools list | head`: a reader that stops early is not an error worth a stack trace (`toolport mcp`
// handles its own stdout: a closed pipe there means the client went away).
if (process.argv[2] !== 'mcp') {
  process.stdout.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}
const controller = new AbortController();
// First Ctrl-C cancels running work (tools see an abort, shells end their process groups); a second one exits.
process.once('SIGINT', () => {
  controller.abort(new Error('interrupted'));
  process.once('SIGINT', () => process.exit(130));
});
process.exitCode = await runCli(process.argv.slice(2), undefined, controller.signal);
