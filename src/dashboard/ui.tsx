/** The dashboard's design system, small: page header, alerts, loading and empty states, lists, dialog, copy, badges (forms.tsx has the form controls). */
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { errorMessage } from './api.ts';
import { statusTone } from './format.ts';

export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Parley`;
  }, [title]);
}

/** The Parley mark and name; dark on the light cards of the sign-in pages. */
export function Brand({ dark = false }: { dark?: boolean }) {
  return (
    <div className={dark ? 'brand brand-dark' : 'brand'}>
      <span className="brand-mark" aria-hidden="true">
        P
      </span>
      Parley
    </div>
  );
}

export function PageHeader({ title, description, children }: { title: string; description?: ReactNode; children?: ReactNode }) {
  usePageTitle(title);
  return (
    <header className="page-header">
      <div>
        <h1>{title}</h1>
        {description ? <p className="page-description">{description}</p> : null}
      </div>
      {children ? <div className="page-actions">{children}</div> : null}
    </header>
  );
}

export function ErrorMessage({ message, onDismiss }: { message: string | undefined; onDismiss?: () => void }) {
  if (!message) return null;
  return (
    <div className="alert alert-error" role="alert">
      <span>{message}</span>
      {onDismiss ? (
        <button type="button" className="link-button" onClick={onDismiss}>
          Dismiss
        </button>
      ) : null}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="loading" role="status">
      {label}
    </p>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty-state">
      <h2>{title}</h2>
      {children ? <p>{children}</p> : null}
    </div>
  );
}

/** "Load more" for a TanStack-backed paged list (query.ts). */
export function Pager({ list }: { list: { hasMore: boolean; loadingMore: boolean; loadMore(): void } }) {
  if (!list.hasMore) return null;
  return (
    <div className="load-more">
      <button type="button" className="button" onClick={list.loadMore} disabled={list.loadingMore}>
        {list.loadingMore ? 'Loading…' : 'Load more'}
      </button>
    </div>
  );
}

/**
 * The three states every list page has before its rows: loading, failed (with the API's message) and
 * empty; renders `children` once there is something to show.
 */
export function ListState<T>({
  items,
  error,
  empty,
  children,
}: {
  items: T[] | undefined;
  error: unknown;
  empty: ReactNode;
  children: (items: T[]) => ReactNode;
}) {
  if (error && !items) return <ErrorMessage message={errorMessage(error)} />;
  if (!items) return <Loading />;
  if (items.length === 0) return <>{empty}</>;
  return <>{children(items)}</>;
}

/** A modal dialog on the native <dialog> (focus moves in, Escape closes, focus returns to the opener). */
export function Dialog({ open, title, onClose, children }: { open: boolean; title: string; onClose(): void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} className="dialog" aria-labelledby={titleId} onClose={onClose} onCancel={onClose}>
      {open ? (
        <>
          <header className="dialog-header">
            <h2 id={titleId}>{title}</h2>
            <button type="button" className="link-button" onClick={onClose} aria-label="Close">
              ✕
            </button>
          </header>
          {children}
        </>
      ) : null}
    </dialog>
  );
}

/** Copies a value to the clipboard and says so (for a screen reader too). */
export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const [copied, setCopied] = useState<boolean | undefined>(undefined);
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  }
  return (
    <>
      <button type="button" className="button" onClick={() => void copy()}>
        {label}
      </button>
      <span role="status" className="small muted copy-status">
        {copied === true ? 'Copied' : copied === false ? 'Select the text and copy it' : ''}
      </span>
    </>
  );
}

/** A status word as a coloured badge (the word itself carries the meaning, not only the colour). */
export function StatusBadge({ status, label }: { status: string; label?: string }) {
  const tone = statusTone(status);
  return <span className={`badge badge-${tone}`}>{label ?? status.replaceAll('_', ' ')}</span>;
}

/** A secret shown once (or on request), to select or copy, and a button to put it away. */
export function SecretBox({
  title,
  label,
  secret,
  warning,
  onDone,
  doneLabel = 'Done',
  copyLabel = 'Copy',
  className,
}: {
  title: string;
  label: string;
  secret: string;
  warning: ReactNode;
  onDone(): void;
  doneLabel?: string;
  copyLabel?: string;
  className?: string;
}) {
  const titleId = useId();
  return (
    <section className={`secret-box ${className ?? ''}`} role="region" aria-labelledby={titleId}>
      <h2 id={titleId}>{title}</h2>
      <p className="secret-warning">{warning}</p>
      <div className="secret-row">
        <input
          className="secret-value mono"
          aria-label={label}
          readOnly
          value={secret}
          spellCheck={false}
          autoComplete="off"
          onFocus={(e) => e.currentTarget.select()}
        />
        <CopyButton value={secret} label={copyLabel} />
      </div>
      <button type="button" className="button" onClick={onDone}>
        {doneLabel}
      </button>
    </section>
  );
}

/** A button that asks once more, in place, before doing something that cannot be undone. */
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
  /** Who or what it acts on, for the accessible names (a list of rows each with its own button). */
  name?: string;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button
        type="button"
        className="button button-danger-outline"
        aria-label={name ? `${label} ${name}` : undefined}
        onClick={() => setAsking(true)}
      >
        {label}
      </button>
    );
  }
  return (
    <div className="confirm" role="group" aria-label={name ? `Confirm: ${label} ${name}` : question}>
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
 * A table in a keyboard-reachable scrolling region (it scrolls sideways on a phone, inside itself), with
 * a caption for screen readers and one column header per entry (`actions`: a last column of row buttons).
 */
export function Table({
  label,
  caption,
  columns,
  actions = false,
  className,
  children,
}: {
  label: string;
  caption?: string;
  columns: ReactNode[];
  actions?: boolean;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label={label}>
      <table className={className}>
        {caption ? <caption className="visually-hidden">{caption}</caption> : null}
        <thead>
          <tr>
            {columns.map((c, i) => (
              <th key={i} scope="col">
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
