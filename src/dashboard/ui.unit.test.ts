/**
 * The list and dialog primitives (ui.tsx with query.ts's paged list) in a DOM without a browser: a
 * list's loading, failed and empty states, "Load more" over a cursor-paged query, the modal dialog,
 * the in-place confirmation and the dismissable alert.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setUpDom } from '../../test/dashboard/dom.ts';

const { act, fireEvent, render, screen } = await setUpDom();
const { createElement: h, useState } = await import('react');
const { QueryClient, QueryClientProvider } = await import('@tanstack/react-query');
const { ApiError } = await import('./api.ts');
const { usePagedList } = await import('./query.ts');
const { ConfirmButton, Dialog, ErrorMessage, ListState, Pager } = await import('./ui.tsx');

type Row = { id: string; name: string };
type Page = { data: Row[]; meta: { next_cursor: string | null } };

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const newClient = () => new QueryClient({ defaultOptions: { queries: { retry: false } } });

function Rows({ items }: { items: Row[] }) {
  return h(
    'ul',
    { 'aria-label': 'Rows' },
    items.map((r) => h('li', { key: r.id }, r.name)),
  );
}

test('ListState: loading, then the failure, the empty state or the rows', () => {
  const empty = h('p', null, 'Nothing yet.');
  const state = (items: Row[] | undefined, error: unknown) =>
    h(ListState<Row>, { items, error, empty, children: (rows: Row[]) => h(Rows, { items: rows }) });
  const { rerender } = render(state(undefined, null));
  assert.equal(screen.getByRole('status').textContent, 'Loading…');

  rerender(state(undefined, new ApiError(403, 'your role cannot list these', 'forbidden')));
  assert.equal(screen.getByRole('alert').textContent, 'your role cannot list these');

  rerender(state([], null));
  assert.ok(screen.getByText('Nothing yet.'));

  rerender(state([{ id: '1', name: 'Ana' }], new ApiError(503, 'unavailable', undefined)));
  assert.equal(screen.queryByRole('alert'), null, 'a failed refresh keeps the rows it has');
  assert.deepEqual(
    screen.getAllByRole('listitem').map((li) => li.textContent),
    ['Ana'],
  );
});

test('a paged list: the first page, "Load more" busy while the next loads, the rows appended, no button after the last page', async () => {
  const asked: Array<string | undefined> = [];
  const second = deferred<Page>();
  const fetchPage = (cursor: string | undefined): Promise<Page> => {
    asked.push(cursor);
    if (cursor === undefined)
      return Promise.resolve({
        data: [
          { id: '1', name: 'Ana' },
          { id: '2', name: 'Bo' },
        ],
        meta: { next_cursor: 'c2' },
      });
    return second.promise;
  };
  function List() {
    const list = usePagedList(['rows'], fetchPage);
    return h('section', null, [
      h(ListState<Row>, {
        key: 'state',
        items: list.items,
        error: list.error,
        empty: 'none',
        children: (rows: Row[]) => h(Rows, { items: rows }),
      }),
      h(Pager, { key: 'pager', list }),
    ]);
  }
  const client = newClient();
  render(h(QueryClientProvider, { client }, h(List)));
  assert.equal(screen.getByRole('status').textContent, 'Loading…');
  await screen.findByText('Bo');

  const more = screen.getByRole('button', { name: 'Load more' }) as HTMLButtonElement;
  fireEvent.click(more);
  await screen.findByRole('button', { name: 'Loading…' });
  assert.equal(more.disabled, true);
  assert.deepEqual(asked, [undefined, 'c2']);

  await act(async () => second.resolve({ data: [{ id: '3', name: 'Cy' }], meta: { next_cursor: null } }));
  await screen.findByText('Cy');
  assert.deepEqual(
    screen.getAllByRole('listitem').map((li) => li.textContent),
    ['Ana', 'Bo', 'Cy'],
  );
  assert.equal(screen.queryByRole('button', { name: /Load more|Loading…/ }), null, 'the last page has no "Load more"');
  client.clear();
});

test('Dialog: modal while open, named by its title; the close button and Escape (cancel) ask to close; closed when told', () => {
  let closes = 0;
  function Host() {
    const [open, setOpen] = useState(false);
    return h('div', null, [
      h('button', { key: 'opener', type: 'button', onClick: () => setOpen(true) }, 'Open'),
      h(Dialog, {
        key: 'dialog',
        open,
        title: 'Delete this channel?',
        onClose: () => {
          closes++;
          setOpen(false);
        },
        children: h('p', null, 'It cannot be undone.'),
      }),
    ]);
  }
  render(h(Host));
  const dialog = document.querySelector('dialog')!;
  assert.equal(dialog.open, false);
  assert.equal(screen.queryByText('It cannot be undone.'), null, 'a closed dialog renders nothing inside');

  fireEvent.click(screen.getByRole('button', { name: 'Open' }));
  assert.equal(dialog.open, true);
  assert.equal(screen.getByRole('dialog', { name: 'Delete this channel?' }), dialog);
  assert.ok(screen.getByText('It cannot be undone.'));

  // (Closing the native dialog fires its close event, which calls onClose again: harmless.)
  fireEvent.click(screen.getByRole('button', { name: 'Close' }));
  assert.ok(closes > 0);
  assert.equal(dialog.open, false);

  const before = closes;
  fireEvent.click(screen.getByRole('button', { name: 'Open' }));
  assert.equal(dialog.open, true);
  fireEvent(dialog, new Event('cancel'));
  assert.ok(closes > before, 'Escape (the cancel event) asks to close');
  assert.equal(dialog.open, false);
});

test('ConfirmButton: asks once more in place; busy says so and blocks; Cancel goes back', () => {
  let confirmed = 0;
  const button = (busy: boolean) =>
    h(ConfirmButton, {
      label: 'Revoke',
      confirmLabel: 'Revoke key',
      question: 'Software using it stops working.',
      busy,
      name: 'CRM sync',
      onConfirm: () => confirmed++,
    });
  const { rerender } = render(button(false));
  fireEvent.click(screen.getByRole('button', { name: 'Revoke CRM sync' }));
  assert.ok(screen.getByRole('group', { name: 'Confirm: Revoke CRM sync' }));
  fireEvent.click(screen.getByRole('button', { name: 'Revoke key' }));
  assert.equal(confirmed, 1);

  rerender(button(true));
  const working = screen.getByRole('button', { name: 'Working…' }) as HTMLButtonElement;
  assert.equal(working.disabled, true);
  assert.equal((screen.getByRole('button', { name: 'Cancel' }) as HTMLButtonElement).disabled, true);

  rerender(button(false));
  fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
  assert.ok(screen.getByRole('button', { name: 'Revoke CRM sync' }));
  assert.equal(confirmed, 1);
});

test('ErrorMessage: nothing without a message; an alert with Dismiss when it can be put away', () => {
  let dismissed = 0;
  const { container, rerender } = render(h(ErrorMessage, { message: undefined }));
  assert.equal(container.innerHTML, '');
  rerender(h(ErrorMessage, { message: 'could not log out', onDismiss: () => dismissed++ }));
  assert.match(screen.getByRole('alert').textContent ?? '', /could not log out/);
  fireEvent.click(screen.getByRole('button', { name: 'Dismiss' }));
  assert.equal(dismissed, 1);
});
