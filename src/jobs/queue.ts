/**
 * The job queue: pg-boss on the service's own database (PGlite included). Jobs are enqueued in the
 * same transaction as the change that causes them.
 */
import { sql } from 'drizzle-orm';
import { PgBoss, fromDrizzle, type Job } from 'pg-boss';
import type { Database, Executor } from '../db/client.ts';
import { isDatabaseUnavailable } from '../db/errors.ts';
import type { Logger } from '../lib/logger.ts';
import { JOBS, JOB_NAMES, type JobName, type JobPayload } from './catalog.ts';

export type JobHandler<N extends JobName> = (payload: JobPayload<N>, job: Job<JobPayload<N>>) => Promise<void>;
/**
 * Many jobs of one kind at once (a queue whose catalog entry has a batchSize): resolves to the jobs
 * that failed, by id, each retried on its own; the others are done.
 */
export type BatchJobHandler<N extends JobName> = {
  batch: (jobs: Array<{ id: string; payload: JobPayload<N> }>) => Promise<Map<string, Error>>;
};
/** The jobs whose handler takes a batch (the rest take one job at a time, batched fetches or not). */
type BatchHandled = 'sandbox.callback';
export type JobHandlers = { [N in JobName]: N extends BatchHandled ? BatchJobHandler<N> : JobHandler<N> };

export type Queue = {
  /**
   * Enqueues a job; pass the transaction so the job commits (or not) with the change. With
   * `singletonSeconds`, a second job of the same name and key in the same slot of that many seconds is dropped.
   */
  enqueue<N extends JobName>(
    executor: Executor,
    name: N,
    payload: JobPayload<N>,
    options?: { startAfterSeconds?: number; singletonKey?: string; singletonSeconds?: number },
  ): Promise<void>;
  /** Starts polling and running handlers (the worker role). */
  work(handlers: JobHandlers): Promise<void>;
  /** Wakes this process's workers of a queue now (after a commit that enqueued), instead of at their next poll. */
  wake(name: JobName): void;
  ping(): Promise<void>;
  stop(options: { graceful: boolean; timeoutMs: number }): Promise<void>;
};

/** A due job is looked for this long after its time: the database's clock and ours may differ by a few ms. */
const DUE_WAKE_SLACK_MS = 15;

/** How often finished jobs past their queue's deleteAfterSeconds (catalog.ts) are deleted. */
const FINISHED_JOB_DELETION_INTERVAL_SECONDS = 60;

/**
 * `maintain`: this process runs pg-boss's upkeep (supervision, cron, deleting finished jobs); the
 * worker role does, an API-only process only enqueues. `deletionIntervalSeconds` and `pollSeconds`
 * (how often workers look for jobs nobody announced) are for tests.
 */
