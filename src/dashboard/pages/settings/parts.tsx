/** Pieces the settings pages share: a one-time link to copy, a table that scrolls inside itself, row actions. */
import type { ReactNode } from 'react';
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { SecretBox } from '../../ui.tsx';
export { ConfirmButton, Table } from '../../ui.tsx';

/** A one-time link, shown this once: the address to select or copy, and a button to put it away. */
export function OneTimeLink({ title, url, children, onDone }: { title: string; url: string; children?: ReactNode; onDone(): void }) {
  return (
    <SecretBox
      className="one-time-link"
      title={title}
      label="One-time link"
      secret={url}
      copyLabel="Copy link"
      warning={
        <>
          <strong>Copy it now: it is shown only this once.</strong> {children}
        </>
      }
      onDone={onDone}
    />
  );
}

/** A cell's column name, shown only where the table stacks into cards (a phone), where the header is out of sight. */
export function CellLabel({ children }: { children: ReactNode }) {
  return <span className="cell-label">{children} </span>;
}

/** A form's submit button and, beside it, "Saved" once it was (said to a screen reader too). */
export function SaveActions({
  label,
  busy,
  saved,
  disabled = false,
}: {
  label: string;
  busy: boolean;
  saved: boolean;
  disabled?: boolean;
}) {
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
