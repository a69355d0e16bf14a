/** Small shared pieces: page header, messages, loading and the paged-list hook. */
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
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
