/**
 * The inbox without a mouse (docs/dashboard/inbox.md): j / k move to the next or previous conversation,
 * r writes a reply, \ starts a canned response in the composer, e resolves, a assigns to me, ? shows the
 * sheet of shortcuts. Keys typed in a field are the field's (Escape leaves it). The actions are the
 * buttons and fields the page shows, found by their `data-shortcut` mark, so a key does exactly what its
 * click would do and nothing a member could not do by hand.
 */
import { useEffect, useState } from 'react';
import { Dialog } from '../../ui.tsx';

export const SHORTCUTS = [
  { keys: ['j', 'ArrowDown'], label: 'Next conversation' },
  { keys: ['k', 'ArrowUp'], label: 'Previous conversation' },
  { keys: ['r'], label: 'Reply (focus the composer)' },
  { keys: ['\\'], label: 'Insert a canned response' },
  { keys: ['e'], label: 'Resolve the conversation' },
  { keys: ['a'], label: 'Assign it to me' },
  { keys: ['Escape'], label: 'Leave the field you are typing in' },
  { keys: ['?'], label: 'Show these shortcuts' },
] as const;

const typing = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));

const marked = (name: string) => document.querySelector<HTMLElement>(`[data-shortcut="${name}"]`);

/** Moves to the conversation `step` rows away from the current one in the list (the first when none is current). */
function move(step: 1 | -1): void {
  const links = [...document.querySelectorAll<HTMLAnchorElement>('.conversation-nav .conversation-link')];
  if (links.length === 0) return;
  // The open conversation by the address (aria-current follows it a render later).
  const current = links.findIndex((l) => new URL(l.href).pathname === window.location.pathname);
  const next = links[current < 0 ? 0 : Math.min(links.length - 1, Math.max(0, current + step))];
  if (next && next !== links[current]) {
    next.click();
    next.focus();
  }
}

/** Focuses the composer; `start`: an empty one gets this text typed in (a `/` opens the canned responses). */
function compose(start?: string): void {
  const field = marked('reply');
  if (!(field instanceof HTMLTextAreaElement)) return;
  field.focus();
  if (start && field.value === '') {
    // React keeps the value: set it through the element's own setter so its onChange sees the change.
    Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')?.set?.call(field, start);
    field.dispatchEvent(new Event('input', { bubbles: true }));
  }
}

/** Listens for the inbox's keys while mounted; answers whether the shortcut sheet is open and how to close it. */
export function useInboxShortcuts(): { helpOpen: boolean; closeHelp(): void } {
  const [helpOpen, setHelpOpen] = useState(false);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
      if (typing(event.target)) {
        if (event.key === 'Escape' && event.target instanceof HTMLElement && !event.target.closest('dialog')) event.target.blur();
        return;
      }
      if (document.querySelector('dialog[open]')) return;
      const act = (fn: () => void) => {
        event.preventDefault();
        fn();
      };
      switch (event.key) {
        case 'j':
        case 'ArrowDown':
          return act(() => move(1));
        case 'k':
        case 'ArrowUp':
          return act(() => move(-1));
        case 'r':
          return act(() => compose());
        case '\\':
          return act(() => compose('/'));
        case 'e':
          return act(() => marked('resolve')?.click());
        case 'a':
          return act(() => marked('assign-me')?.click());
        case '?':
          return act(() => setHelpOpen(true));
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  return { helpOpen, closeHelp: () => setHelpOpen(false) };
}

const keyName = (key: string) => (key === 'ArrowDown' ? '↓' : key === 'ArrowUp' ? '↑' : key === 'Escape' ? 'Esc' : key);

/** The sheet of shortcuts (opened with ?). */
export function ShortcutHelp({ open, onClose }: { open: boolean; onClose(): void }) {
  return (
    <Dialog open={open} title="Keyboard shortcuts" onClose={onClose}>
      <table className="table shortcut-table">
        <caption className="visually-hidden">Inbox keyboard shortcuts</caption>
        <thead>
          <tr>
            <th scope="col">Keys</th>
            <th scope="col">Does</th>
          </tr>
        </thead>
        <tbody>
          {SHORTCUTS.map((s) => (
            <tr key={s.label}>
              <td>
                {s.keys.map((k, i) => (
                  <span key={k}>
                    {i > 0 ? ' or ' : null}
                    <kbd>{keyName(k)}</kbd>
                  </span>
                ))}
              </td>
              <td>{s.label}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="small muted">Keys typed in a field are the field’s; press Esc to leave it first.</p>
    </Dialog>
  );
}
