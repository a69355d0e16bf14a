/**
 * Merging a duplicate into this contact: find the duplicate, see what the merge would do (what moves,
 * where the two disagree and which side is kept), then merge. This contact survives.
 */
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../../api.ts';
import { TextField } from '../../../forms.tsx';
import { orgKey } from '../../../query.ts';
import { ErrorMessage } from '../../../ui.tsx';
import { contactsApi, type ContactMergePreviewRecord, type ContactRecord } from '../api.ts';
import { contactLabel } from '../ContactsListPage.tsx';

const MOVE_LABELS: Record<keyof ContactMergePreviewRecord['moves'], string> = {
  identities: 'identities',
  comments: 'notes',
  tags: 'tags',
  consents: 'consents',
  suppressions: 'suppressions',
  conversations: 'conversations',
  messages: 'messages',
  deals: 'deals',
  tasks: 'tasks',
  relationships: 'relationships',
};

const RESOLUTIONS: Record<ContactMergePreviewRecord['conflicts'][number]['resolution'], string> = {
  survivor_kept: 'this contact’s is kept',
  duplicate_kept: 'the duplicate’s is kept',
  both_kept: 'both are kept',
};

export function MergeSection({ contact }: { contact: ContactRecord }) {
  const queryClient = useQueryClient();
  const [search, setSearch] = useState('');
  const [duplicate, setDuplicate] = useState<ContactRecord | undefined>();
  const found = useQuery({
    queryKey: orgKey('contacts', 'list', 'merge-search', search.trim()),
    queryFn: () => contactsApi.list({ search: search.trim() }),
    enabled: search.trim().length >= 2 && !duplicate,
  });
  const preview = useQuery({
    // Not under the contact's key: the merge refreshes the contact's queries, and this one would ask about a deleted duplicate.
    queryKey: orgKey('contact-merge-preview', contact.id, duplicate?.id ?? ''),
    queryFn: () => contactsApi.mergePreview(contact.id, duplicate!.id),
    enabled: Boolean(duplicate),
  });
  const merge = useMutation({
    mutationFn: () => contactsApi.merge(contact.id, duplicate!.id),
    onSuccess: async () => {
      setDuplicate(undefined);
      setSearch('');
      queryClient.removeQueries({ queryKey: orgKey('contact-merge-preview', contact.id) });
      queryClient.removeQueries({ queryKey: orgKey('contacts', 'list') });
      await queryClient.invalidateQueries({ queryKey: orgKey('contacts', contact.id) });
    },
  });
  const candidates = (found.data?.data ?? []).filter((c) => c.id !== contact.id).slice(0, 5);
  const moves = preview.data
    ? Object.entries(preview.data.moves)
        .filter(([, n]) => n > 0)
        .map(([kind, n]) => `${n} ${MOVE_LABELS[kind as keyof typeof MOVE_LABELS]}`)
    : [];
  return (
    <section className="section" aria-labelledby="merge-title">
      <h2 id="merge-title">Merge a duplicate</h2>
      <p className="small muted">
        The duplicate’s messages, notes, tags, deals, tasks and more come to this contact, and the duplicate is deleted.
      </p>
      <ErrorMessage message={merge.error ? errorMessage(merge.error) : undefined} />
      {duplicate ? (
        <div role="group" aria-label="Merge preview">
          <p>
            Merge <span className="strong">{contactLabel(duplicate)}</span> into <span className="strong">{contactLabel(contact)}</span>.
          </p>
          <ErrorMessage message={preview.error ? errorMessage(preview.error) : undefined} />
          {preview.data ? (
            <>
              <p className="small">{moves.length > 0 ? `Moves ${moves.join(', ')}.` : 'Nothing else moves.'}</p>
              {preview.data.conflicts.length > 0 ? (
                <ul className="identity-list" aria-label="Conflicts">
                  {preview.data.conflicts.map((c) => (
                    <li key={`${c.kind}:${c.name}`}>
                      <span className="strong">{c.name.replaceAll('_', ' ')}</span>
                      <span>
                        {c.survivor.join(', ')} / {c.duplicate.join(', ')}
                      </span>
                      <span className="muted">{RESOLUTIONS[c.resolution]}</span>
                    </li>
                  ))}
                </ul>
              ) : null}
            </>
          ) : null}
          <div className="confirm-buttons">
            <button
              type="button"
              className="button button-danger"
              disabled={!preview.data || merge.isPending}
              onClick={() => merge.mutate()}
            >
              {merge.isPending ? 'Merging…' : 'Merge'}
            </button>
            <button type="button" className="button" onClick={() => setDuplicate(undefined)}>
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <>
          <TextField label="Find the duplicate" description="A name, email or phone number" value={search} onChange={setSearch} />
          {candidates.length > 0 ? (
            <ul className="identity-list" aria-label="Possible duplicates">
              {candidates.map((c) => (
                <li key={c.id}>
                  <span>{contactLabel(c)}</span>
                  {c.email ? <span className="muted">{c.email}</span> : null}
                  <button
                    type="button"
                    className="link-button"
                    onClick={() => setDuplicate(c)}
                    aria-label={`Preview merging ${contactLabel(c)}`}
                  >
                    Preview merge
                  </button>
                </li>
              ))}
            </ul>
          ) : search.trim().length >= 2 && found.data ? (
            <p className="small muted">No other contact matches.</p>
          ) : null}
        </>
      )}
    </section>
  );
}
