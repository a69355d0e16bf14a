/**
 * A linked-device channel's business labels (docs/channels.md, "Labels") and its status posts
 * ("Status posts"): the labels with their chats, a new one, deleting one; and a form that posts a status
 * (text on a background, or an image or video by URL) to chosen contacts. Labels are put on chats from
 * the inbox's conversation header (ChatLabels).
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../api.ts';
import { formErrors, SelectField, TextField } from '../../forms.tsx';
import { orgKey } from '../../query.ts';
import { useCan } from '../../session.tsx';
import { ErrorMessage, Loading } from '../../ui.tsx';
import {
  LABEL_COLORS,
  labelsApi,
  statusApi,
  type ChannelCapabilitiesRecord,
  type ChannelView,
  type ChatLabelRecord,
  type PostStatusRequest,
} from './api.ts';

export const labelsKey = (channelId: string) => orgKey('channel-labels', channelId);

/** A label's color as a small swatch beside its name (the name says what it is). */
export function LabelSwatch({ color }: { color: number }) {
  return <span className="label-swatch" aria-hidden="true" style={{ background: LABEL_COLORS[color] ?? LABEL_COLORS[0] }} />;
}

const COLOR_OPTIONS = LABEL_COLORS.map((_, i) => ({ value: String(i), label: `Color ${i + 1}` }));

