/**
 * A message's actions on a linked phone (the channel's operations say which): star it, pin it in the
 * chat for everyone (a week), forward it to another chat of the channel. Each is the API's route; the
 * thread refreshes from the answer and the events.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ErrorMessage } from '../../ui.tsx';
import { formErrors, TextField } from '../../forms.tsx';
import { orgKey } from '../../query.ts';
import { inboxApi, type Message } from './api.ts';

export function MessageActions({ message, operations }: { message: Message; operations: readonly string[] }) {
  const queryClient = useQueryClient();
  const [forwarding, setForwarding] = useState(false);
  const [to, setTo] = useState('');
  const done = () => void queryClient.invalidateQueries({ queryKey: orgKey('messages', message.conversation_id) });
  const star = useMutation({ mutationFn: () => inboxApi.star(message.id, !message.starred), onSuccess: done });
  const pinned = message.pinned_until !== null && new Date(message.pinned_until).getTime() > Date.now();
  const pin = useMutation({ mutationFn: () => inboxApi.pin(message.id, !pinned), onSuccess: done });
  const forward = useMutation({
    mutationFn: () => inboxApi.forward(message.id, to.trim()),
    onSuccess: () => {
      setForwarding(false);
      setTo('');
      void queryClient.invalidateQueries({ queryKey: orgKey('conversations') });
    },
  });
  const can = (op: string) => operations.includes(op);
  if (message.deleted_at || !(can('messages.star') || can('messages.pin') || can('messages.forward'))) return null;
  const error = star.error ?? pin.error ?? undefined;
  function submitForward(event: FormEvent) {
    event.preventDefault();
    forward.mutate();
  }
  const what = message.type === 'text' ? 'message' : `${message.type} message`;
  return (
    <div className="message-actions" role="group" aria-label={`Actions on this ${what}`}>
      {message.starred ? <span className="small muted">★ starred</span> : null}
      {pinned ? <span className="small muted">pinned</span> : null}
      {can('messages.star') ? (
        <button type="button" className="button button-small" disabled={star.isPending} onClick={() => star.mutate()}>
          {message.starred ? 'Unstar' : 'Star'}
        </button>
      ) : null}
      {can('messages.pin') ? (
        <button type="button" className="button button-small" disabled={pin.isPending} onClick={() => pin.mutate()}>
          {pinned ? 'Unpin' : 'Pin for a week'}
        </button>
      ) : null}
      {can('messages.forward') ? (
        <button type="button" className="button button-small" aria-expanded={forwarding} onClick={() => setForwarding((v) => !v)}>
          Forward…
        </button>
      ) : null}
      {forwarding ? (
        <form className="forward-form" onSubmit={submitForward} aria-label="Forward the message">
          <TextField
            label="Forward to"
            value={to}
            onChange={setTo}
            placeholder="+49 151 … or a group id"
            error={formErrors(forward.error).field('/to')}
            maxLength={64}
          />
          <button type="submit" className="button button-small" disabled={forward.isPending || !to.trim()}>
            Forward
          </button>
        </form>
      ) : null}
      <ErrorMessage
        message={
          error
            ? formErrors(error).message
            : forward.error && !formErrors(forward.error).field('/to')
              ? formErrors(forward.error).message
              : undefined
        }
        onDismiss={() => {
          star.reset();
          pin.reset();
          forward.reset();
        }}
      />
    </div>
  );
}
