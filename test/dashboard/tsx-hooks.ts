/**
 * Module hooks (node:module `register`) that load the dashboard's .tsx files in node: Node strips
 * TypeScript types by itself but does not compile JSX, so each .tsx is compiled on load by Vite's own
 * transformer (Oxc), with the automatic JSX runtime, as `npm run build:dashboard` compiles it.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { LoadHook } from 'node:module';

export const load: LoadHook = async (url, context, nextLoad) => {
  if (!url.startsWith('file:') || !/\.tsx(\?|$)/.test(url)) return nextLoad(url, context);
  const { transformWithOxc } = await import('vite');
  const file = fileURLToPath(url);
  // A syntax error throws here, naming the file and the place.
  const result = await transformWithOxc(await readFile(file, 'utf8'), file, {
    lang: 'tsx',
    sourceType: 'module',
    jsx: { runtime: 'automatic' },
  });
  return { format: 'module', source: result.code, shortCircuit: true };
};
