/** The tasks linked to a record (a company, a deal, a contact), open first by due time, with a form for a new one. */
import { orgKey, usePagedList } from '../../../query.ts';
import { crmApi } from '../api.ts';
import { TaskForm } from './TaskForm.tsx';
import { TaskList } from './TaskList.tsx';

export function RecordTasksSection({ kind, id, canWrite }: { kind: 'company' | 'deal' | 'contact'; id: string; canWrite: boolean }) {
  const record = `${kind}:${id}`;
  const list = usePagedList(orgKey('crm', 'tasks', { record }), (cursor) => crmApi.tasks({ record }, cursor));
  return (
    <section className="section card" aria-labelledby="tasks-title">
      <h2 id="tasks-title">Tasks</h2>
      <TaskList list={list} label={`Tasks of this ${kind}`} empty="No tasks yet." canWrite={canWrite} record={record} />
      {canWrite ? <TaskForm target={{ kind, id }} /> : null}
    </section>
  );
}
