/**
 * The list of tasks: "my tasks" and a record's tasks are filters of one list (assignee, status, due
 * window, overdue, a linked record), sorted by due time or creation, each with cursors of its sort.
 * Every query is scoped by the actor's organization; an id of another organization matches nothing.
 */
import { and, eq, gte, isNotNull, lt, not, sql, type SQL } from 'drizzle-orm';
import { given, listSortedPage } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { taskTargets, tasks } from '../../db/schema.ts';
import { isUuid } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import type { RecordRef } from '../crm/record-refs.ts';
import { fieldSortOf, ownerCondition, sortValues, type SortField } from '../crm/records.ts';
import { sortCursorKey } from '../paging.ts';
import type { TaskStatus } from './fields.ts';
import { withTargets, type TaskClockDeps, type TaskRow, type TaskView } from './records.ts';

export const TASK_SORT_FIELDS = ['due_at', 'created_at'] as const;
export const TASK_SORTS = sortValues(TASK_SORT_FIELDS);
export type TaskSort = (typeof TASK_SORTS)[number];

/** Where tasks without a due time sort: after every other (before, descending). */
const NO_DUE_TIME = '9999-12-31T23:59:59.999Z';

const SORT_FIELDS: Record<(typeof TASK_SORT_FIELDS)[number], SortField<TaskRow>> = {
  due_at: {
    expr: sql`coalesce(${tasks.dueAt}, ${sql.raw(`'${NO_DUE_TIME}'`)}::timestamptz)`,
    type: 'timestamptz',
    valueOf: (r) => r.dueAt?.toISOString() ?? NO_DUE_TIME,
  },
  created_at: { expr: tasks.createdAt, type: 'timestamptz', valueOf: (r) => r.createdAt.toISOString() },
};

export type TaskListQuery = Page & {
  sort?: TaskSort;
  assignee?: string;
  status?: TaskStatus;
  /** Due at or after this time. */
  dueAfter?: Date;
  /** Due before this time. */
  dueBefore?: Date;
  /** true: open and past due now; false: not so. */
  overdue?: boolean;
  /** Tasks linked to this record. */
  record?: RecordRef;
};

/** The organization's tasks, soonest due first (tasks without a due time last) unless sorted otherwise. Filters combine. */
export async function listTasks({ db, clock }: TaskClockDeps, actor: Actor, query: TaskListQuery): Promise<PageResult<TaskView>> {
  const org = actor.organizationId;
  const sort = fieldSortOf(query.sort ?? 'due_at', SORT_FIELDS, tasks.id, (r) => r.id);
  const overdue: SQL = sql`(${and(eq(tasks.status, 'open'), isNotNull(tasks.dueAt), lt(tasks.dueAt, clock.now()))})`;
  const page = await listSortedPage(db.select().from(tasks).$dynamic(), {
    where: [
      eq(tasks.organizationId, org),
      ownerCondition(actor, tasks.assigneeUserId, query.assignee, 'assignee'),
      given(query.status, (status) => eq(tasks.status, status)),
      given(query.dueAfter, (t) => gte(tasks.dueAt, t)),
      given(query.dueBefore, (t) => lt(tasks.dueAt, t)),
      query.overdue === undefined ? undefined : query.overdue ? overdue : not(overdue),
      given(query.record, (ref) =>
        isUuid(ref.id)
          ? sql`exists (select 1 from ${taskTargets} tt where tt.task_id = ${tasks.id} and tt.record_id = ${ref.id.toLowerCase()} and tt.record_kind = ${ref.kind})`
          : sql`false`,
      ),
    ],
    sort,
    after: sortCursorKey(query.cursor, sort),
    limit: query.limit,
  });
  return { items: await withTargets(db, org, page.items), nextCursor: page.nextCursor };
}
