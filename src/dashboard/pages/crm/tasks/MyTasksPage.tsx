/**
 * My tasks: the signed-in person's open tasks, overdue first, then due today (the rest of the day, in the
 * browser's time zone), then later; and the recently completed, to reopen one. A form adds a task.
 */
import { orgKey, usePagedList } from '../../../query.ts';
import { useCan } from '../../../session.tsx';
import { PageHeader } from '../../../ui.tsx';
import { crmApi, type TaskFilter } from '../api.ts';
import { startOfDay } from '../time.ts';
import { TaskForm } from './TaskForm.tsx';
import { TaskList } from './TaskList.tsx';

export function MyTasksPage() {
  const canWrite = useCan('crm:write');
  // The boundaries are taken once a minute, so the query keys (and the lists) stay put meanwhile.
  const minute = Math.floor(Date.now() / 60_000) * 60_000;
  const now = new Date(minute);
  const tomorrow = startOfDay(now, 1).toISOString();
  const mine = { assignee: 'me', status: 'open' } as const;
  return (
    <div className="crm-area">
      <PageHeader title="My tasks" description="The open tasks assigned to you: what is overdue, what is due today and what comes later." />
      <div className="task-sections">
        <TaskSection title="Overdue" id="overdue" filter={{ ...mine, overdue: 'true' }} empty="Nothing overdue." canWrite={canWrite} />
        <TaskSection
          title="Due today"
          id="today"
          filter={{ ...mine, due_after: now.toISOString(), due_before: tomorrow }}
          empty="Nothing else due today."
          canWrite={canWrite}
        />
        <TaskSection title="Later" id="later" filter={{ ...mine, due_after: tomorrow }} empty="Nothing due later." canWrite={canWrite} />
        <TaskSection
          title="Recently completed"
          id="completed"
          filter={{ assignee: 'me', status: 'completed', sort: '-created_at' }}
          empty="No completed tasks."
          canWrite={canWrite}
        />
        {canWrite ? (
          <section className="section card" aria-labelledby="new-task-title">
            <h2 id="new-task-title">New task</h2>
            <TaskForm />
          </section>
        ) : null}
      </div>
    </div>
  );
}

function TaskSection({
  title,
  id,
  filter,
  empty,
  canWrite,
}: {
  title: string;
  id: string;
  filter: TaskFilter;
  empty: string;
  canWrite: boolean;
}) {
  const list = usePagedList(orgKey('crm', 'tasks', 'mine', filter), (cursor) => crmApi.tasks(filter, cursor));
  return (
    <section className="section card" aria-labelledby={`tasks-${id}`}>
      <h2 id={`tasks-${id}`}>{title}</h2>
      <TaskList list={list} label={title} empty={empty} canWrite={canWrite} />
    </section>
  );
}
