/**
 * Loaded before the rest (`node --import ./src/boot/module-hooks.ts`, or first in main.ts): resolves the
 * relative imports between a package's own ES module files without Node's package scope lookup.
 *
 * Why: Node's ESM resolver (24 and 26) reads a file's package scope once per file it loads and, in doing
 * so, re-parses that package's whole `exports` map (getPackageScopeConfig spreads the lazily parsed
 * fields), and again for every bare import of it from another directory. drizzle-orm's package.json is
 * 179 KB, about 130 of its files load and 160 of our files import it, so every process spent 0.5 to 1 s
 * of CPU parsing the same JSON. Here:
 * - a relative `./x.js` import between a package's own ES module files is answered directly, the
 *   package's `type` read once per directory;
 * - a bare import (`drizzle-orm/pg-core`) from our own code is resolved by Node once per package scope
 *   and remembered (Node's answer depends only on the importing file's directory, and every directory
 *   of a scope without a node_modules folder of its own looks up the same folders).
 * Anything else (CommonJS `require`, extension-less paths, URLs) goes to Node's resolver unchanged.
 */
import { existsSync, readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Directory -> the `type` of the package.json that governs it (undefined: none above it). */
const scopeType = new Map<string, string | undefined>();

function typeOf(dir: string): string | undefined {
  if (scopeType.has(dir)) return scopeType.get(dir);
  const file = path.join(dir, 'package.json');
  let type: string | undefined;
  if (existsSync(file)) {
    try {
      type = (JSON.parse(readFileSync(file, 'utf8')) as { type?: unknown }).type === 'module' ? 'module' : 'commonjs';
    } catch {
      type = 'commonjs';
    }
  } else {
    const parent = path.dirname(dir);
    type = parent === dir ? undefined : typeOf(parent);
  }
  scopeType.set(dir, type);
  return type;
}

function isRelative(specifier: string): boolean {
  return specifier.startsWith('./') || specifier.startsWith('../');
}

/** The answer for a relative import between a package's own ES module files; undefined: Node's resolver decides. */
export function resolveInsidePackage(
  specifier: string,
  context: { parentURL?: string | undefined; conditions: readonly string[] },
): { url: string; format: 'module' } | undefined {
  const parent = context.parentURL;
  if (
    !parent?.startsWith('file:') ||
    !parent.includes('/node_modules/') ||
    !isRelative(specifier) ||
    /[?#%]/.test(specifier) ||
    !context.conditions.includes('import')
  ) {
    return undefined;
  }
  const url = new URL(specifier, parent);
  if (url.pathname.endsWith('.mjs')) return { url: url.href, format: 'module' };
  if (!url.pathname.endsWith('.js')) return undefined;
  const file = fileURLToPath(url);
  return typeOf(path.dirname(file)) === 'module' && existsSync(file) ? { url: url.href, format: 'module' } : undefined;
}

/** Directory -> the directory whose answers it shares for bare imports (its package scope, or itself). */
const lookupScope = new Map<string, string>();

function scopeOf(dir: string): string {
  let scope = lookupScope.get(dir);
  if (scope !== undefined) return scope;
  if (existsSync(path.join(dir, 'package.json'))) scope = dir;
  else if (existsSync(path.join(dir, 'node_modules'))) scope = dir;
  else {
    const parent = path.dirname(dir);
    scope = parent === dir ? dir : scopeOf(parent);
  }
  lookupScope.set(dir, scope);
  return scope;
}

/**
 * The cache key of a bare import from our own code (not from inside node_modules), or undefined. The key
 * names the scope whose answers the importing directory shares, the specifier and the conditions.
 */
export function bareImportKey(
  specifier: string,
  context: { parentURL?: string | undefined; conditions: readonly string[] },
): string | undefined {
  const parent = context.parentURL;
  if (!parent?.startsWith('file:') || parent.includes('/node_modules/')) return undefined;
  if (isRelative(specifier) || specifier.startsWith('/') || specifier.includes(':') || /[?#%]/.test(specifier)) return undefined;
  return `${scopeOf(path.dirname(fileURLToPath(parent)))}\0${specifier}\0${context.conditions.join(',')}`;
}

const bareImports = new Map<string, { url: string; format?: string | null | undefined }>();

registerHooks({
  resolve(specifier, context, nextResolve) {
    const local = resolveInsidePackage(specifier, context);
    if (local) return { ...local, shortCircuit: true };
    const key = bareImportKey(specifier, context);
    if (key === undefined) return nextResolve(specifier, context);
    const known = bareImports.get(key);
    if (known) return { ...known, shortCircuit: true };
    const resolved = nextResolve(specifier, context);
    bareImports.set(key, { url: resolved.url, format: resolved.format });
    return resolved;
  },
});
