#!/usr/bin/env node
// `npm test` and `npm start` run this first (root package.json pre-scripts), so an old Node explains itself instead of
// failing deep inside the build or the test runner. Plain JavaScript, like node-version.js. The optional argument
// stands in for the running version (tests).
import { nodeVersionProblem } from './node-version.js';

const problem = nodeVersionProblem(process.argv[2] ?? process.versions.node);
if (problem !== undefined) {
  process.stderr.write(problem);
  process.exit(1);
}
