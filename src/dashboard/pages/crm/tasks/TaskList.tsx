/** Tasks as a list: each with its due time, priority and records, and a button to complete or reopen it. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../../api.ts';
import { formatDate } from '../../../format.ts';
import { orgKey, type PagedList } from '../../../query.ts';
import { Link } from '../../../router.tsx';
import { ErrorMessage, ListState, Pager, StatusBadge } from '../../../ui.tsx';
import { crmApi, type RecordRefRecord, type TaskRecord } from '../api.ts';

/** Where a task's record is in the dashboard (a conversation opens in the inbox). */
export function recordPath(ref: { kind: string; id: string }): string | undefined {
  if (ref.kind === 'company') return `/companies/${ref.id}`;
  if (ref.kind === 'deal') return `/deals/${ref.id}`;
  if (ref.kind === 'contact') return `/contacts/${ref.id}`;
  if (ref.kind === 'conversation') return `/inbox/${ref.id}`;
  return undefined;
}

export function TaskList({
  list,
  label,
  empty,
  canWrite,
  record,
}: {
  list: PagedList<TaskRecord>;
  label: string;
  empty: string;
  canWrite: boolean;
  /** The record whose page this is (`kind:id`): not repeated among each task's records. */
  record?: string;
}) {
  const queryClient = useQueryClient();
  const toggle = useMutation({
    mutationFn: (task: TaskRecord) => (task.status === 'open' ? crmApi.completeTask(task.id) : crmApi.reopenTask(task.id)),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: orgKey('crm') }),
  });
  const now = Date.now();
  return (
    <>
      <ErrorMessage message={toggle.error ? errorMessage(toggle.error) : undefined} onDismiss={() => toggle.reset()} />
      <ListState items={list.items} error={list.error} empty={<p className="muted">{empty}</p>}>
        {(items) => (
          <ul className="task-list" aria-label={label}>
            {items.map((t) => (
              <li key={t.id} className={`task task-${t.status}`} data-task-id={t.id}>
                <div className="task-main">
                  <span className="task-title strong">{t.title}</span>
                  <span className="small muted">
                    {t.due_at ? (
                      <>
                        Due {formatDate(t.due_at)}
                        {t.status === 'open' && Date.parse(t.due_at) < now ? ' · overdue' : ''}
                      </>
                    ) : (
                      'No due time'
                    )}
                    {t.priority ? ` · ${t.priority} priority` : ''}
                  </span>
                  {t.notes ? <p className="small task-notes">{t.notes}</p> : null}
                  <Targets targets={t.targets.filter((r) => `${r.kind}:${r.id}` !== record)} />
                </div>
                <div className="task-actions">
                  {t.status === 'completed' ? <StatusBadge status="completed" /> : null}
                  {canWrite ? (
                    <button
                      type="button"
                      className="button button-small"
                      disabled={toggle.isPending}
                      onClick={() => toggle.mutate(t)}
                      aria-label={`${t.status === 'open' ? 'Complete' : 'Reopen'} ${t.title}`}
                    >
                      {t.status === 'open' ? 'Complete' : 'Reopen'}
                    </button>
                  ) : null}
                </div>
              </li>
            ))}
          </ul>
        )}
      </ListState>
      <Pager list={list} />
    </>
  );
}

function Targets({ targets }: { targets: RecordRefRecord[] }) {
  if (targets.length === 0) return null;
  return (
    <ul className="chips" aria-label="About">
      {targets.map((r) => {
        const to = recordPath(r);
        const name = r.display_name ?? r.kind;
        return (
          <li key={`${r.kind}:${r.id}`}>
            {to ? (
              <Link className="chip" to={to}>
                {name}
              </Link>
            ) : (
              <span className="chip">{name}</span>
            )}
          </li>
        );
      })}
    </ul>
  );
}
