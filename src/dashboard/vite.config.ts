import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

const OUT_DIR = fileURLToPath(new URL('../../dist/dashboard', import.meta.url));

/**
 * Writes a .br and a .gz beside each text file of the build, once, so the server sends them
 * compressed without compressing per request (@fastify/static's preCompressed).
 */
function precompress(): Plugin {
  return {
    name: 'parley-precompress',
    apply: 'build',
    closeBundle() {
      for (const entry of readdirSync(OUT_DIR, { recursive: true, withFileTypes: true })) {
        if (!entry.isFile() || !/\.(js|css|html|svg|json)$/.test(entry.name)) continue;
        const file = path.join(entry.parentPath, entry.name);
        const body = readFileSync(file);
        writeFileSync(`${file}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
        writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/app/',
  // Vite's own transformer (Oxc) compiles the TSX; no React plugin. The automatic runtime imports
  // react/jsx-runtime, so components need no `import React`.
  oxc: { jsx: { runtime: 'automatic' } },
  plugins: [precompress()],
  build: {
    outDir: OUT_DIR,
    emptyOutDir: true,
    // Everything ships as files under /app/assets: the CSP allows scripts from 'self' only.
    assetsInlineLimit: 0,
    rollupOptions: {
      // React Server Components' "use client" markers in libraries mean nothing in a browser-only bundle.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
      // The libraries in a chunk of their own: they change less often than the app, so a new release
      // of the dashboard leaves the browser's cached copy of them good (and no chunk passes 500 kB).
      // The chart library is loaded only by the page that draws a chart (a dynamic import): its own chunk.
      output: {
        manualChunks: (id: string) =>
          /\/node_modules\/(chart\.js|@kurkle\/color)\//.test(id) ? 'charts' : id.includes('/node_modules/') ? 'vendor' : undefined,
      },
    },
  },
});
