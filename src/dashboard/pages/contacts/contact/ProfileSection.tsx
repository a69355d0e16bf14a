/**
 * The contact as the chat app shows them, through the phone of a channel they talk to (an unofficial
 * channel: its capabilities list `profiles.read`): their picture, name and About text, a business's
 * profile, and blocking them on that phone (`contacts.block`, with contacts:write). Shown for the first
 * connected channel of their conversations that can; nothing when none can.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, errorMessage } from '../../../api.ts';
import { useAllChannels } from '../../../channels.ts';
import { orgKey, usePagedList } from '../../../query.ts';
import { ErrorMessage, Loading, StatusBadge } from '../../../ui.tsx';
import { channelsApi } from '../../channels/api.ts';
import { contactsApi, type ContactRecord, type NumberProfileRecord } from '../api.ts';

export function ProfileSection({ contact, canWrite }: { contact: ContactRecord; canWrite: boolean }) {
  const conversations = usePagedList(orgKey('conversations', 'contact', contact.id), (cursor) =>
    contactsApi.conversations(contact.id, cursor),
  );
  const channels = useAllChannels();
  const phone = contact.phone_number;
  if (!phone || !conversations.items || !channels.data) return null;
  // The channels the contact talks on, most recent first, that are connected now.
  const connected = new Set(channels.data.filter((c) => c.status === 'connected').map((c) => c.id));
  const candidates = [...new Set(conversations.items.map((c) => c.channel_id))].filter((id) => connected.has(id));
  return (
    <ProfileOn
      candidates={candidates}
      phone={phone}
      canWrite={canWrite}
      channelName={(id) => channels.data.find((c) => c.id === id)?.name ?? id}
    />
  );
}

/** The first candidate channel that reads profiles (each one's capabilities asked in turn). */
function ProfileOn({
  candidates,
  phone,
  canWrite,
  channelName,
}: {
  candidates: string[];
  phone: string;
  canWrite: boolean;
  channelName: (id: string) => string;
}) {
  const [channelId, ...rest] = candidates;
  const capabilities = useQuery({
    queryKey: orgKey('channels', channelId ?? '', 'capabilities'),
    queryFn: () => channelsApi.capabilities(channelId!),
    enabled: channelId !== undefined,
    staleTime: 300_000,
  });
  if (channelId === undefined || capabilities.isPending) return null;
  if (!capabilities.data?.operations.includes('profiles.read'))
    return <ProfileOn candidates={rest} phone={phone} canWrite={canWrite} channelName={channelName} />;
  const blocks = capabilities.data.operations.includes('contacts.block');
  return <ChannelProfile channelId={channelId} channelName={channelName(channelId)} phone={phone} canBlock={canWrite && blocks} />;
}

function ChannelProfile({
  channelId,
  channelName,
  phone,
  canBlock,
}: {
  channelId: string;
  channelName: string;
  phone: string;
  canBlock: boolean;
}) {
  const queryClient = useQueryClient();
  const profile = useQuery({
    queryKey: orgKey('channel-profiles', channelId, 'numbers', phone),
    queryFn: () => contactsApi.profile(channelId, phone),
    retry: false,
  });
  const blocklistKey = orgKey('channel-profiles', channelId, 'blocklist');
  const blocklist = useQuery({ queryKey: blocklistKey, queryFn: () => contactsApi.blocklist(channelId), enabled: canBlock, retry: false });
  const blocked = blocklist.data?.some((b) => b.phone === phone) ?? false;
  const toggle = useMutation({
    mutationFn: () => (blocked ? contactsApi.unblock(channelId, phone) : contactsApi.block(channelId, phone)),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: blocklistKey }),
  });
  const notOnApp = profile.error instanceof ApiError && profile.error.status === 404;
  return (
    <section className="section card" aria-labelledby="profile-title">
      <h2 id="profile-title">Chat app profile</h2>
      <p className="small muted">As the chat app shows this number to {channelName}.</p>
      {profile.isPending ? <Loading /> : null}
      {notOnApp ? <p className="muted">This number is not on the chat app.</p> : null}
      {profile.error && !notOnApp ? <ErrorMessage message={errorMessage(profile.error)} /> : null}
      {profile.data ? <ProfileDetails profile={profile.data} /> : null}
      {canBlock && !notOnApp ? (
        <div className="profile-actions">
          {blocked ? <StatusBadge status="blocked" /> : null}
          <button
            type="button"
            className={blocked ? 'button' : 'button button-danger-outline'}
            disabled={toggle.isPending || blocklist.isPending}
            onClick={() => toggle.mutate()}
          >
            {blocked ? 'Unblock' : 'Block'}
          </button>
          <ErrorMessage message={toggle.error ? errorMessage(toggle.error) : blocklist.error ? errorMessage(blocklist.error) : undefined} />
        </div>
      ) : null}
    </section>
  );
}

function ProfileDetails({ profile }: { profile: NumberProfileRecord }) {
  const label = profile.name ?? profile.phone;
  return (
    <div className="profile">
      {profile.picture_url ? (
        <img className="profile-picture" src={profile.picture_url} alt={`Profile picture of ${label}`} referrerPolicy="no-referrer" />
      ) : (
        <div className="profile-picture profile-picture-none" aria-hidden="true">
          {label.slice(0, 1)}
        </div>
      )}
      <dl className="profile-fields">
        <dt>Name</dt>
        <dd>{profile.name ?? <span className="muted">Not seen yet</span>}</dd>
        <dt>About</dt>
        <dd>{profile.about ?? <span className="muted">Hidden or not set</span>}</dd>
        {profile.business ? (
          <>
            <dt>Business</dt>
            <dd>{[profile.business.category, profile.business.description].filter(Boolean).join(': ') || 'A business account'}</dd>
          </>
        ) : null}
      </dl>
    </div>
  );
}
