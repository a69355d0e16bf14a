/**
 * A linked-device channel's settings form (docs/channels.md, "Channel settings of unofficial channels"):
 * always online, refusing calls with a message, read receipts, which chats are kept, importing history.
 * Saved with PATCH /v1/channels/{id}; the engine honours them at once.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { CheckboxField, formErrors, TextField } from '../../forms.tsx';
import { orgKey } from '../../query.ts';
import { useCan } from '../../session.tsx';
import { ErrorMessage } from '../../ui.tsx';
import { channelsApi, type ChannelView, type UpdateChannelRequest } from './api.ts';

type Flags = {
  always_online: boolean;
  reject_calls: boolean;
  read_receipts: boolean;
  group_messages: boolean;
  status_messages: boolean;
  import_history: boolean;
};

const FLAGS: Array<{ key: keyof Flags; label: string; description: string; embeddedOnly?: true }> = [
  { key: 'always_online', label: 'Always online', description: 'Show the account online while the channel is connected.' },
  { key: 'reject_calls', label: 'Refuse calls', description: 'Reject every call as it rings; it stays in the conversation as rejected.' },
  { key: 'read_receipts', label: 'Send read receipts', description: 'Mark each message read as it arrives, so the sender sees it read.' },
  { key: 'group_messages', label: 'Keep group messages', description: "Off: messages of the number's groups are ignored." },
  { key: 'status_messages', label: 'Keep status posts', description: "Off: contacts' status posts (stories) are ignored." },
  {
    key: 'import_history',
    label: 'Import history when pairing',
    description: 'Import the recent messages the phone sends when it pairs.',
    embeddedOnly: true,
  },
];

const flagsOf = (settings: ChannelView['settings']): Flags => ({
  always_online: settings.always_online === true,
  reject_calls: settings.reject_calls === true,
  read_receipts: settings.read_receipts === true,
  group_messages: settings.group_messages === true,
  status_messages: settings.status_messages === true,
  import_history: settings.import_history === true,
});

export function ChannelSettings({ channel }: { channel: ChannelView }) {
  const canWrite = useCan('channels:write');
  const queryClient = useQueryClient();
  const [flags, setFlags] = useState<Flags>(() => flagsOf(channel.settings));
  const [message, setMessage] = useState(
    typeof channel.settings.reject_calls_message === 'string' ? channel.settings.reject_calls_message : '',
  );
  const save = useMutation({
    mutationFn: () =>
      channelsApi.update(channel.id, {
        // The request's settings type lists every platform's keys only at run time (the modules' schemas merged).
        settings: { ...flags, ...(message.trim() ? { reject_calls_message: message.trim() } : {}) } as NonNullable<
          UpdateChannelRequest['settings']
        >,
      }),
    onSuccess: (updated) => {
      queryClient.setQueryData(orgKey('channels', channel.id), updated);
      void queryClient.invalidateQueries({ queryKey: orgKey('channels', 'list') });
    },
  });
  const errors = formErrors(save.error);
  const shown = FLAGS.filter((f) => !f.embeddedOnly || channel.engine === 'embedded');

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    save.mutate();
  }

  return (
    <section className="card" aria-labelledby="settings-title">
      <h2 id="settings-title">Settings</h2>
      <form aria-label="Channel settings" onSubmit={onSubmit} noValidate>
        {shown.map((f) => (
          <CheckboxField
            key={f.key}
            label={f.label}
            description={f.description}
            checked={flags[f.key]}
            disabled={!canWrite}
            onChange={(checked) => {
              setFlags({ ...flags, [f.key]: checked });
              save.reset();
            }}
          />
        ))}
        <TextField
          label="Message to a refused caller"
          multiline
          rows={2}
          maxLength={4096}
          value={message}
          onChange={(value) => {
            setMessage(value);
            save.reset();
          }}
          disabled={!canWrite || !flags.reject_calls}
          error={errors.field('/settings/reject_calls_message')}
          description="Optional: sent to the caller after a refused call."
        />
        <ErrorMessage message={errors.summary('/settings/reject_calls_message')} />
        {canWrite ? (
          <button type="submit" className="button" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save settings'}
          </button>
        ) : (
          <p className="small muted">Changing them needs the channels:write permission.</p>
        )}
        <div role="status" className="small">
          {save.isSuccess ? 'Saved: the channel uses them now.' : null}
        </div>
      </form>
    </section>
  );
}
