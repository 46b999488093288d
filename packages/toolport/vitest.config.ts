import { defineConfig } from 'vitest/config';

// CI (.ci/run) sets TOOLPORT_TEST_SUMMARY_FILE to get a JSON report it turns into a plain "N passed, N failed" line.
const summaryFile = process.env.TOOLPORT_TEST_SUMMARY_FILE;

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    setupFiles: ['test/support/loopback-only-setup.ts'],
    // Fails the run listing the temp entries tests left behind (each run gets a private TMPDIR).
    globalSetup: ['test/support/temp-leak-check.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    ...(summaryFile === undefined
      ? {}
      : { reporters: ['default', 'json'], outputFile: { json: summaryFile } }),
  },
});
