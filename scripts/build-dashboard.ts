/**
 * Builds the dashboard unless dist/dashboard is newer than everything it is built from (the
 * dashboard's sources, its Vite config, the lock file): `npm ci` builds it (the `prepare` script), and
 * `npm test` right after would build the same files again. `--force` builds whatever the times say.
 *   node scripts/build-dashboard.ts [--force]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, globSync, statSync } from 'node:fs';

const BUILT = 'dist/dashboard/index.html';
const SOURCES = ['src/dashboard/**/*', 'package-lock.json'];

const newest = Math.max(...SOURCES.flatMap((pattern) => globSync(pattern)).map((file) => statSync(file).mtimeMs));
if (!process.argv.includes('--force') && existsSync(BUILT) && statSync(BUILT).mtimeMs > newest) {
  process.stdout.write('the dashboard is up to date (dist/dashboard is newer than its sources)\n');
  process.exit(0);
}
const vite = spawnSync(
  process.execPath,
  ['node_modules/vite/bin/vite.js', 'build', '--config', 'src/dashboard/vite.config.ts', '--logLevel', 'warn'],
  { stdio: 'inherit' },
);
process.exit(vite.status ?? 1);
