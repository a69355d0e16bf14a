/** The rule that puts a test file in the PostgreSQL pass (scripts/test-stores.ts, docs/testing.md). */
import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { storesOf } from '../../scripts/test-stores.ts';

test('the folders of store-dependent tests run on both stores, the rest on PGlite, browser and unit files once', () => {
  assert.deepEqual(storesOf('test/db/status-write-plan.test.ts', ''), ['PGlite', 'PostgreSQL']);
  assert.deepEqual(storesOf('test/jobs/analyze-tables.test.ts', ''), ['PGlite', 'PostgreSQL']);
  assert.deepEqual(storesOf('test/process/shutdown.test.ts', ''), ['PGlite', 'PostgreSQL']);
  assert.deepEqual(storesOf('test/api/openapi.test.ts', ''), ['PGlite']);
  assert.deepEqual(storesOf('test/inbox.browser.test.ts', '// stores: both\n'), ['PGlite']);
  assert.deepEqual(storesOf('test/db/x.unit.test.ts', ''), ['PGlite']);
});

test('a line of its own in the file overrides the folder', () => {
  assert.deepEqual(storesOf('test/api/messages-pipeline.test.ts', '/** doc */\n// stores: both\nimport x;'), ['PGlite', 'PostgreSQL']);
  assert.deepEqual(storesOf('test/process/scale-out.test.ts', '// stores: postgres\n'), ['PostgreSQL']);
  assert.deepEqual(storesOf('test/process/lock.test.ts', '// stores: pglite\n'), ['PGlite']);
  // Only a line of its own counts: a mention in a comment or a string does not.
  assert.deepEqual(storesOf('test/api/a.test.ts', " * files say `// stores: both` in a line\nconst s = '// stores: both';"), ['PGlite']);
});

test('every stores line in the repository names a known choice (a typo would silently fall back to the folder)', () => {
  const files = [...globSync('test/**/*.test.ts'), ...globSync('src/**/*.test.ts')];
  assert.ok(files.length > 50, 'run from the repository root');
  const bad = files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => /^\s*\/\/\s*stores\s*:/i.test(line) && !/^\/\/ stores: (both|postgres|pglite)$/.test(line))
      .map((line) => `${file}: ${line}`),
  );
  assert.deepEqual(bad, []);
});
