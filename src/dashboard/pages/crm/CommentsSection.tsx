/** A record's comments, newest first, by cursor: add one, delete one (anyone who may write the CRM may). */
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../api.ts';
import { formatDate } from '../../format.ts';
import { formErrors, TextField } from '../../forms.tsx';
import { orgKey, usePagedList } from '../../query.ts';
import { ErrorMessage, ListState, Pager } from '../../ui.tsx';
import { crmApi, type RecordKind } from './api.ts';
import { useActorName } from './parts.tsx';

export function CommentsSection({ kind, id, canWrite }: { kind: RecordKind; id: string; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const key = orgKey('crm', 'comments', `${kind}:${id}`);
  const comments = usePagedList(key, (cursor) => crmApi.comments(`${kind}:${id}`, cursor));
  const actorName = useActorName();
  const [body, setBody] = useState('');
  const refresh = () => queryClient.invalidateQueries({ queryKey: key });
  const add = useMutation({
    mutationFn: (text: string) => crmApi.addComment(kind, id, text),
    onSuccess: async () => {
      await refresh();
      setBody('');
    },
  });
  const errors = formErrors(add.error);
  const remove = useMutation({ mutationFn: crmApi.deleteComment, onSuccess: refresh });

  return (
    <section className="section card" aria-labelledby="comments-title">
      <h2 id="comments-title">Comments</h2>
      {canWrite ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            add.mutate(body);
          }}
          noValidate
        >
          <ErrorMessage message={errors.summary('/body')} />
          <TextField
            label="New comment"
            multiline
            rows={3}
            value={body}
            onChange={setBody}
            error={errors.field('/body')}
            maxLength={10_000}
          />
          <button type="submit" className="button" disabled={add.isPending || !body.trim()}>
            {add.isPending ? 'Adding…' : 'Add comment'}
          </button>
        </form>
      ) : null}
      <ErrorMessage message={remove.error ? errorMessage(remove.error) : undefined} onDismiss={() => remove.reset()} />
      <ListState items={comments.items} error={comments.error} empty={<p className="muted">No comments yet.</p>}>
        {(items) => (
          <ul className="note-list" aria-label="Comments">
            {items.map((c) => (
              <li key={c.id} className="note">
                <p className="note-body">{c.body}</p>
                <div className="note-meta small muted">
                  <span>
                    {formatDate(c.created_at)} · by {actorName(c.author)}
                    {c.edited_at ? ' · edited' : ''}
                  </span>
                  {canWrite ? (
                    <button
                      type="button"
                      className="link-button"
                      disabled={remove.isPending}
                      onClick={() => remove.mutate(c.id)}
                      aria-label={`Delete comment from ${formatDate(c.created_at)}`}
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
      <Pager list={comments} />
    </section>
  );
}
