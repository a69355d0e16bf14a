/**
 * One stage of the board: its name, deal count and totals per currency, its deals (the board's first
 * page, then "Load more" through the stage's own deals route) and a drop target for a dragged deal.
 */
import { useState, type DragEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { errorMessage, type Page } from '../../../api.ts';
import { ErrorMessage } from '../../../ui.tsx';
import { crmApi, type BoardStage, type DealRecord } from '../api.ts';
import { formatMoney } from '../money.ts';
import { DEAL_DRAG_TYPE, DealCard } from './DealCard.tsx';

export function BoardColumn({
  pipelineId,
  stage,
  stages,
  canWrite,
  focusDealId,
  onMove,
}: {
  pipelineId: string;
  stage: BoardStage;
  stages: readonly BoardStage[];
  canWrite: boolean;
  focusDealId: string | undefined;
  onMove(deal: DealRecord, stageId: string, byKeyboard: boolean): void;
}) {
  // Pages read past the board's first. A deal the board's first pages hold (moved since) shows there only.
  const [more, setMore] = useState<{ deals: DealRecord[]; cursor: string | null }>({ deals: [], cursor: stage.next_cursor });
  const [over, setOver] = useState(false);
  const loadMore = useMutation({
    mutationFn: (cursor: string) => crmApi.stageDeals(pipelineId, stage.id, cursor),
    onSuccess: (page: Page<DealRecord>) => setMore((m) => ({ deals: [...m.deals, ...page.data], cursor: page.meta.next_cursor ?? null })),
  });
  const seen = new Set(stages.flatMap((s) => s.deals.map((d) => d.id)));
  const deals = [...stage.deals, ...more.deals.filter((d) => !seen.has(d.id) && d.stage_id === stage.id)];
  const headingId = `stage-${stage.id}`;

  function dragOver(event: DragEvent) {
    if (!canWrite || !event.dataTransfer.types.includes(DEAL_DRAG_TYPE)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'move';
    setOver(true);
  }
  function drop(event: DragEvent) {
    setOver(false);
    const id = event.dataTransfer.getData(DEAL_DRAG_TYPE);
    if (!id) return;
    event.preventDefault();
    const deal = stages.flatMap((s) => s.deals).find((d) => d.id === id) ?? more.deals.find((d) => d.id === id);
    if (deal && deal.stage_id !== stage.id) onMove(deal, stage.id, false);
  }

  return (
    <section
      className={`board-column${over ? ' board-column-over' : ''}`}
      aria-labelledby={headingId}
      data-stage-id={stage.id}
      onDragOver={dragOver}
      onDragLeave={() => setOver(false)}
      onDrop={drop}
    >
      <header className="board-column-header">
        <h2 id={headingId}>
          {stage.name} <span className="board-count">{stage.deal_count}</span>
        </h2>
        <p className="small muted">
          {stage.kind === 'open' ? `${stage.probability} %` : stage.kind === 'won' ? 'Won' : 'Lost'}
          {stage.totals.map((t) => (
            <span key={t.currency} className="board-total">
              {' · '}
              {formatMoney(t.amount, t.currency)}
            </span>
          ))}
        </p>
      </header>
      {deals.length === 0 ? (
        <p className="small muted board-empty">No deals</p>
      ) : (
        <ul className="deal-cards" aria-label={`Deals in ${stage.name}`}>
          {deals.map((d) => (
            <DealCard key={d.id} deal={d} stages={stages} canWrite={canWrite} focus={d.id === focusDealId} onMove={onMove} />
          ))}
        </ul>
      )}
      <ErrorMessage message={loadMore.error ? errorMessage(loadMore.error) : undefined} />
      {more.cursor ? (
        <button
          type="button"
          className="button button-small"
          disabled={loadMore.isPending}
          onClick={() => more.cursor && loadMore.mutate(more.cursor)}
          aria-label={`Load more deals in ${stage.name}`}
        >
          {loadMore.isPending ? 'Loading…' : 'Load more'}
        </button>
      ) : null}
    </section>
  );
}
