/**
 * src/boot/module-hooks.ts answers relative imports inside packages without Node's package scope
 * lookup. Its answers must be Node's own: a child process without the hook records every resolution
 * Node makes while loading the packages the service loads, and the hook must answer each of those the
 * same way or leave it to Node. It must take over drizzle-orm's own imports (the reason it exists) and
 * leave CommonJS `require` and our relative imports alone; the bare imports of our code it remembers
 * per key must be ones Node answers the same way from every importing file sharing that key.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { bareImportKey, resolveInsidePackage } from '../../src/boot/module-hooks.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

type Seen = { specifier: string; parentURL?: string; conditions: string[]; url: string; format?: string | null };

/** Every resolution Node makes (no hook of ours) while the service's heavy packages load. */
let recorded: Seen[] | undefined;
function nodesOwnResolutions(): Seen[] {
  if (recorded) return recorded;
  const script = `
    import { registerHooks } from 'node:module';
    const seen = [];
    registerHooks({ resolve(specifier, context, next) {
      const result = next(specifier, context);
      seen.push({ specifier, parentURL: context.parentURL, conditions: [...context.conditions], url: result.url, format: result.format });
      return result;
    } });
    for (const name of ['drizzle-orm', 'drizzle-orm/pg-core', 'drizzle-orm/node-postgres', 'drizzle-orm/pglite', 'fastify', 'pg', 'pg-boss', 'zod', '@electric-sql/pglite']) await import(name);
    await import('./test/harness.ts');
    process.stdout.write(JSON.stringify(seen));
  `;
  return JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 }),
  );
}

test("the hook answers as Node does, takes drizzle-orm's own imports, and leaves the rest to Node", () => {
  const seen = nodesOwnResolutions();
  let answered = 0;
  let drizzle = 0;
  for (const s of seen) {
    const local = resolveInsidePackage(s.specifier, { parentURL: s.parentURL, conditions: s.conditions });
    if (!local) continue;
    answered += 1;
    if (s.parentURL?.includes('/node_modules/drizzle-orm/')) drizzle += 1;
    assert.equal(local.url, s.url, `${s.specifier} from ${s.parentURL}`);
    assert.equal(local.format, s.format, `${s.specifier} from ${s.parentURL}`);
  }
  assert.ok(drizzle >= 50, `the hook took ${drizzle} of drizzle-orm's imports`);
  assert.ok(answered < seen.length, 'the hook answered everything, bare specifiers included');
});

test('bare imports from our code: one answer per key, from every file that shares it', () => {
  const seen = nodesOwnResolutions();
  const answers = new Map<string, Set<string>>();
  let shared = 0;
  for (const s of seen) {
    const key = bareImportKey(s.specifier, { parentURL: s.parentURL, conditions: s.conditions });
    if (key === undefined) continue;
    const urls = answers.get(key) ?? new Set<string>();
    if (answers.has(key)) shared += 1;
    urls.add(`${s.url} ${s.format}`);
    answers.set(key, urls);
  }
  for (const [key, urls] of answers) assert.equal(urls.size, 1, `${key}: ${[...urls].join(', ')}`);
  assert.ok(shared >= 100, `only ${shared} bare imports shared a key`);
  const inPackage = new URL('node_modules/drizzle-orm/index.js', `file://${ROOT}`).href;
  assert.equal(bareImportKey('zod', { parentURL: inPackage, conditions: ['node', 'import'] }), undefined);
  assert.equal(bareImportKey('./x.ts', { parentURL: `file://${ROOT}src/main.ts`, conditions: ['node', 'import'] }), undefined);
  assert.equal(bareImportKey('node:fs', { parentURL: `file://${ROOT}src/main.ts`, conditions: ['node', 'import'] }), undefined);
});

test('a CommonJS require, a bare specifier, our own sources and an extension-less path go to Node', () => {
  const inPackage = new URL('node_modules/drizzle-orm/index.js', `file://${ROOT}`).href;
  assert.equal(resolveInsidePackage('./column.js', { parentURL: inPackage, conditions: ['node', 'require'] }), undefined);
  assert.equal(resolveInsidePackage('zod', { parentURL: inPackage, conditions: ['node', 'import'] }), undefined);
  assert.equal(resolveInsidePackage('./column', { parentURL: inPackage, conditions: ['node', 'import'] }), undefined);
  const ours = new URL('src/main.ts', `file://${ROOT}`).href;
  assert.equal(resolveInsidePackage('./config.ts', { parentURL: ours, conditions: ['node', 'import'] }), undefined);
  // A CommonJS package's .js loaded by import: its format is Node's to decide.
  const pg = new URL('node_modules/pg/lib/index.js', `file://${ROOT}`).href;
  assert.equal(resolveInsidePackage('./client.js', { parentURL: pg, conditions: ['node', 'import'] }), undefined);
  assert.deepEqual(resolveInsidePackage('./column.js', { parentURL: inPackage, conditions: ['node', 'import'] }), {
    url: new URL('node_modules/drizzle-orm/column.js', `file://${ROOT}`).href,
    format: 'module',
  });
});
