/**
 * Due reminders: crm.task.due, once per due time, for every open task whose due time has passed by the
 * clock. The crm.tasks-due job runs this every minute. A task is marked (due_notified_at) in the
 * transaction that records its event, so a second run, or two at once on two workers, never records it
 * again; a new due_at clears the mark (tasks.ts), and a completed task is never taken.
 */
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import { recordEvents, type NewEvent } from '../events/outbox.ts';

/** Tasks marked per transaction: a backlog (a worker down for a day) goes in bounded steps. */
const DUE_BATCH = 500;

type DueRow = { id: string; organization_id: string; title: string; due_at: Date | string; assignee_user_id: string | null };

/** Records crm.task.due for every task due by now that has not had it; returns how many. */
export async function recordDueTasks({ db, clock }: { db: Executor; clock: Clock }, options: { batch?: number } = {}): Promise<number> {
  const batch = options.batch ?? DUE_BATCH;
  let recorded = 0;
  for (;;) {
    const now = clock.now();
    const marked = await db.transaction(async (tx) => {
      // Another run's rows are skipped, not waited for: it records them.
      const rows = await queryRows<DueRow>(
        tx,
        sql`with due as (
              select id from tasks
               where status = 'open' and due_notified_at is null and due_at is not null and due_at <= ${now.toISOString()}::timestamptz
               order by due_at
               limit ${batch}
               for update skip locked)
            update tasks t set due_notified_at = ${now.toISOString()}::timestamptz
              from due where t.id = due.id
            returning t.id, t.organization_id, t.title, t.due_at, t.assignee_user_id`,
      );
      const byOrganization = new Map<string, NewEvent[]>();
      for (const r of rows.sort((a, b) => new Date(a.due_at).getTime() - new Date(b.due_at).getTime() || (a.id < b.id ? -1 : 1))) {
        const event: NewEvent = {
          type: 'crm.task.due',
          body: {
            task_id: r.id,
            title: r.title,
            due_at: new Date(r.due_at).toISOString(),
            assignee_user_id: r.assignee_user_id,
            organization_id: r.organization_id,
          },
        };
        byOrganization.set(r.organization_id, [...(byOrganization.get(r.organization_id) ?? []), event]);
      }
      for (const [organizationId, events] of byOrganization) await recordEvents(tx, organizationId, events);
      return rows.length;
    });
    recorded += marked;
    if (marked < batch) return recorded;
  }
}
