/**
 * A connected channel's own account as others see it (platforms with `profile.update`): its picture,
 * name and About text, changed here with channels:write; and its privacy settings (`privacy.settings`).
 * Their queries are keyed apart from the channel's (`channel-profiles`): what refreshes the channel (a
 * disconnect, a status event) does not ask the phone again while it goes away.
 */
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../api.ts';
import { formErrors, SectionForm, SelectField, TextField } from '../../forms.tsx';
import { orgKey } from '../../query.ts';
import { useCan } from '../../session.tsx';
import { ErrorMessage, Loading } from '../../ui.tsx';
import { profileApi, type ChannelCapabilitiesRecord, type ChannelView, type PrivacySettingsRecord } from './api.ts';

type Setting = keyof PrivacySettingsRecord;

/** Each setting's label and the values it takes, as people read them. */
const PRIVACY: { [K in Setting]: { label: string; values: Array<[NonNullable<PrivacySettingsRecord[K]>, string]> } } = {
  last_seen: {
    label: 'Last seen',
    values: [
      ['all', 'Everyone'],
      ['contacts', 'My contacts'],
      ['contact_blacklist', 'My contacts except…'],
      ['none', 'Nobody'],
    ],
  },
  online: {
    label: 'Online',
    values: [
      ['all', 'Everyone'],
      ['match_last_seen', 'Same as last seen'],
    ],
  },
  profile_picture: {
    label: 'Profile picture',
    values: [
      ['all', 'Everyone'],
      ['contacts', 'My contacts'],
      ['contact_blacklist', 'My contacts except…'],
      ['none', 'Nobody'],
    ],
  },
  about: {
    label: 'About',
    values: [
      ['all', 'Everyone'],
      ['contacts', 'My contacts'],
      ['contact_blacklist', 'My contacts except…'],
      ['none', 'Nobody'],
    ],
  },
  read_receipts: {
    label: 'Read receipts',
    values: [
      ['all', 'On'],
      ['none', 'Off'],
    ],
  },
  groups_add: {
    label: 'Who can add it to groups',
    values: [
      ['all', 'Everyone'],
      ['contacts', 'My contacts'],
      ['contact_blacklist', 'My contacts except…'],
    ],
  },
  calls: {
    label: 'Who can call',
    values: [
      ['all', 'Everyone'],
      ['known', 'Known numbers'],
    ],
  },
  messages: {
    label: 'Who can message',
    values: [
      ['all', 'Everyone'],
      ['contacts', 'My contacts'],
    ],
  },
};

export function ProfilePanel({ channel, capabilities }: { channel: ChannelView; capabilities: ChannelCapabilitiesRecord | undefined }) {
  if (channel.status !== 'connected' || !capabilities?.operations.includes('profile.update')) return null;
  return (
    <>
      <OwnProfile channel={channel} />
      {capabilities.operations.includes('privacy.settings') ? <Privacy channel={channel} /> : null}
    </>
  );
}

