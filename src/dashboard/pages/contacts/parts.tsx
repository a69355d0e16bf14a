/** Pieces the contacts pages share: a captioned table that scrolls inside itself, and the way back to the list. */
import type { ReactNode } from 'react';
import { Link } from '../../router.tsx';

/**
 * A table in a keyboard-reachable scrolling region (axe: a scrollable region needs focus), with a caption
 * for screen readers and one column header per entry (a header may be a hidden label).
 */
export function Table({ region, caption, headers, className, children }: { region: string; caption: string; headers: ReactNode[]; className?: string; children: ReactNode }) {
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label={region}>
      <table className={className}>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {headers.map((h, i) => (
              <th key={i} scope="col">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** A hidden header for a column of buttons. */
export const ACTIONS_HEADER = <span className="visually-hidden">Actions</span>;

export function BackToContacts() {
  return (
    <Link className="button" to="/contacts">
      Back to contacts
    </Link>
  );
}
