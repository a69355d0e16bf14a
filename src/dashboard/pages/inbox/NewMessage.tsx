/**
 * Starting a conversation: "New message" on the inbox (to a number typed in) and on a contact's page (to
 * the contact's number) opens a form that picks the channel, finds the conversation with that number on
 * it (if there is one) to know whether the 24-hour customer-service window is open, and offers free text
 * inside the window and an approved template (with its variables) outside it. Once accepted, the
 * conversation opens in the inbox.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../api.ts';
import { formatDate } from '../../format.ts';
import { formErrors, SelectField, TextField } from '../../forms.tsx';
import { orgKey } from '../../query.ts';
import { useNavigate } from '../../router.tsx';
import { useCan } from '../../session.tsx';
import { Dialog, ErrorMessage, Loading } from '../../ui.tsx';
import { inboxApi, useChannels, type SendMessageRequest } from './api.ts';
import { TemplateFields, useTemplateChoice } from './TemplateFields.tsx';
import { windowClosed } from './window.ts';

/** Whom the message is for when it is started from a contact: the contact's name and number (E.164, or null). */
export type NewMessageRecipient = { name: string; phone: string | null };

/** The "New message" button and its dialog; nothing for a role that cannot send. */
export function NewMessageButton({
  recipient,
  className = 'button button-primary',
}: {
  recipient?: NewMessageRecipient;
  className?: string;
}) {
  const canSend = useCan('messages:send');
  const [open, setOpen] = useState(false);
  if (!canSend) return null;
  return (
    <>
      <button type="button" className={className} onClick={() => setOpen(true)}>
        New message
      </button>
      <Dialog open={open} title={recipient ? `New message to ${recipient.name}` : 'New message'} onClose={() => setOpen(false)}>
        <NewMessageForm recipient={recipient} onSent={() => setOpen(false)} />
      </Dialog>
    </>
  );
}

/** The number as the API takes it (`to`: international digits without +). */
const digitsOf = (phone: string) => phone.replace(/\D/g, '');

function NewMessageForm({ recipient, onSent }: { recipient?: NewMessageRecipient; onSent(): void }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const channels = useChannels();
  const connected = (channels.data ?? []).filter((c) => c.status === 'connected');
  const [chosenChannel, setChannel] = useState('');
  const channelId = chosenChannel || connected[0]?.id || '';
  const [typed, setTyped] = useState('');
  const to = digitsOf(recipient ? (recipient.phone ?? '') : typed);
  const [body, setBody] = useState('');

  const windowState = useWindow(channelId, to);
  const template = useTemplateChoice(channelId, windowState.closed === true);
  const send = useMutation({
    mutationFn: (input: SendMessageRequest) => inboxApi.send(input),
    onSuccess: (message) => {
      void queryClient.invalidateQueries({ queryKey: orgKey('conversations') });
      onSent();
      void navigate(`/inbox/${message.conversation_id}`);
    },
  });
  const errors = formErrors(send.error);

  if (recipient && !recipient.phone) {
    return <p className="muted">This contact has no phone number: add one to write to them.</p>;
  }
  if (channels.error) return <ErrorMessage message={errorMessage(channels.error)} />;
  if (!channels.data) return <Loading />;
  if (connected.length === 0) return <p className="muted">No channel is connected: connect one on the Channels page to send from it.</p>;

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    const content: Pick<SendMessageRequest, 'type' | 'content'> = windowState.closed
      ? template.content()
      : { type: 'text', content: { body } };
    send.mutate({ channel_id: channelId, to, ...content });
  }

  return (
    <form className="new-message" onSubmit={onSubmit} noValidate aria-label="New message">
      <SelectField
        label="From channel"
        value={channelId}
        onChange={(v) => {
          setChannel(v);
          template.reset();
          send.reset();
        }}
        options={connected.map((c) => ({ value: c.id, label: c.display_phone_number ? `${c.name} (${c.display_phone_number})` : c.name }))}
        error={errors.field('/channel_id')}
      />
      {recipient ? (
        <p className="new-message-to">
          To <strong>{recipient.name}</strong> <span className="mono">{recipient.phone}</span>
          {errors.field('/to') ? <span className="field-error"> {errors.field('/to')}</span> : null}
        </p>
      ) : (
        <TextField
          label="To (phone number)"
          type="tel"
          value={typed}
          onChange={(v) => {
            setTyped(v);
            send.reset();
          }}
          autoComplete="off"
          placeholder="+49 151 2345 6789"
          description="In international format, with the country code."
          error={errors.field('/to')}
        />
      )}

      {windowState.note ? (
        <p className="alert alert-info composer-window" role="note">
          {windowState.note}
        </p>
      ) : null}
      {windowState.error ? <ErrorMessage message={`The 24-hour window could not be checked: ${errorMessage(windowState.error)}`} /> : null}
      {windowState.closed === undefined ? (
        to.length >= 6 ? (
          <Loading label="Checking the 24-hour window…" />
        ) : null
      ) : windowState.closed ? (
        <TemplateFields choice={template} errors={errors} onChange={() => send.reset()} />
      ) : (
        <TextField
          label="Message"
          multiline
          rows={4}
          value={body}
          onChange={setBody}
          error={errors.field('/content/body')}
          maxLength={4096}
        />
      )}

      <ErrorMessage message={errors.summary('/channel_id', '/to', '/content/body', ...template.built.pointers)} />
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={send.isPending || windowState.closed === undefined}>
          {send.isPending ? 'Sending…' : windowState.closed ? 'Send template' : 'Send'}
        </button>
      </div>
    </form>
  );
}

/**
 * The customer-service window with this number on this channel: closed (only templates), open (free
 * text), or undefined while it is not known yet. It is open when the channel has no window, or when the
 * conversation with the number has one that has not lapsed; with no conversation yet it was never opened.
 */
function useWindow(channelId: string, to: string): { closed: boolean | undefined; note: string | undefined; error: unknown } {
  const capabilities = useQuery({
    queryKey: orgKey('channels', channelId, 'capabilities'),
    queryFn: () => inboxApi.capabilities(channelId),
    enabled: channelId !== '',
    staleTime: Infinity,
  });
  const hours = capabilities.data?.customer_service_window_hours;
  const conversation = useQuery({
    queryKey: orgKey('conversations', 'with', channelId, to),
    queryFn: () => inboxApi.conversationWith(channelId, to),
    enabled: channelId !== '' && to.length >= 6 && hours !== null && hours !== undefined,
  });
  if (hours === null)
    return { closed: false, note: 'This channel has no customer-service window: any message may start a conversation.', error: undefined };
  if (hours === undefined || to.length < 6) return { closed: undefined, note: undefined, error: capabilities.error };
  // A lookup that failed leaves the template, which the provider takes in or out of the window.
  if (conversation.error) return { closed: true, note: undefined, error: conversation.error };
  if (conversation.data === undefined) return { closed: undefined, note: undefined, error: undefined };
  const found = conversation.data;
  if (windowClosed(found ?? { window_expires_at: null }, hours)) {
    return {
      closed: true,
      note: `The customer has not written in the last ${hours} hours, so the conversation can only start with an approved template.`,
      error: undefined,
    };
  }
  return {
    closed: false,
    note: `The customer wrote in the last ${hours} hours: free text can be sent until ${formatDate(found!.window_expires_at)}.`,
    error: undefined,
  };
}
