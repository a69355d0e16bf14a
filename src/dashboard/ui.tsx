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
export function ListState<T>({ items, error, empty, children }: { items: T[] | undefined; error: unknown; empty: ReactNode; children: (items: T[]) => ReactNode }) {
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
