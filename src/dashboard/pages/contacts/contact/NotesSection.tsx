/** The contact's notes, newest first, by cursor: add one, delete one. */
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../../api.ts';
import { formatDate } from '../../../format.ts';
import { formErrors, TextField } from '../../../forms.tsx';
import { orgKey, usePagedList } from '../../../query.ts';
import { useSession } from '../../../session.tsx';
import { ErrorMessage, ListState, Pager } from '../../../ui.tsx';
import { contactsApi, type NoteRecord } from '../api.ts';

export function NotesSection({ contactId, canWrite }: { contactId: string; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const notes = usePagedList(orgKey('contacts', contactId, 'notes'), (cursor) => contactsApi.notes(contactId, cursor));
  const me = useSession().user.id;
  const [body, setBody] = useState('');
  const refresh = () => queryClient.invalidateQueries({ queryKey: orgKey('contacts', contactId, 'notes') });
  const add = useMutation({
    mutationFn: (text: string) => contactsApi.addNote(contactId, text),
    onSuccess: async () => {
      await refresh();
      setBody('');
    },
  });
  const errors = formErrors(add.error);
  const remove = useMutation({ mutationFn: (noteId: string) => contactsApi.deleteNote(contactId, noteId), onSuccess: refresh });

  return (
    <section className="section card" aria-labelledby="notes-title">
      <h2 id="notes-title">Notes</h2>
      {canWrite ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            add.mutate(body);
          }}
          noValidate
        >
          <ErrorMessage message={errors.summary('/body')} />
          <TextField label="New note" multiline rows={3} value={body} onChange={setBody} error={errors.field('/body')} maxLength={10_000} />
          <button type="submit" className="button" disabled={add.isPending || !body.trim()}>
            {add.isPending ? 'Adding…' : 'Add note'}
          </button>
        </form>
      ) : null}
      <ErrorMessage message={remove.error ? errorMessage(remove.error) : undefined} onDismiss={() => remove.reset()} />
      <ListState items={notes.items} error={notes.error} empty={<p className="muted">No notes yet.</p>}>
        {(items) => (
          <ul className="note-list" aria-label="Notes">
            {items.map((n) => (
              <li key={n.id} className="note">
                <p className="note-body">{n.body}</p>
                <div className="note-meta small muted">
                  <span>
                    {formatDate(n.created_at)} · by {authorName(n.author, me)}
                  </span>
                  {canWrite ? (
                    <button
                      type="button"
                      className="link-button"
                      disabled={remove.isPending}
                      onClick={() => remove.mutate(n.id)}
                      aria-label={`Delete note from ${formatDate(n.created_at)}`}
                    >
                      Delete
                    </button>
                  ) : null}
                </div>
              </li>
            ))}
          </ul>
        )}
      </ListState>
      <Pager list={notes} />
    </section>
  );
}

function authorName(author: NoteRecord['author'], me: string): string {
  if (author.type === 'api_key') return 'an API key';
  if (author.type === 'system') return 'Parley';
  return author.id === me ? 'you' : 'a teammate';
}
