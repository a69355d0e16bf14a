import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/app/',
  // Vite's own transformer (Oxc) compiles the TSX; no React plugin. The automatic runtime imports
  // react/jsx-runtime, so components need no `import React`.
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: fileURLToPath(new URL('../../dist/dashboard', import.meta.url)),
    emptyOutDir: true,
    // Everything ships as files under /app/assets: the CSP allows scripts from 'self' only.
    assetsInlineLimit: 0,
  },
});
