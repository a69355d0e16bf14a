/** Pieces the Developers pages share: a secret shown once, a confirmed action, a JSON block. */
import { useState, type ReactNode } from 'react';
import { CopyButton } from '../../ui.tsx';

/** A secret shown this once (API key, client secret) or on request (webhook secret), with a copy button. */
export function SecretOnce({ title, label, secret, warning, onDone, doneLabel }: { title: string; label: string; secret: string; warning: ReactNode; onDone(): void; doneLabel: string }) {
  return (
    <section className="secret-box" role="region" aria-label={title}>
      <h2>{title}</h2>
      <p className="secret-warning">{warning}</p>
      <div className="secret-row">
        <input className="secret-value mono" aria-label={label} readOnly value={secret} spellCheck={false} autoComplete="off" onFocus={(e) => e.currentTarget.select()} />
        <CopyButton value={secret} />
      </div>
      <button type="button" className="button" onClick={onDone}>
        {doneLabel}
      </button>
    </section>
  );
}

/** A button that asks once more before a destructive action, in place. */
export function ConfirmButton({ label, confirmLabel, question, busy, onConfirm }: { label: string; confirmLabel: string; question: string; busy: boolean; onConfirm(): void }) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className="button button-danger-outline" onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <div className="confirm" role="group" aria-label={question}>
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

export function JsonBlock({ value, label }: { value: unknown; label: string }) {
  return (
    <pre className="json-block" aria-label={label} tabIndex={0}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

/** The sentence for a duration in milliseconds (24 hours, 90 s). */
export function describeMs(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} hours`;
  if (ms % 60_000 === 0) return `${ms / 60_000} minutes`;
  return `${Math.round(ms / 1000)} s`;
}
