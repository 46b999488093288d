import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    setupFiles: ['test/support/loopback-only-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
