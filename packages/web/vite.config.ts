import { defineConfig } from 'vite';

// No @vitejs/plugin-react: its current major needs vite 8, and the root pins vite 7 (AGENTS.md "vite pins").
// esbuild compiles the JSX with the automatic runtime; there is no fast refresh, which a dev build can live without.
export default defineConfig({
  base: '/',
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // One app chunk and one vendor chunk keep the first load to three requests (HTML, CSS, JS).
    chunkSizeWarningLimit: 400,
    sourcemap: false,
  },
  server: {
    // `npm run dev -w @toolport/web` against a `toolport serve` on the default port.
    proxy: { '/api': 'http://127.0.0.1:7420', '/mcp': 'http://127.0.0.1:7420' },
  },
});
