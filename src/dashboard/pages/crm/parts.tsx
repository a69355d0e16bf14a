/** Small pieces the CRM pages share: who did something, a record's detail list, and deleting a record. */
import { useState, type ReactNode } from 'react';
import { errorMessage } from '../../api.ts';
import { useSession } from '../../session.tsx';
import { ErrorMessage } from '../../ui.tsx';
import type { ChangedByRecord } from './api.ts';

/** "you", "a teammate", "an API key", "an app" or "Parley". */
export function useActorName(): (actor: ChangedByRecord) => string {
  const me = useSession().user.id;
  return (actor) => {
    if (actor.type === 'api_key') return 'an API key';
    if (actor.type === 'oauth_client') return actor.user_id === me ? 'you (through an app)' : 'an app';
    if (actor.type === 'system') return 'Parley';
    return actor.user_id === me || actor.id === me ? 'you' : 'a teammate';
  };
}

export function Details({ id, title, pairs }: { id: string; title: string; pairs: Array<[string, ReactNode]> }) {
  return (
    <section className="section card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <dl className="details">
        {pairs.map(([term, value], i) => (
          <div key={i} className="details-pair">
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/**
 * Deleting the record a page shows. While the DELETE runs and after it, the page draws "Deleting…" and
 * its queries stop: a live event arriving meanwhile would otherwise fetch the record that is gone (404).
 */
export function usePageDeletion(remove: () => Promise<void>, after: () => void) {
  const [state, setState] = useState<{ deleting: boolean; error?: string }>({ deleting: false });
  async function run() {
    setState({ deleting: true });
    try {
      await remove();
    } catch (err) {
      setState({ deleting: false, error: errorMessage(err) });
      return;
    }
    after();
  }
  return { ...state, run: () => void run() };
}

/** A record's delete section, asked once more in place. */
export function DeleteRecord({
  what,
  consequence,
  error,
  onDelete,
}: {
  what: string;
  consequence: string;
  error?: string;
  onDelete(): void;
}) {
  const [confirming, setConfirming] = useState(false);
  const headingId = `delete-${what.replaceAll(' ', '-')}`;
  return (
    <section className="section" aria-labelledby={headingId}>
      <h2 id={headingId}>Delete {what}</h2>
      <ErrorMessage message={error} />
      {confirming ? (
        <div className="confirm" role="group" aria-label={`Confirm deleting the ${what}`}>
          <span className="small">{consequence}</span>
          <div className="confirm-buttons">
            <button type="button" className="button button-danger" onClick={onDelete}>
              Delete {what}
            </button>
            <button type="button" className="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <button type="button" className="button button-danger-outline" onClick={() => setConfirming(true)}>
          Delete…
        </button>
      )}
    </section>
  );
}
