import { analyzeGrownTables, autovacuumRuns } from '../../db/analyze.ts';
import type { Database, Executor } from '../../db/client.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Queue } from '../queue.ts';

/**
 * While tables keep growing, the next check comes this soon instead of at the next minute's cron
 * run. A fresh database grows from nothing under its first load: the plans its statements were
 * prepared with, made for tables of a few rows, scanned whole tables of thousands (webhook
 * deliveries, messages) until the minute's analysis came (DECISIONS 62). A table analyzed again only
 * once it grew by a fifth makes this a few analyses per table, then the minute's cadence again.
 */
export const ANALYZE_AGAIN_SECONDS = 10;

/** Schedules one check ANALYZE_AGAIN_SECONDS from now (one per such slot, however many ask). */
export function analyzeSoon(queue: Pick<Queue, 'enqueue'>, executor: Executor): Promise<void> {
  return queue.enqueue(
    executor,
    'maintenance.analyze',
    {},
    { startAfterSeconds: ANALYZE_AGAIN_SECONDS, singletonKey: 'soon', singletonSeconds: ANALYZE_AGAIN_SECONDS },
  );
}

/**
 * Analyzes the tables that grew since their last analysis, on a database where autovacuum does not
 * (PGlite, or a server with autovacuum off); elsewhere autovacuum does it and this does nothing.
 * When it analyzed a table, it checks again soon (`again`). `autovacuum` is for tests.
 */
export function analyzeTablesHandler(deps: {
  database: Pick<Database, 'db' | 'kind'>;
  logger: Logger;
  again: () => Promise<void>;
  autovacuum?: () => Promise<boolean>;
}) {
  const autovacuum = deps.autovacuum ?? (() => autovacuumRuns(deps.database.db, deps.database.kind));
  return async () => {
    if (await autovacuum()) return;
    const analyzed = await analyzeGrownTables(deps.database.db);
    if (analyzed.length === 0) return;
    deps.logger.debug({ tables: analyzed }, 'analyzed grown tables (no autovacuum)');
    await deps.again();
  };
}
