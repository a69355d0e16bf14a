/**
 * The form primitives (forms.tsx) in a DOM without a browser: each field ties its description and the
 * API's message to the control; formErrors reads a mutation's failure; a form built the dashboard's
 * way (useMutation + formErrors) shows its pending state, puts the API's field errors next to their
 * fields and refreshes the cache after a success.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setUpDom } from '../../test/dashboard/dom.ts';

const { act, fireEvent, render, screen, waitFor } = await setUpDom();
const { createElement: h, useState } = await import('react');
const { QueryClient, QueryClientProvider, useMutation, useQuery, useQueryClient } = await import('@tanstack/react-query');
const { ApiError } = await import('./api.ts');
const { CheckboxField, CheckboxGroup, formErrors, SectionForm, SelectField, TextField } = await import('./forms.tsx');
const { ErrorMessage } = await import('./ui.tsx');

const refused = () =>
  new ApiError(400, 'the request is not valid', 'validation', [
    { pointer: '/name', message: 'at most 10 characters' },
    { pointer: '/content/body', message: 'required' },
  ]);

/** The ids an element's aria-describedby names, read as the texts of those elements. */
function descriptions(element: HTMLElement): string[] {
  return (element.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .filter(Boolean)
    .map((id) => document.getElementById(id)?.textContent ?? `(no #${id})`);
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

test('formErrors: the alert line, each field by JSON pointer (nested ones by prefix), and the summary a field already shows', () => {
  const errors = formErrors(refused());
  assert.equal(errors.message, 'the request is not valid');
  assert.equal(errors.field('/name'), 'at most 10 characters');
  assert.equal(errors.field('/content'), 'required', 'a pointer names the fields under it');
  assert.equal(errors.field('/email'), undefined);
  assert.equal(errors.summary('/name', '/email'), undefined, 'no alert when a field shows the message');
  assert.equal(errors.summary('/email'), 'the request is not valid');

  const none = formErrors(null);
  assert.equal(none.message, undefined);
  assert.equal(none.summary(), undefined);
  const bug = formErrors(new TypeError('x is undefined'));
  assert.equal(bug.message, 'something went wrong; reload the page and try again', 'a bug is not shown to the person');
  assert.equal(bug.field('/name'), undefined);
});

test('TextField: labelled, its description and the API message tied to it, aria-invalid only when refused', () => {
  const changes: string[] = [];
  const { rerender } = render(
    h(TextField, { label: 'Name', value: '', onChange: (v: string) => changes.push(v), description: 'As the team sees it' }),
  );
  const input = screen.getByLabelText('Name');
  assert.equal(input.getAttribute('aria-invalid'), null);
  assert.deepEqual(descriptions(input), ['As the team sees it']);
  fireEvent.change(input, { target: { value: 'Ana' } });
  assert.deepEqual(changes, ['Ana']);

  rerender(
    h(TextField, { label: 'Name', value: 'Ana', onChange: () => {}, description: 'As the team sees it', error: 'at most 10 characters' }),
  );
  assert.equal(input.getAttribute('aria-invalid'), 'true');
  assert.deepEqual(descriptions(input), ['As the team sees it', 'at most 10 characters']);

  rerender(h(TextField, { label: 'Note', value: 'hi', onChange: () => {}, multiline: true, error: 'required' }));
  const area = screen.getByLabelText('Note');
  assert.equal(area.tagName, 'TEXTAREA');
  assert.deepEqual(descriptions(area), ['required']);
});

test('SelectField and CheckboxField: labelled, the choice reported, the error tied to the select', () => {
  const picked: string[] = [];
  render(
    h(SelectField, {
      label: 'Role',
      value: 'member',
      onChange: (v: string) => picked.push(v),
      options: [
        { value: 'member', label: 'Member' },
        { value: 'owner', label: 'Owner', disabled: true },
        { value: 'admin', label: 'Admin' },
      ],
      error: 'not allowed',
    }),
  );
  const select = screen.getByLabelText('Role') as HTMLSelectElement;
  assert.equal(select.getAttribute('aria-invalid'), 'true');
  assert.deepEqual(descriptions(select), ['not allowed']);
  assert.equal((screen.getByRole('option', { name: 'Owner' }) as HTMLOptionElement).disabled, true);
  fireEvent.change(select, { target: { value: 'admin' } });
  assert.deepEqual(picked, ['admin']);

  const checks: boolean[] = [];
  render(
    h(CheckboxField, {
      label: 'Unread only',
      checked: false,
      onChange: (c: boolean) => checks.push(c),
      description: 'Hides the read ones',
    }),
  );
  const box = screen.getByLabelText('Unread only');
  assert.deepEqual(descriptions(box), ['Hides the read ones']);
  fireEvent.click(box);
  assert.deepEqual(checks, [true]);
});

test('CheckboxGroup: a fieldset with its legend; ticking adds a value, unticking takes it out; the error described', () => {
  function Picker() {
    const [value, setValue] = useState<string[]>(['a']);
    return h('div', null, [
      h(CheckboxGroup, {
        key: 'group',
        legend: 'Events',
        options: [
          { value: 'a', label: 'Alpha' },
          { value: 'b', label: 'Beta', description: 'the second' },
        ],
        value,
        onChange: setValue,
        error: value.length === 0 ? 'pick one' : undefined,
      }),
      h('output', { key: 'out' }, value.join(',')),
    ]);
  }
  render(h(Picker));
  const group = screen.getByRole('group', { name: 'Events' });
  assert.deepEqual(descriptions(group), []);
  fireEvent.click(screen.getByLabelText(/Beta/));
  assert.equal(document.querySelector('output')!.textContent, 'a,b');
  fireEvent.click(screen.getByLabelText(/Alpha/));
  fireEvent.click(screen.getByLabelText(/Beta/));
  assert.equal(document.querySelector('output')!.textContent, '');
  assert.deepEqual(descriptions(group), ['pick one']);
});

/**
 * A form written as the dashboard writes them: the write is a useMutation whose onSuccess refreshes
 * the list it changed; formErrors puts the refusal next to its field and the rest in the alert.
 */
function NameForm({ save }: { save(name: string): Promise<void> }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const rename = useMutation({
    mutationFn: save,
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['names'] });
      setName('');
    },
  });
  const errors = formErrors(rename.error);
  return h(
    'form',
    {
      'aria-label': 'Rename',
      onSubmit: (e: Event) => {
        e.preventDefault();
        rename.mutate(name);
      },
    },
    [
      h(ErrorMessage, { key: 'alert', message: errors.summary('/name') }),
      h(TextField, { key: 'name', label: 'Name', value: name, onChange: setName, error: errors.field('/name') }),
      h('button', { key: 'submit', type: 'submit', disabled: rename.isPending }, rename.isPending ? 'Saving…' : 'Save'),
    ],
  );
}

