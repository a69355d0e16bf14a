// The SDK runs in browsers and edge runtimes as well as Node: its sources import nothing of Node's
// (no `node:` module, no bare builtin) and no package beyond its declared dependencies.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';

const PACKAGE = path.resolve(import.meta.dirname, '..');
const SOURCES = path.join(PACKAGE, 'src');
const dependencies = Object.keys(JSON.parse(readFileSync(path.join(PACKAGE, 'package.json'), 'utf8')).dependencies);

/** Every module specifier of a file: static imports and re-exports, dynamic imports, require calls. */
export function specifiersOf(source: string): string[] {
  const found = [
    ...source.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]/gm),
    ...source.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm),
    ...source.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g),
    ...source.matchAll(/\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g),
  ];
  return found.map((m) => m[1]!);
}

const files = readdirSync(SOURCES, { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));

test('the SDK sources import nothing of Node: only each other and the declared dependencies', () => {
  assert.ok(files.length >= 8, `found ${files.length} source files`);
  const builtins = new Set(builtinModules);
  const problems: string[] = [];
  for (const file of files) {
    const source = readFileSync(path.join(SOURCES, file), 'utf8');
    for (const specifier of specifiersOf(source)) {
      if (specifier.startsWith('node:') || builtins.has(specifier)) problems.push(`${file} imports ${specifier}, a Node module`);
      else if (
        !specifier.startsWith('.') &&
        !dependencies.includes(
          specifier.split('/')[0]!.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!,
        )
      )
        problems.push(`${file} imports ${specifier}, not a dependency of the package`);
    }
    if (/\b(process|Buffer|__dirname|require)\b\s*[.(]/.test(source.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')))
      problems.push(`${file} uses a Node global (process, Buffer, __dirname, require)`);
  }
  assert.deepEqual(problems, []);
});

test('the check sees a Node import in any of its forms', () => {
  const specifiers = specifiersOf(
    "import { readFileSync } from 'node:fs';\nimport type { X } from './x.ts';\nexport { y } from 'crypto';\nconst z = await import('node:path');\n",
  );
  assert.deepEqual(specifiers, ['node:fs', './x.ts', 'crypto', 'node:path']);
});
