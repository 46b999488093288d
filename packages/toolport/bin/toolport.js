#!/usr/bin/env node
import { nodeVersionProblem } from './node-version.js';

const problem = nodeVersionProblem(process.versions.node);
if (problem !== undefined) {
  process.stderr.write(problem);
  process.exit(1);
}
const { runCli } = await import('../dist/cli/main.js');
const controller = new AbortController();
// First Ctrl-C cancels running work (tools see an abort, shells end their process groups); a second one exits.
process.once('SIGINT', () => {
  controller.abort(new Error('interrupted'));
  process.once('SIGINT', () => process.exit(130));
});
process.exitCode = await runCli(process.argv.slice(2), undefined, controller.signal);
