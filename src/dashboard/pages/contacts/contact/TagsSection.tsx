/** The contact's tags: each links to the list filtered by it; add one, remove one. */
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../../api.ts';
import { formErrors, TextField } from '../../../forms.tsx';
import { orgKey } from '../../../query.ts';
import { Link } from '../../../router.tsx';
import { ErrorMessage } from '../../../ui.tsx';
import { contactsApi, type ContactRecord } from '../api.ts';

/** Invalidates everything about contacts (the list shows tags too). */
function useContactsRefresh() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: orgKey('contacts') });
}

export function TagsSection({ contact, canWrite }: { contact: ContactRecord; canWrite: boolean }) {
  const refresh = useContactsRefresh();
  const [tag, setTag] = useState('');
  const add = useMutation({
    mutationFn: (name: string) => contactsApi.addTag(contact.id, name),
    onSuccess: async () => {
      await refresh();
      setTag('');
    },
  });
  const errors = formErrors(add.error);
  const remove = useMutation({ mutationFn: (name: string) => contactsApi.removeTag(contact.id, name), onSuccess: refresh });

  return (
    <section className="section card" aria-labelledby="tags-title">
      <h2 id="tags-title">Tags</h2>
      <ErrorMessage message={remove.error ? errorMessage(remove.error) : undefined} onDismiss={() => remove.reset()} />
      {contact.tags.length === 0 ? (
        <p className="muted">No tags.</p>
      ) : (
        <ul className="chips" aria-label="Tags of this contact">
          {contact.tags.map((t) => (
            <li key={t} className="chip chip-removable">
              <Link to={`/contacts?tag=${encodeURIComponent(t)}`}>{t}</Link>
              {canWrite ? (
                <button
                  type="button"
                  className="chip-remove"
                  aria-label={`Remove tag ${t}`}
                  disabled={remove.isPending}
                  onClick={() => remove.mutate(t)}
                >
                  ✕
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {canWrite ? (
        <form
          className="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            add.mutate(tag.trim());
          }}
          noValidate
        >
          <ErrorMessage message={errors.summary('/tag')} />
          <TextField label="New tag" value={tag} onChange={setTag} error={errors.field('/tag')} maxLength={100} />
          <button type="submit" className="button" disabled={add.isPending || !tag.trim()}>
            Add tag
          </button>
        </form>
      ) : null}
    </section>
  );
}
