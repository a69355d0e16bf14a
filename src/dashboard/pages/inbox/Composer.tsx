/**
 * The reply box: text, media by URL, or an approved template with its variables filled in. When the
 * customer-service window is closed (the channel has one and the customer last wrote too long ago) only
 * templates are offered, and it says why. The API's field errors show next to their field.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ErrorMessage } from '../../ui.tsx';
import { formErrors, SelectField, TextField } from '../../forms.tsx';
import { orgKey } from '../../query.ts';
import { inboxApi, type Conversation, type SendMessageRequest } from './api.ts';
import { CannedPicker } from './CannedPicker.tsx';
import { TemplateFields, useTemplateChoice } from './TemplateFields.tsx';
import { WINDOW_CLOSED_REASON, windowClosed } from './window.ts';

type Mode = 'text' | 'media' | 'template';

type MediaType = Extract<SendMessageRequest['type'], 'image' | 'video' | 'audio' | 'document'>;

const MEDIA_TYPES: Array<{ value: MediaType; label: string }> = [
  { value: 'image', label: 'Image' },
  { value: 'video', label: 'Video' },
  { value: 'audio', label: 'Audio' },
  { value: 'document', label: 'Document' },
];

export function Composer({ conversation }: { conversation: Conversation }) {
  const queryClient = useQueryClient();
  const capabilities = useQuery({
    queryKey: orgKey('channels', conversation.channel_id, 'capabilities'),
    queryFn: () => inboxApi.capabilities(conversation.channel_id),
    staleTime: Infinity,
  });
  // Render again when the window closes while the thread is open.
  const [, setExpired] = useState(0);
  const expires = conversation.window_expires_at;
  useEffect(() => {
    const ms = expires ? Date.parse(expires) - Date.now() : 0;
    if (ms <= 0 || ms > 2 ** 31 - 1) return;
    const timer = setTimeout(() => setExpired((n) => n + 1), ms + 50);
    return () => clearTimeout(timer);
  }, [expires]);
  const closedWindow = windowClosed(conversation, capabilities.data?.customer_service_window_hours);
  const [chosen, setChosen] = useState<Mode>('text');
  const mode: Mode = closedWindow ? 'template' : chosen;

  const [body, setBody] = useState('');
  const [mediaType, setMediaType] = useState<MediaType>('image');
  const [mediaUrl, setMediaUrl] = useState('');
  const [caption, setCaption] = useState('');
  const template = useTemplateChoice(conversation.channel_id, mode === 'template');
  const send = useMutation({
    mutationFn: (input: SendMessageRequest) => inboxApi.send(input),
    onSuccess: () => {
      setBody('');
      setMediaUrl('');
      setCaption('');
      template.reset();
      void queryClient.invalidateQueries({ queryKey: orgKey('messages', conversation.id) });
      void queryClient.invalidateQueries({ queryKey: orgKey('conversations') });
    },
  });
  const errors = formErrors(send.error);

  function contentFor(): Pick<SendMessageRequest, 'type' | 'content'> {
    if (mode === 'text') return { type: 'text', content: { body } };
    if (mode === 'media')
      return { type: mediaType, content: { media_url: mediaUrl.trim(), ...(caption.trim() && mediaType !== 'audio' ? { caption } : {}) } };
    return template.content();
  }

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    send.mutate({ channel_id: conversation.channel_id, to: conversation.peer_phone, conversation_id: conversation.id, ...contentFor() });
  }

  const modes: Array<{ value: Mode; label: string }> = [
    { value: 'text', label: 'Text' },
    { value: 'media', label: 'Media' },
    { value: 'template', label: 'Template' },
  ];

  return (
    <form className="composer" onSubmit={onSubmit} noValidate aria-label="Reply">
      {closedWindow ? (
        <p className="alert alert-info composer-window" role="note">
          {WINDOW_CLOSED_REASON}
        </p>
      ) : (
        <fieldset className="composer-modes">
          <legend className="visually-hidden">Message kind</legend>
          {modes.map((m) => (
            <label key={m.value} className={mode === m.value ? 'mode mode-current' : 'mode'}>
              <input
                type="radio"
                name="composer-mode"
                value={m.value}
                checked={mode === m.value}
                onChange={() => {
                  setChosen(m.value);
                  send.reset();
                }}
              />
              {m.label}
            </label>
          ))}
        </fieldset>
      )}

      {mode === 'text' ? (
        <TextField
          label="Message"
          multiline
          rows={3}
          value={body}
          onChange={setBody}
          error={errors.field('/content/body')}
          maxLength={4096}
          description="Type / and a shortcut for a canned response."
          data-shortcut="reply"
        />
      ) : null}
      {mode === 'text' ? <CannedPicker text={body} conversationId={conversation.id} onPick={setBody} /> : null}

      {mode === 'media' ? (
        <div className="form-row">
          <SelectField
            label="Media type"
            value={mediaType}
            onChange={(v) => setMediaType(v as MediaType)}
            options={MEDIA_TYPES}
            error={errors.field('/type')}
          />
          <TextField
            label="Media URL"
            type="url"
            value={mediaUrl}
            onChange={setMediaUrl}
            placeholder="https://…"
            error={errors.field('/content/media_url')}
            description="A public https address the provider can fetch."
          />
          {mediaType !== 'audio' ? (
            <TextField label="Caption" value={caption} onChange={setCaption} error={errors.field('/content/caption')} />
          ) : null}
        </div>
      ) : null}

      {mode === 'template' ? <TemplateFields choice={template} errors={errors} onChange={() => send.reset()} /> : null}

      <ErrorMessage message={errors.message} />
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={send.isPending}>
          {send.isPending ? 'Sending…' : mode === 'template' ? 'Send template' : 'Send'}
        </button>
      </div>
    </form>
  );
}
