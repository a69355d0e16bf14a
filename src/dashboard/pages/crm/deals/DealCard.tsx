/**
 * A deal on the board: its name (a link to the deal), amount and expected close date. It is dragged to
 * another column with the mouse, or moved with the keyboard: "Move…" opens a stage picker in place.
 */
import { useEffect, useRef, useState, type DragEvent } from 'react';
import { Link } from '../../../router.tsx';
import type { BoardStage, DealRecord } from '../api.ts';
import { dealAmount } from '../money.ts';

/** The drag data's type: a deal's id, read by the column it is dropped on. */
export const DEAL_DRAG_TYPE = 'application/x-parley-deal';

export function DealCard({
  deal,
  stages,
  canWrite,
  focus,
  onMove,
}: {
  deal: DealRecord;
  stages: readonly BoardStage[];
  canWrite: boolean;
  /** Moved here from the keyboard: its Move button takes the focus, so the next move is one key away. */
  focus: boolean;
  onMove(deal: DealRecord, stageId: string, byKeyboard: boolean): void;
}) {
  const [picking, setPicking] = useState(false);
  const moveButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (focus) moveButton.current?.focus();
  }, [focus]);
  const others = stages.filter((s) => s.id !== deal.stage_id);
  const [target, setTarget] = useState(others[0]?.id ?? '');

  function dragStart(event: DragEvent) {
    event.dataTransfer.setData(DEAL_DRAG_TYPE, deal.id);
    event.dataTransfer.setData('text/plain', deal.name);
    event.dataTransfer.effectAllowed = 'move';
  }

  return (
    <li className="deal-card" data-deal-id={deal.id} draggable={canWrite} onDragStart={canWrite ? dragStart : undefined}>
      <Link className="deal-card-name" to={`/deals/${deal.id}`} draggable={false}>
        {deal.name}
      </Link>
      <div className="deal-card-meta small muted">
        <span>{dealAmount(deal)}</span>
        {deal.expected_close_date ? <span>Closes {deal.expected_close_date}</span> : null}
      </div>
      {canWrite && others.length > 0 ? (
        picking ? (
          <form
            className="deal-move"
            aria-label={`Move ${deal.name}`}
            onSubmit={(e) => {
              e.preventDefault();
              setPicking(false);
              onMove(deal, target, true);
            }}
          >
            <label className="visually-hidden" htmlFor={`move-${deal.id}`}>
              Stage for {deal.name}
            </label>
            <select id={`move-${deal.id}`} value={target} onChange={(e) => setTarget(e.target.value)} autoFocus>
              {others.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
            <button type="submit" className="button button-small button-primary">
              Move
            </button>
            <button type="button" className="button button-small" onClick={() => setPicking(false)}>
              Cancel
            </button>
          </form>
        ) : (
          <button
            ref={moveButton}
            type="button"
            className="link-button small"
            aria-label={`Move ${deal.name} to another stage`}
            onClick={() => setPicking(true)}
          >
            Move…
          </button>
        )
      ) : null}
    </li>
  );
}
