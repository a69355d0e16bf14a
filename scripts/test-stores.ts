/**
 * Which store a test file runs on (docs/testing.md). Every file runs on embedded PGlite; a file whose
 * behaviour can differ by store (SQL, locking, races, migrations, transactions, jobs, the service as a
 * process) runs on the PostgreSQL server too. Folders decide by default, a line in the file overrides.
 */
export type Store = 'PGlite' | 'PostgreSQL';

/** The folders whose files run on both stores unless they say otherwise. */
export const STORE_FOLDERS = ['test/db/', 'test/jobs/', 'test/process/'];

/**
 * The stores of a file, from its path and its text: a line of its own `// stores: both` (both
 * passes), `// stores: postgres` (a server only) or `// stores: pglite` (PGlite only) decides;
 * without one, files under STORE_FOLDERS run on both and the rest on PGlite. Browser and unit files
 * run once, on PGlite.
 */
export function storesOf(file: string, source: string): Store[] {
  if (file.includes('.browser.') || file.includes('.unit.')) return ['PGlite'];
  const said = /^\/\/ stores: (both|postgres|pglite)$/m.exec(source)?.[1];
  if (said === 'both') return ['PGlite', 'PostgreSQL'];
  if (said === 'postgres') return ['PostgreSQL'];
  if (said === 'pglite') return ['PGlite'];
  const path = file.replaceAll('\\', '/');
  return STORE_FOLDERS.some((folder) => path.startsWith(folder)) ? ['PGlite', 'PostgreSQL'] : ['PGlite'];
}