function NameList({ load }: { load(): Promise<string[]> }) {
  const names = useQuery({ queryKey: ['names'], queryFn: load });
  return h(
    'ul',
    { 'aria-label': 'Names' },
    (names.data ?? []).map((n) => h('li', { key: n }, n)),
  );
}

test('a mutation form: pending while the write runs, the API refusal at its field, the alert for the rest, the list refreshed after a success', async () => {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  const stored = ['Ana'];
  let loads = 0;
  const load = async () => {
    loads++;
    return [...stored];
  };
  const calls: Array<ReturnType<typeof deferred<void>>> = [];
  const save = (name: string) => {
    const call = deferred<void>();
    calls.push(call);
    return call.promise.then(() => void stored.push(name));
  };
  render(h(QueryClientProvider, { client }, [h(NameList, { key: 'list', load }), h(NameForm, { key: 'form', save })]));
  await screen.findByText('Ana');
  assert.equal(loads, 1);

  const input = screen.getByLabelText('Name');
  fireEvent.change(input, { target: { value: 'A name far too long' } });
  fireEvent.submit(screen.getByRole('form', { name: 'Rename' }));
  const button = await screen.findByRole('button', { name: 'Saving…' });
  assert.equal((button as HTMLButtonElement).disabled, true, 'no second submission while one runs');

  await act(async () => calls[0]!.reject(refused()));
  await screen.findByRole('button', { name: 'Save' });
  assert.equal(input.getAttribute('aria-invalid'), 'true');
  assert.deepEqual(descriptions(input), ['at most 10 characters']);
  assert.equal(screen.queryByRole('alert'), null, 'the field shows the message: no alert repeats it');
  assert.equal((input as HTMLInputElement).value, 'A name far too long', 'what was typed stays to be corrected');

  fireEvent.change(input, { target: { value: 'Bo' } });
  fireEvent.submit(screen.getByRole('form', { name: 'Rename' }));
  await screen.findByRole('button', { name: 'Saving…' });
  assert.equal(input.getAttribute('aria-invalid'), null, 'a new submission clears the last refusal');
  await act(async () => calls[1]!.reject(new ApiError(409, 'that name is taken', 'conflict')));
  assert.equal((await screen.findByRole('alert')).textContent, 'that name is taken');

  fireEvent.submit(screen.getByRole('form', { name: 'Rename' }));
  await screen.findByRole('button', { name: 'Saving…' });
  await act(async () => calls[2]!.resolve());
  await screen.findByText('Bo');
  await waitFor(() => assert.equal((input as HTMLInputElement).value, ''));
  assert.equal(loads, 2, 'the success refreshed the list once');
  assert.equal(screen.queryByRole('alert'), null);
  assert.equal((screen.getByRole('button', { name: 'Save' }) as HTMLButtonElement).disabled, false);
  client.clear();
});

test('SectionForm: a named form with its heading and alert; submitting calls onSubmit once, not the browser; pending disables the button', () => {
  let submitted = 0;
  const props = { label: 'Record consent', title: 'Record consent', submitLabel: 'Save consent', onSubmit: () => (submitted += 1) };
  const field = h(TextField, { label: 'Source', value: '', onChange: () => undefined });
  const view = render(h(SectionForm, { ...props, error: undefined, pending: false, children: field }));
  const form = screen.getByRole('form', { name: 'Record consent' });
  assert.ok(screen.getByRole('heading', { name: 'Record consent' }));
  assert.equal(screen.queryByRole('alert'), null, 'no alert without an error');
  const button = screen.getByRole('button', { name: 'Save consent' }) as HTMLButtonElement;
  assert.equal(button.disabled, false);
  assert.ok(form.contains(screen.getByLabelText('Source')), 'the fields are inside the form');
  const event = new Event('submit', { bubbles: true, cancelable: true });
  fireEvent(form, event);
  assert.equal(submitted, 1);
  assert.equal(event.defaultPrevented, true, 'the browser does not submit the page');

  view.rerender(h(SectionForm, { ...props, error: 'the request is not valid', pending: true, children: field }));
  assert.equal(screen.getByRole('alert').textContent?.includes('the request is not valid'), true);
  assert.equal((screen.getByRole('button', { name: 'Save consent' }) as HTMLButtonElement).disabled, true);
  view.unmount();
});