export async function startQueue(
  database: Database,
  logger: Logger,
  options: { maintain: boolean; deletionIntervalSeconds?: number; pollSeconds?: number } = { maintain: true },
): Promise<Queue> {
  const boss = new PgBoss({
    db: database.bossDb,
    schema: 'pgboss',
    backend: database.kind === 'pglite' ? 'pglite' : 'postgres',
    schedule: options.maintain,
    supervise: options.maintain,
    migrate: true,
    // Jobs of a worker that died are found (stale heartbeat or expiry) within seconds, not a minute.
    superviseIntervalSeconds: 10,
    monitorIntervalSeconds: 10,
    // Finished jobs past their queue's deleteAfterSeconds (catalog.ts) go every minute, not once a day.
    maintenanceIntervalSeconds: options.deletionIntervalSeconds ?? FINISHED_JOB_DELETION_INTERVAL_SECONDS,
    // Queues with `notify` wake their workers when a job commits, instead of at the next poll.
    useListenNotify: true,
  });
  // While the database is away every poll fails: the outage itself is logged once (db/client.ts).
  boss.on('error', (err: Error) =>
    isDatabaseUnavailable(err) ? logger.debug({ err }, 'job queue: database unavailable') : logger.error({ err }, 'job queue error'),
  );
  await boss.start();
  for (const name of JOB_NAMES) {
    const existing = await boss.getQueue(name);
    if (existing) {
      // A queue's policy is fixed at its creation (pg-boss refuses to change it): the rest is brought up to date.
      const { policy: _policy, ...changeable } = JOBS[name].queue as (typeof JOBS)[typeof name]['queue'] & { policy?: string };
      await boss.updateQueue(name, changeable);
    } else await boss.createQueue(name, JOBS[name].queue);
    // Fill pg-boss's queue cache now: on PGlite (one connection) a cache miss inside an open
    // transaction would wait for that very transaction.
    await boss.getJobById(name, '00000000-0000-0000-0000-000000000000');
  }
  const workers = new Map<JobName, string[]>();
  const wake = (name: JobName) => {
    for (const id of workers.get(name) ?? []) boss.notifyWorker(id);
  };
  // A job due later is not announced when it falls due: without a wake it waits for the next poll
  // (notifyPollingIntervalSeconds, 2 s), so a sandbox status step due 200 ms later came 2-4 s later.
  // A process that works the queue wakes its own workers when a job it enqueued is due.
  const dueTimers = new Set<NodeJS.Timeout>();
  const wakeWhenDue = (name: JobName, seconds: number) => {
    if (!workers.has(name)) return;
    const timer = setTimeout(
      () => {
        dueTimers.delete(timer);
        wake(name);
      },
      Math.ceil(seconds * 1000) + DUE_WAKE_SLACK_MS,
    );
    timer.unref();
    dueTimers.add(timer);
  };
  return {
    wake,
    async enqueue(executor, name, payload, options) {
      const data = JOBS[name].payload.parse(payload) as object;
      await boss.send(name, data, {
        db: fromDrizzle(executor as Parameters<typeof fromDrizzle>[0], sql),
        startAfter: options?.startAfterSeconds,
        singletonKey: options?.singletonKey,
        singletonSeconds: options?.singletonSeconds,
      });
      if (options?.startAfterSeconds) wakeWhenDue(name, options.startAfterSeconds);
    },
    async work(handlers) {
      for (const name of JOB_NAMES) {
        const handler = handlers[name] as JobHandler<JobName> | BatchJobHandler<JobName>;
        const definition = JOBS[name] as { concurrency?: number; batchSize?: number };
        const batchSize = definition.batchSize ?? 1;
        const ids: string[] = [];
        for (let i = 0; i < (definition.concurrency ?? 1); i++) {
          let self = '';
          const polling = { pollingIntervalSeconds: options.pollSeconds ?? 0.5, notifyPollingIntervalSeconds: options.pollSeconds ?? 2 };
          if (batchSize > 1) {
            // Each job settled on its own: a failure retries only the jobs it concerns.
            self = await boss.work(name, { ...polling, batchSize, perJobResults: true }, async (jobs) => {
              try {
                const failed = await runBatch(name, handler, jobs as Array<Job<unknown>>);
                return jobs.map((job) => {
                  const err = failed.get(job.id);
                  return err
                    ? { id: job.id, status: 'failed' as const, output: { message: err.message } }
                    : { id: job.id, status: 'completed' as const };
                });
              } finally {
                boss.notifyWorker(self);
              }
            });
          } else {
            self = await boss.work(name, { ...polling, batchSize: 1 }, async ([job]) => {
              if (!job) return;
              try {
                await (handler as JobHandler<JobName>)(
                  JOBS[name].payload.parse(job.data) as JobPayload<typeof name>,
                  job as Job<JobPayload<typeof name>>,
                );
              } finally {
                // There may be more: fetch again at once rather than after the polling interval
                // (a fetch that finds nothing goes back to polling).
                boss.notifyWorker(self);
              }
            });
          }
          ids.push(self);
        }
        workers.set(name, ids);
        const cron = JOBS[name].cron;
        if (cron) await boss.schedule(name, cron, {}, { tz: 'UTC' });
      }
    },
    async ping() {
      await boss.getQueue(JOB_NAMES[0]!);
    },
    async stop({ graceful, timeoutMs }) {
      for (const timer of dueTimers) clearTimeout(timer);
      dueTimers.clear();
      await boss.stop({ graceful, timeout: timeoutMs, close: false });
    },
  };
}

/**
 * Runs a fetched batch: a batch handler gets the jobs whose payload parses at once; a one-job
 * handler runs them one after another (the batch saves the fetches and completions, not the work).
 */
async function runBatch(
  name: JobName,
  handler: JobHandler<JobName> | BatchJobHandler<JobName>,
  jobs: Array<Job<unknown>>,
): Promise<Map<string, Error>> {
  const failed = new Map<string, Error>();
  const parsed: Array<{ id: string; payload: JobPayload<JobName>; job: Job<unknown> }> = [];
  for (const job of jobs) {
    const result = JOBS[name].payload.safeParse(job.data);
    if (result.success) parsed.push({ id: job.id, payload: result.data as JobPayload<JobName>, job });
    else failed.set(job.id, new Error(`${name} job payload is not valid: ${result.error.message}`));
  }
  if ('batch' in handler) {
    for (const [id, err] of await handler.batch(parsed.map(({ id, payload }) => ({ id, payload })))) failed.set(id, err);
    return failed;
  }
  for (const { id, payload, job } of parsed) {
    try {
      await handler(payload, job as Job<JobPayload<JobName>>);
    } catch (err) {
      failed.set(id, err instanceof Error ? err : new Error(String(err)));
    }
  }
  return failed;
}
