/** Small pieces the area's pages share. */
import type { ReactNode } from 'react';
import { errorMessage } from '../../api.ts';
import { Link } from '../../router.tsx';
import { Dialog, ErrorMessage, PageHeader } from '../../ui.tsx';

/** A page the person's role may not use, said plainly instead of a form that would be refused. */
export function NotAllowed({ title, message }: { title: string; message: string }) {
  return (
    <>
      <PageHeader title={title} />
      <ErrorMessage message={message} />
    </>
  );
}

/** A yes/no question before something that cannot be undone (disconnect, delete). */

export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  confirmLabel: string;
  danger?: boolean;
  busy: boolean;
  error: unknown;
  onConfirm(): void;
  onClose(): void;
  children: ReactNode;
}) {
  return (
    <Dialog open={props.open} title={props.title} onClose={props.onClose}>
      <p>{props.children}</p>
      <ErrorMessage message={props.error ? errorMessage(props.error) : undefined} />
      <div className="form-actions">
        <button
          type="button"
          className={props.danger ? 'button button-danger' : 'button button-primary'}
          onClick={props.onConfirm}
          disabled={props.busy}
        >
          {props.busy ? 'Working…' : props.confirmLabel}
        </button>
        <button type="button" className="button" onClick={props.onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}

/** A form's submit button (saying it is busy) and the way back. */
export function FormActions({ busy, label, busyLabel, cancelTo }: { busy: boolean; label: string; busyLabel: string; cancelTo: string }) {
  return (
    <div className="form-actions">
      <button type="submit" className="button button-primary" disabled={busy}>
        {busy ? busyLabel : label}
      </button>
      <Link className="button" to={cancelTo}>
        Cancel
      </Link>
    </div>
  );
}
