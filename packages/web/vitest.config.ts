import { defineConfig } from 'vitest/config';

export default defineConfig({
  esbuild: { jsx: 'automatic' },
  test: {
    include: ['test/unit/**/*.test.{ts,tsx}'],
    environment: 'happy-dom',
  },
});
