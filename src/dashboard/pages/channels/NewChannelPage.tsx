/**
 * Adding a channel: the platform, then how it connects. An official channel uses the sandbox or the
 * provider's credentials (checked by the server at once); a gateway channel runs on Parley's embedded
 * engine (the user's own phone), the sandbox gateway, or a gateway's address and key, then pairs a
 * phone on its page.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { formErrors, SelectField, TextField } from '../../forms.tsx';
import { orgKey } from '../../query.ts';
import { Link, useNavigate } from '../../router.tsx';
import { useCan } from '../../session.tsx';
import { FormActions, NotAllowed } from './parts.tsx';
import { ErrorMessage, PageHeader } from '../../ui.tsx';
import { channelsApi, PLATFORM_LABELS, type CreateChannelRequest, type Platform } from './api.ts';

type Connection = 'embedded' | 'sandbox' | 'credentials';

/** Each platform in words, and its provider's fields when it does not use the sandbox (names from its module's settings schema). */
const OWN_PROVIDER: Record<
  Platform,
  {
    about: string;
    numberNote: string;
    label: string;
    embedded?: string;
    fields: Array<{
      group: 'settings' | 'credentials';
      key: string;
      label: string;
      description: string;
      secret?: boolean;
      optional?: boolean;
      type?: 'url';
    }>;
  }
> = {
  chatapp_official: {
    about: 'Connects with the provider’s credentials; templates need approval.',
    numberNote: 'The number as people see it.',
    label: 'Provider credentials',
    fields: [
      {
        group: 'settings',
        key: 'phone_number_id',
        label: 'Phone number ID',
        description: "The number's id in the provider's business manager (digits).",
      },
      { group: 'settings', key: 'waba_id', label: 'Business account ID', description: 'Needed for templates (digits).', optional: true },
      {
        group: 'credentials',
        key: 'access_token',
        label: 'Access token',
        description: 'Stored encrypted; never shown again.',
        secret: true,
      },
      {
        group: 'credentials',
        key: 'app_secret',
        label: 'App secret',
        description: 'Only for a channel on its own app (signs its webhooks).',
        secret: true,
        optional: true,
      },
      {
        group: 'settings',
        key: 'api_base',
        label: 'API base URL',
        description: "Leave empty for the installation's default.",
        optional: true,
        type: 'url',
      },
    ],
  },
  chatapp_unofficial: {
    about: 'Pairs a phone as a linked device by scanning a QR code.',
    numberNote: 'Filled in by the phone that pairs, if left empty.',
    label: 'My own HTTP gateway',
    embedded: 'My phone, paired with Parley itself',
    fields: [
      {
        group: 'settings',
        key: 'gateway_base',
        label: 'Gateway URL',
        description: 'The base address of the gateway (https).',
        type: 'url',
      },
      { group: 'credentials', key: 'api_key', label: 'Gateway API key', description: 'Stored encrypted; never shown again.', secret: true },
      {
        group: 'settings',
        key: 'session',
        label: 'Session name',
        description: 'The gateway session to use; defaults to the channel id.',
        optional: true,
      },
    ],
  },
};

export function NewChannelPage() {
  const canWrite = useCan('channels:write');
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [platform, setPlatform] = useState<Platform>('chatapp_official');
  const [chosen, setConnection] = useState<Connection | null>(null);
  const [name, setName] = useState('');
  const [displayNumber, setDisplayNumber] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const own = OWN_PROVIDER[platform];
  // The platform's first way to connect until one is picked: a real phone where the platform pairs one.
  const connection: Connection = chosen === 'embedded' && !own.embedded ? 'sandbox' : (chosen ?? (own.embedded ? 'embedded' : 'sandbox'));

  const create = useMutation({
    mutationFn: channelsApi.create,
    onSuccess: async (channel) => {
      await queryClient.invalidateQueries({ queryKey: orgKey('channels') });
      void navigate(`/channels/${channel.id}`);
    },
  });
  const errors = formErrors(create.error);

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    const input: CreateChannelRequest = { platform, name };
    if (displayNumber.trim()) input.display_phone_number = displayNumber.trim();
    if (connection === 'sandbox') input.sandbox = true;
    if (connection === 'credentials') {
      const settings: Record<string, string> = {};
      const credentials: Record<string, string> = {};
      for (const field of own.fields) {
        const value = (values[`${platform}.${field.key}`] ?? '').trim();
        // A required field goes even when empty, so the server names it.
        if (value || !field.optional) (field.group === 'settings' ? settings : credentials)[field.key] = value;
      }
      input.settings = settings;
      input.credentials = credentials;
    }
    create.mutate(input);
  }

  if (!canWrite) return <NotAllowed title="New channel" message="Your role cannot add channels; ask an owner or admin." />;

  return (
    <>
      <PageHeader title="New channel" description={<Link to="/channels">Back to channels</Link>} />
      <form className="card channel-form" onSubmit={onSubmit} noValidate>
        <ErrorMessage message={errors.message} />
        <TextField
          label="Name"
          value={name}
          onChange={setName}
          required
          maxLength={200}
          error={errors.field('/name')}
          description="How the team will recognise it, e.g. “Support line”."
        />
        <SelectField
          label="Platform"
          value={platform}
          onChange={(v) => setPlatform(v as Platform)}
          error={errors.field('/platform')}
          options={(Object.keys(PLATFORM_LABELS) as Platform[]).map((p) => ({ value: p, label: PLATFORM_LABELS[p] }))}
          description={own.about}
        />
        <SelectField
          label="Connect through"
          value={connection}
          onChange={(v) => setConnection(v as Connection)}
          options={[
            ...(own.embedded ? [{ value: 'embedded', label: own.embedded }] : []),
            { value: 'sandbox', label: 'The built-in sandbox (for trying things out)' },
            { value: 'credentials', label: own.label },
          ]}
        />
        {connection === 'credentials'
          ? own.fields.map((field) => (
              <TextField
                key={`${platform}.${field.key}`}
                label={field.optional ? `${field.label} (optional)` : field.label}
                description={field.description}
                type={field.secret ? 'password' : (field.type ?? 'text')}
                autoComplete={field.secret ? 'off' : undefined}
                value={values[`${platform}.${field.key}`] ?? ''}
                onChange={(v) => setValues((prev) => ({ ...prev, [`${platform}.${field.key}`]: v }))}
                error={errors.field(`/${field.group}/${field.key}`)}
              />
            ))
          : null}
        <TextField
          label="Display phone number (optional)"
          type="tel"
          value={displayNumber}
          onChange={setDisplayNumber}
          error={errors.field('/display_phone_number')}
          description={own.numberNote}
        />
        <FormActions busy={create.isPending} label="Create channel" busyLabel="Creating…" cancelTo="/channels" />
      </form>
    </>
  );
}
