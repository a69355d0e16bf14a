/** Pieces the settings pages share: a one-time link to copy, and a button that asks before it acts. */
import { useId, useState, type ReactNode } from 'react';
import { CopyButton } from '../../ui.tsx';

/** A one-time link, shown this once: the address to select or copy, and a button to put it away. */
export function OneTimeLink({ title, url, children, onDone }: { title: string; url: string; children?: ReactNode; onDone(): void }) {
  const titleId = useId();
  return (
    <section className="secret-box" role="region" aria-labelledby={titleId}>
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

/** A table's scroll box: on a phone it scrolls sideways, so it takes the keyboard's focus too (arrow keys scroll it). */
export function TableWrap({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-wrap" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
