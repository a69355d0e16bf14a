/** Deleting the contact, asked once more in place; its conversations stay. */
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../../api.ts';
import { orgKey } from '../../../query.ts';
import { useNavigate } from '../../../router.tsx';
import { ErrorMessage } from '../../../ui.tsx';
import { contactsApi, type ContactRecord } from '../api.ts';

export function DeleteContact({ contact }: { contact: ContactRecord }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: () => contactsApi.remove(contact.id),
    onSuccess: () => {
      // The lists are fetched afresh (never shown with the deleted contact); this page's own queries are
      // left alone, so nothing asks for the contact that is gone while the page closes.
      queryClient.removeQueries({ queryKey: orgKey('contacts', 'list') });
      navigate('/contacts');
    },
  });
  return (
    <section className="section" aria-labelledby="delete-title">
      <h2 id="delete-title">Delete contact</h2>
      <ErrorMessage message={remove.error ? errorMessage(remove.error) : undefined} />
      {confirming ? (
        <div className="confirm" role="group" aria-label="Confirm deleting the contact">
          <span className="small">Its notes, tags, consents and suppressions go too; its conversations stay.</span>
          <div className="confirm-buttons">
            <button type="button" className="button button-danger" disabled={remove.isPending} onClick={() => remove.mutate()}>
              {remove.isPending ? 'Deleting…' : 'Delete contact'}
            </button>
            <button type="button" className="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <button type="button" className="button button-danger-outline" onClick={() => setConfirming(true)}>
          Delete…
        </button>
      )}
    </section>
  );
}