function OwnProfile({ channel }: { channel: ChannelView }) {
  const canWrite = useCan('channels:write');
  const queryClient = useQueryClient();
  const key = orgKey('channel-profiles', channel.id, 'own');
  const profile = useQuery({ queryKey: key, queryFn: () => profileApi.get(channel.id), retry: false });
  const [name, setName] = useState<string | undefined>();
  const [about, setAbout] = useState<string | undefined>();
  const [pictureUrl, setPictureUrl] = useState('');
  const saved = (data: Awaited<ReturnType<typeof profileApi.get>>) => queryClient.setQueryData(key, data);
  const update = useMutation({
    mutationFn: () =>
      profileApi.update(channel.id, {
        ...(name !== undefined && name.trim() !== (profile.data?.name ?? '') ? { name: name.trim() } : {}),
        ...(about !== undefined && about.trim() !== (profile.data?.about ?? '') ? { about: about.trim() } : {}),
      }),
    onSuccess: (data) => {
      saved(data);
      setName(undefined);
      setAbout(undefined);
    },
  });
  const picture = useMutation({
    mutationFn: () => profileApi.setPicture(channel.id, pictureUrl.trim()),
    onSuccess: (data) => {
      saved(data);
      setPictureUrl('');
    },
  });
  const removePicture = useMutation({ mutationFn: () => profileApi.removePicture(channel.id), onSuccess: saved });
  const errors = formErrors(update.error);
  const pictureErrors = formErrors(picture.error);
  const data = profile.data;
  return (
    <section className="card" aria-labelledby="own-profile-title">
      <h2 id="own-profile-title">Profile</h2>
      <p className="small muted">How the chat app shows this number to others.</p>
      {profile.isPending ? <Loading /> : null}
      <ErrorMessage message={profile.error ? errorMessage(profile.error) : undefined} />
      {data ? (
        <div className="profile">
          {data.picture_url ? (
            <img
              className="profile-picture"
              src={data.picture_url}
              alt={`Profile picture of ${data.name ?? channel.name}`}
              referrerPolicy="no-referrer"
            />
          ) : (
            <div className="profile-picture profile-picture-none" aria-hidden="true">
              {(data.name ?? channel.name).slice(0, 1)}
            </div>
          )}
          <dl className="profile-fields">
            <dt>Name</dt>
            <dd>{data.name ?? <span className="muted">Not set</span>}</dd>
            <dt>About</dt>
            <dd>{data.about ?? <span className="muted">Not set</span>}</dd>
          </dl>
        </div>
      ) : null}
      {canWrite && data ? (
        <>
          <SectionForm
            label="Change the profile"
            title="Change the profile"
            error={errors.summary('/name', '/about')}
            pending={update.isPending}
            submitLabel="Save profile"
            onSubmit={() => update.mutate()}
          >
            <TextField label="Name" value={name ?? data.name ?? ''} onChange={setName} maxLength={25} error={errors.field('/name')} />
            <TextField label="About" value={about ?? data.about ?? ''} onChange={setAbout} maxLength={139} error={errors.field('/about')} />
          </SectionForm>
          <SectionForm
            label="Change the picture"
            title="Picture"
            error={pictureErrors.summary('/url')}
            pending={picture.isPending}
            submitLabel="Set picture"
            onSubmit={() => picture.mutate()}
          >
            <TextField
              label="Picture URL"
              type="url"
              value={pictureUrl}
              onChange={setPictureUrl}
              placeholder="https://…/logo.png"
              description="A JPEG or PNG of at most 5 MB; Parley fetches it."
              error={pictureErrors.field('/url')}
            />
          </SectionForm>
          {data.picture_url ? (
            <div className="profile-actions">
              <button
                type="button"
                className="button button-danger-outline"
                disabled={removePicture.isPending}
                onClick={() => removePicture.mutate()}
              >
                Remove picture
              </button>
              <ErrorMessage message={removePicture.error ? errorMessage(removePicture.error) : undefined} />
            </div>
          ) : null}
        </>
      ) : null}
    </section>
  );
}

function Privacy({ channel }: { channel: ChannelView }) {
  const canWrite = useCan('channels:write');
  const queryClient = useQueryClient();
  const key = orgKey('channel-profiles', channel.id, 'privacy');
  const privacy = useQuery({ queryKey: key, queryFn: () => profileApi.privacy(channel.id), retry: false });
  const [changes, setChanges] = useState<Partial<Record<Setting, string>>>({});
  const save = useMutation({
    mutationFn: () => profileApi.updatePrivacy(channel.id, changes),
    onSuccess: (data) => {
      queryClient.setQueryData(key, data);
      setChanges({});
    },
  });
  const errors = formErrors(save.error);
  const settings = Object.keys(PRIVACY) as Setting[];
  return (
    <section className="card" aria-labelledby="privacy-title">
      <h2 id="privacy-title">Privacy</h2>
      {privacy.isPending ? <Loading /> : null}
      <ErrorMessage message={privacy.error ? errorMessage(privacy.error) : undefined} />
      {privacy.data && !canWrite ? (
        <dl className="profile-fields">
          {settings.map((setting) => (
            <div key={setting} className="contents">
              <dt>{PRIVACY[setting].label}</dt>
              <dd>{(PRIVACY[setting].values as Array<[string, string]>).find(([v]) => v === privacy.data[setting])?.[1] ?? 'Unknown'}</dd>
            </div>
          ))}
        </dl>
      ) : null}
      {privacy.data && canWrite ? (
        <SectionForm
          label="Privacy settings"
          title="Who sees what"
          error={errors.summary(...settings.map((s) => `/${s}`))}
          pending={save.isPending}
          submitLabel="Save privacy"
          onSubmit={() => (Object.keys(changes).length > 0 ? save.mutate() : undefined)}
        >
          {settings.map((setting) => (
            <SelectField
              key={setting}
              label={PRIVACY[setting].label}
              value={changes[setting] ?? privacy.data[setting] ?? ''}
              onChange={(value) => setChanges((c) => ({ ...c, [setting]: value }))}
              error={errors.field(`/${setting}`)}
              options={[
                ...(privacy.data[setting] === null ? [{ value: '', label: 'Unknown', disabled: true }] : []),
                ...(PRIVACY[setting].values as Array<[string, string]>).map(([value, label]) => ({ value, label })),
              ]}
            />
          ))}
        </SectionForm>
      ) : null}
    </section>
  );
}
