/**
 * The SDK's size in a browser bundle (esbuild, minified; gzip at level 9): the whole package, and the
 * client alone (what an app that only calls the API ships). docs/sdk.md quotes the numbers.
 *
 *   node packages/sdk/scripts/size.ts
 */
import { gzipSync } from 'node:zlib';
import { bundleForBrowser } from './bundle.ts';

export type Size = { what: string; minified: number; gzipped: number };

export async function measureSizes(): Promise<Size[]> {
  const entries = [
    { what: 'the whole package (export *)', entry: undefined },
    { what: 'the client alone (import { Parley })', entry: "export { Parley } from './index.ts';" },
    { what: 'verifyWebhook alone', entry: "export { verifyWebhook } from './index.ts';" },
  ];
  const sizes: Size[] = [];
  for (const { what, entry } of entries) {
    const code = await bundleForBrowser({ entry, format: 'esm', minify: true });
    sizes.push({ what, minified: Buffer.byteLength(code), gzipped: gzipSync(code, { level: 9 }).length });
  }
  return sizes;
}

if (import.meta.main) {
  const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;
  for (const { what, minified, gzipped } of await measureSizes())
    process.stdout.write(`${what}: ${kb(minified)} minified, ${kb(gzipped)} gzipped\n`);
}
