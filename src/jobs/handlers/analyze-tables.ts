import { analyzeGrownTables, autovacuumRuns } from '../../db/analyze.ts';
import type { Database } from '../../db/client.ts';
import type { Logger } from '../../lib/logger.ts';

/**
 * Analyzes the tables that grew since their last analysis, on a database where autovacuum does not
 * (PGlite, or a server with autovacuum off); elsewhere autovacuum does it and this does nothing.
 * `autovacuum` is for tests.
 */
export function analyzeTablesHandler(deps: { database: Pick<Database, 'db' | 'kind'>; logger: Logger; autovacuum?: () => Promise<boolean> }) {
  const autovacuum = deps.autovacuum ?? (() => autovacuumRuns(deps.database.db, deps.database.kind));
  return async () => {
    if (await autovacuum()) return;
    const analyzed = await analyzeGrownTables(deps.database.db);
    if (analyzed.length > 0) deps.logger.debug({ tables: analyzed }, 'analyzed grown tables (no autovacuum)');
  };
}
