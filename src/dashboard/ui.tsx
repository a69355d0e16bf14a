/** The dashboard's design system, small: page header, alerts, loading and empty states, lists, dialog, copy, badges (forms.tsx has the form controls). */
import { useCallback, useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { errorMessage, type Page } from './api.ts';

/** A form's sending state: busy while its work runs, the failure as a message (explained by `explain`). */
export function useSending(explain: (err: unknown) => string = errorMessage) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  async function send(work: () => Promise<void>) {
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (err) {
      setError(explain(err));
    } finally {
      setBusy(false);
    }
  }
  return { busy, error, setError, send };
}

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

export type Paged<T> = {
  items: T[] | undefined;
  error: string | undefined;
  hasMore: boolean;
  loadingMore: boolean;
  loadMore(): void;
  reload(): void;
  update(fn: (items: T[]) => T[]): void;
};

/** A cursor-paged list: the first page on mount, more on demand. */
export function usePaged<T>(fetchPage: (cursor?: string) => Promise<Page<T>>): Paged<T> {
  const [items, setItems] = useState<T[] | undefined>(undefined);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | undefined>(undefined);
  const [loadingMore, setLoadingMore] = useState(false);
  const generation = useRef(0);
  const fetchRef = useRef(fetchPage);
  fetchRef.current = fetchPage;

  const reload = useCallback(() => {
    const mine = ++generation.current;
    setError(undefined);
    fetchRef
      .current()
      .then((page) => {
        if (mine !== generation.current) return;
        setItems(page.data);
        setCursor(page.meta.next_cursor);
      })
      .catch((err: unknown) => {
        if (mine === generation.current) setError(errorMessage(err));
      });
  }, []);

  useEffect(() => {
    reload();
  }, [reload]);

  const loadMore = useCallback(() => {
    if (!cursor) return;
    const mine = generation.current;
    setLoadingMore(true);
    fetchRef
      .current(cursor)
      .then((page) => {
        if (mine !== generation.current) return;
        setItems((prev) => [...(prev ?? []), ...page.data]);
        setCursor(page.meta.next_cursor);
      })
      .catch((err: unknown) => {
        if (mine === generation.current) setError(errorMessage(err));
      })
      .finally(() => setLoadingMore(false));
  }, [cursor]);

  const update = useCallback((fn: (items: T[]) => T[]) => setItems((prev) => (prev ? fn(prev) : prev)), []);

  return { items, error, hasMore: cursor !== null, loadingMore, loadMore, reload, update };
}

export function LoadMore({ paged }: { paged: Paged<unknown> }) {
  if (!paged.hasMore) return null;
  return (
    <div className="load-more">
      <button type="button" className="button" onClick={paged.loadMore} disabled={paged.loadingMore}>
        {paged.loadingMore ? 'Loading…' : 'Load more'}
      </button>
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

const TONES: Record<string, 'ok' | 'bad' | 'warn' | 'neutral'> = {
  connected: 'ok',
  active: 'ok',
  approved: 'ok',
  delivered: 'ok',
  read: 'ok',
  succeeded: 'ok',
  open: 'ok',
  enabled: 'ok',
  sent: 'neutral',
  queued: 'neutral',
  pending: 'warn',
  pairing: 'warn',
  connecting: 'warn',
  retrying: 'warn',
  in_review: 'warn',
  failed: 'bad',
  error: 'bad',
  rejected: 'bad',
  disconnected: 'bad',
  disabled: 'bad',
  closed: 'neutral',
};

/** A status word as a coloured badge (the word itself carries the meaning, not only the colour). */
export function StatusBadge({ status, label }: { status: string; label?: string }) {
  const tone = TONES[status] ?? 'neutral';
  return <span className={`badge badge-${tone}`}>{label ?? status.replaceAll('_', ' ')}</span>;
}
