/** The SDK bundled for browsers by esbuild (platform browser): what the size report measures and the browser test loads. */
import path from 'node:path';
import { build } from 'esbuild';

const SOURCES = path.resolve(import.meta.dirname, '..', 'src');

export type BundleOptions = {
  /** What the bundle exports (default the whole package: `export * from index.ts`). */
  entry?: string;
  format: 'esm' | 'iife';
  /** For iife: the global the exports are put on. */
  globalName?: string;
  minify: boolean;
};

export async function bundleForBrowser(options: BundleOptions): Promise<string> {
  const result = await build({
    stdin: { contents: options.entry ?? "export * from './index.ts';", resolveDir: SOURCES, sourcefile: 'entry.ts', loader: 'ts' },
    bundle: true,
    write: false,
    platform: 'browser',
    format: options.format,
    globalName: options.globalName,
    target: 'es2022',
    minify: options.minify,
    legalComments: 'none',
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}
