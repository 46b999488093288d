/**
 * `node:util`'s `parseArgs`, without `import … from 'node:util'`: the ESM facade of a built-in reads every export, and
 * node:util's lazy ones load worker_threads, the diff and colour helpers and streams — about 3 ms of a one-shot
 * `toolport tools run`'s start-up (issue 11 item 1).
 */
export const parseArgs = process.getBuiltinModule('node:util').parseArgs;
