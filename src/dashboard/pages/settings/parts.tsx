/** Pieces the settings pages share: a one-time link to copy, and a button that asks before it acts. */
import { useId, useState, type ReactNode } from 'react';
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { CopyButton } from '../../ui.tsx';

/** A one-time link, shown this once: the address to select or copy, and a button to put it away. */
export function OneTimeLink({ title, url, children, onDone }: { title: string; url: string; children?: ReactNode; onDone(): void }) {
  const titleId = useId();
  return (
    <section className="secret-box one-time-link" role="region" aria-labelledby={titleId}>
      <h2 id={titleId}>{title}</h2>
      <p className="secret-warning">
        <strong>Copy it now: it is shown only this once.</strong> {children}
      </p>
      <div className="secret-row">
        <input className="secret-value mono" aria-label="One-time link" readOnly value={url} spellCheck={false} autoComplete="off" onFocus={(e) => e.currentTarget.select()} />
        <CopyButton value={url} label="Copy link" />
      </div>
      <button type="button" className="button" onClick={onDone}>
        Done
      </button>
    </section>
  );
}

/** A button that asks once more (in place) before doing something that cannot be undone. */
export function ConfirmButton({
  label,
  confirmLabel,
  question,
  busy,
  onConfirm,
  name,
}: {
  label: string;
  confirmLabel: string;
  question: string;
  busy: boolean;
  onConfirm(): void;
  /** Who or what it acts on, for the group's accessible name. */
  name: string;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className="button button-danger-outline" aria-label={`${label} ${name}`} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <div className="confirm" role="group" aria-label={`Confirm: ${label} ${name}`}>
      <span className="small">{question}</span>
      <div className="confirm-buttons">
        <button type="button" className="button button-danger" disabled={busy} onClick={onConfirm}>
          {busy ? 'Working…' : confirmLabel}
        </button>
        <button type="button" className="button" disabled={busy} onClick={() => setAsking(false)}>
          Cancel
        </button>
      </div>
    </div>
  );
}

/**
 * A table in its scroll box: on a phone the box scrolls sideways, so it takes the keyboard's focus too
 * (arrow keys scroll it). `actions` adds the last, unnamed-on-screen column of row buttons.
 */
export function Table({ label, columns, actions, className, children }: { label: string; columns: string[]; actions: boolean; className?: string; children: ReactNode }) {
  return (
    <div className="table-wrap" role="region" aria-label={label} tabIndex={0}>
      <table className={className}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
            {actions ? (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** A cell's column name, shown only where the table stacks into cards (a phone), where the header is out of sight. */
export function CellLabel({ children }: { children: ReactNode }) {
  return (
    <span className="cell-label">
      {children}{' '}
    </span>
  );
}

/** A form's submit button and, beside it, "Saved" once it was (said to a screen reader too). */
export function SaveActions({ label, busy, saved, disabled = false }: { label: string; busy: boolean; saved: boolean; disabled?: boolean }) {
  return (
    <div className="form-actions">
      <button type="submit" className="button button-primary" disabled={busy || disabled}>
        {busy ? 'Saving…' : label}
      </button>
      <span role="status" className="small muted">
        {saved ? 'Saved' : ''}
      </span>
    </div>
  );
}

/** A call on one row (revoke, cancel) that refreshes the list under `key` once it succeeded. */
export function useRowAction<T>(key: QueryKey, action: (id: string) => Promise<T>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: action, onSuccess: () => client.invalidateQueries({ queryKey: key }) });
}