export function LabelsPanel({ channel, capabilities }: { channel: ChannelView; capabilities: ChannelCapabilitiesRecord | undefined }) {
  const canSend = useCan('messages:send');
  const queryClient = useQueryClient();
  const enabled = capabilities?.operations.includes('labels.manage') === true;
  const labels = useQuery({ queryKey: labelsKey(channel.id), queryFn: () => labelsApi.list(channel.id), enabled, retry: false });
  const [name, setName] = useState('');
  const [color, setColor] = useState('0');
  const refresh = (label?: ChatLabelRecord) => {
    if (label) queryClient.setQueryData<ChatLabelRecord[]>(labelsKey(channel.id), (old) => [...(old ?? []), label]);
    void queryClient.invalidateQueries({ queryKey: labelsKey(channel.id) });
  };
  const create = useMutation({
    mutationFn: () => labelsApi.create(channel.id, { name: name.trim(), color: Number(color) }),
    onSuccess: (label) => {
      setName('');
      refresh(label);
    },
  });
  const remove = useMutation({ mutationFn: (labelId: string) => labelsApi.remove(channel.id, labelId), onSuccess: () => refresh() });
  if (!enabled) return null;
  const errors = formErrors(create.error);
  const connected = channel.status === 'connected';

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }

  return (
    <section className="card" aria-labelledby="channel-labels-title">
      <h2 id="channel-labels-title">Labels</h2>
      <p className="small muted">The number’s business labels, as every device of it shows them. Put them on chats from the inbox.</p>
      {labels.error ? <ErrorMessage message={errorMessage(labels.error)} /> : null}
      {!labels.data ? (
        labels.error ? null : (
          <Loading />
        )
      ) : labels.data.length === 0 ? (
        <p className="small">No labels yet.</p>
      ) : (
        <ul className="label-list" aria-label="Labels">
          {labels.data.map((label) => (
            <li key={label.id}>
              <LabelSwatch color={label.color} />
              <span className="label-name">{label.name || `Label ${label.id}`}</span>
              <span className="small muted">{label.chats.length === 1 ? '1 chat' : `${label.chats.length} chats`}</span>
              {canSend && connected ? (
                <button
                  type="button"
                  className="button button-danger-outline"
                  aria-label={`Delete label ${label.name || label.id}`}
                  disabled={remove.isPending}
                  onClick={() => remove.mutate(label.id)}
                >
                  Delete
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      <ErrorMessage message={remove.error ? errorMessage(remove.error) : undefined} />
      {canSend && connected ? (
        <form aria-label="New label" className="label-form" onSubmit={onSubmit} noValidate>
          <TextField
            label="New label"
            value={name}
            maxLength={100}
            onChange={(value) => {
              setName(value);
              create.reset();
            }}
            error={errors.field('/name')}
          />
          <SelectField label="Color" value={color} onChange={setColor} options={COLOR_OPTIONS} error={errors.field('/color')} />
          <ErrorMessage message={errors.summary('/name', '/color')} />
          <button type="submit" className="button button-primary" disabled={create.isPending || name.trim() === ''}>
            {create.isPending ? 'Adding…' : 'Add label'}
          </button>
        </form>
      ) : null}
    </section>
  );
}

type StatusType = PostStatusRequest['type'];

/** Phones as typed, one per line or separated by commas. */
const phonesOf = (text: string) =>
  text
    .split(/[\n,;]+/)
    .map((p) => p.trim())
    .filter(Boolean);

export function StatusPanel({ channel, capabilities }: { channel: ChannelView; capabilities: ChannelCapabilitiesRecord | undefined }) {
  const canSend = useCan('messages:send');
  const [type, setType] = useState<StatusType>('text');
  const [text, setText] = useState('');
  const [url, setUrl] = useState('');
  const [background, setBackground] = useState('#128C7E');
  const [recipients, setRecipients] = useState('');
  const post = useMutation({
    mutationFn: () => {
      const to = phonesOf(recipients);
      const body: PostStatusRequest =
        type === 'text'
          ? { type, text: text.trim(), background_color: background, recipients: to }
          : { type, url: url.trim(), ...(text.trim() ? { caption: text.trim() } : {}), recipients: to };
      return statusApi.post(channel.id, body);
    },
  });
  if (!canSend || channel.status !== 'connected' || !capabilities?.operations.includes('status.post')) return null;
  const errors = formErrors(post.error);
  const reset = () => post.reset();
  // A number the API refused is named by its place in the list (`/recipients/{i}`).
  const recipientPointers = ['/recipients', ...phonesOf(recipients).map((_, i) => `/recipients/${i}`)];
  const recipientError = recipientPointers.map((p) => errors.field(p)).find(Boolean);

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    post.mutate();
  }

  return (
    <section className="card" aria-labelledby="status-post-title">
      <h2 id="status-post-title">Post a status</h2>
      <p className="small muted">A status (story) is shown for a day to the contacts it is sent to.</p>
      <form aria-label="Post a status" onSubmit={onSubmit} noValidate>
        <SelectField
          label="Kind"
          value={type}
          onChange={(value) => {
            setType(value as StatusType);
            reset();
          }}
          options={[
            { value: 'text', label: 'Text' },
            { value: 'image', label: 'Image' },
            { value: 'video', label: 'Video' },
          ]}
        />
        {type === 'text' ? null : (
          <TextField
            label={type === 'image' ? 'Image URL' : 'Video URL'}
            type="url"
            value={url}
            onChange={(value) => {
              setUrl(value);
              reset();
            }}
            error={errors.field('/url')}
          />
        )}
        <TextField
          label={type === 'text' ? 'Text' : 'Caption (optional)'}
          multiline
          rows={2}
          maxLength={700}
          value={text}
          onChange={(value) => {
            setText(value);
            reset();
          }}
          error={errors.field(type === 'text' ? '/text' : '/caption')}
        />
        {type === 'text' ? (
          <TextField
            label="Background color"
            value={background}
            maxLength={7}
            onChange={(value) => {
              setBackground(value);
              reset();
            }}
            description="#RRGGBB"
            error={errors.field('/background_color')}
          />
        ) : null}
        <TextField
          label="Shown to"
          multiline
          rows={2}
          value={recipients}
          onChange={(value) => {
            setRecipients(value);
            reset();
          }}
          description="Phone numbers with their country code, one per line or separated by commas."
          error={recipientError}
        />
        <ErrorMessage message={errors.summary('/url', '/text', '/caption', '/background_color', ...recipientPointers)} />
        <button type="submit" className="button button-primary" disabled={post.isPending}>
          {post.isPending ? 'Posting…' : 'Post status'}
        </button>
        <div role="status" className="small">
          {post.isSuccess
            ? `Posted to ${post.data.recipients.length === 1 ? '1 contact' : `${post.data.recipients.length} contacts`}.`
            : null}
        </div>
      </form>
    </section>
  );
}
