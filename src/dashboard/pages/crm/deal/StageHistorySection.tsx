/** A deal's stays in its stages, oldest first: when it entered and left each, and who moved it. */
import { formatDate } from '../../../format.ts';
import { orgKey, usePagedList } from '../../../query.ts';
import { ListState, Pager } from '../../../ui.tsx';
import { crmApi } from '../api.ts';
import { useActorName } from '../parts.tsx';

export function StageHistorySection({ dealId }: { dealId: string }) {
  const history = usePagedList(orgKey('crm', 'deals', dealId, 'history'), (cursor) => crmApi.stageHistory(dealId, cursor));
  const actorName = useActorName();
  return (
    <section className="section card" aria-labelledby="history-title">
      <h2 id="history-title">Stage history</h2>
      <ListState items={history.items} error={history.error} empty={<p className="muted">No stage history.</p>}>
        {(items) => (
          <ol className="stage-history" aria-label="Stage history">
            {items.map((h) => (
              <li key={h.id}>
                <span className="strong">{h.stage_name}</span>
                <span className="small muted">
                  {' '}
                  from {formatDate(h.entered_at)}
                  {h.left_at ? ` to ${formatDate(h.left_at)}` : ' (now)'} · moved by {actorName(h.changed_by)}
                </span>
              </li>
            ))}
          </ol>
        )}
      </ListState>
      <Pager list={history} />
    </section>
  );
}
