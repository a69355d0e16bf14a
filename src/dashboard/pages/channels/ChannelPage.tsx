/**
 * One channel: status, health and last error, what it supports, its status history, and for
 * platforms that pair a phone the pairing view (the QR, renewed when it lapses, turning to
 * connected by itself on the live event), disconnect and delete.
 */
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../api.ts';
import { formatDate } from '../../format.ts';
import { useLiveEvent, useLiveState } from '../../live.tsx';
import { orgKey } from '../../query.ts';
import { Link, useNavigate, useParams } from '../../router.tsx';
import { useCan } from '../../session.tsx';
import { ErrorMessage, Loading, PageHeader, StatusBadge } from '../../ui.tsx';
import { channelsApi, type ChannelCapabilitiesRecord, type ChannelView } from './api.ts';
import { ChannelDetails } from './ChannelDetails.tsx';
import { ChannelSettings } from './ChannelSettings.tsx';
import { LabelsPanel, StatusPanel } from './LabelsPanel.tsx';
import { HealthSummary } from './ChannelsPage.tsx';
import { ConfirmDialog } from './parts.tsx';
import { PairingView, qrKey } from './PairingView.tsx';
import { ProfilePanel } from './ProfilePanel.tsx';
import { SandboxPanel } from './SandboxPanel.tsx';

/** How often the page asks again while pairing when the live stream is down (a fallback, not the way it learns). */
const OFFLINE_REFETCH_MS = 5_000;

export function ChannelPage() {
  const { channelId = '' } = useParams();
  const queryClient = useQueryClient();
  const live = useLiveState();
  const [paired, setPaired] = useState(false);
  const channel = useQuery({
    queryKey: orgKey('channels', channelId),
    queryFn: () => channelsApi.get(channelId),
    refetchInterval: (query) => (query.state.data?.status === 'pairing' && live !== 'live' ? OFFLINE_REFETCH_MS : false),
  });
  const capabilities = useQuery({
    queryKey: orgKey('channels', channelId, 'capabilities'),
    queryFn: () => channelsApi.capabilities(channelId),
    staleTime: Infinity,
  });

  useLiveEvent(['channel.status_update'], (event) => {
    if (event.data.channel_id !== channelId) return;
    if (event.data.status === 'connected' && event.data.previous_status === 'pairing') setPaired(true);
    void queryClient.invalidateQueries({ queryKey: orgKey('channels', channelId) });
  });

  if (channel.error) {
    return (
      <>
        <PageHeader title="Channel" description={<Link to="/channels">Back to channels</Link>} />
        <ErrorMessage message={errorMessage(channel.error)} />
      </>
    );
  }
  if (!channel.data) return <Loading />;
  const c = channel.data;
  return (
    <>
      <PageHeader title={c.name} description={<Link to="/channels">Back to channels</Link>}>
        <ChannelActions channel={c} capabilities={capabilities.data} />
      </PageHeader>
      {paired && c.status === 'connected' ? (
        <div className="alert alert-ok" role="status">
          Phone paired: the channel is connected{c.display_phone_number ? ` as ${c.display_phone_number}` : ''}.
        </div>
      ) : null}
      <div className="channel-grid">
        <section className="card" aria-labelledby="status-title">
          <h2 id="status-title">Status</h2>
          <p className="channel-status">
            <StatusBadge status={c.status} />
            {c.status_reason ? <span className="muted">{c.status_reason}</span> : null}
          </p>
          <p className="small muted">Since {formatDate(c.status_changed_at)}</p>
          <h3>Health</h3>
          <HealthSummary health={c.health} />
          <p className="small muted">Last checked {formatDate(c.health.last_checked_at, 'never')}</p>
          {c.status === 'pairing' ? null : <PairStart channel={c} capabilities={capabilities.data} />}
          {c.status === 'connected' && capabilities.data?.operations.includes('groups.manage') ? (
            <p>
              <Link to={`/channels/${c.id}/groups`}>Groups of this number</Link>
            </p>
          ) : null}
        </section>
        {c.status === 'pairing' ? <PairingView channel={c} capabilities={capabilities.data} /> : null}
        {c.sandbox ? <SandboxPanel channel={c} capabilities={capabilities.data} /> : null}
        <ProfilePanel channel={c} capabilities={capabilities.data} />
        <ChannelDetails channel={c} />
        <LabelsPanel channel={c} capabilities={capabilities.data} />
        <StatusPanel channel={c} capabilities={capabilities.data} />
        {c.platform === 'chatapp_unofficial' ? <ChannelSettings key={c.id} channel={c} /> : null}
        <CapabilityList capabilities={capabilities.data} error={capabilities.error} />
        <StatusHistory channelId={c.id} />
      </div>
    </>
  );
}

/** "Pair a phone" where the platform pairs and the channel is not paired. */
function PairStart({ channel, capabilities }: { channel: ChannelView; capabilities: ChannelCapabilitiesRecord | undefined }) {
  const canWrite = useCan('channels:write');
  const queryClient = useQueryClient();
  const connect = useMutation({
    mutationFn: () => channelsApi.connect(channel.id),
    onSuccess: (result) => {
      if (result.qr) queryClient.setQueryData(qrKey(channel.id), result.qr);
      queryClient.setQueryData(orgKey('channels', channel.id), result.channel);
      void queryClient.invalidateQueries({ queryKey: orgKey('channels') });
    },
  });
  if (!canWrite || !capabilities?.operations.includes('channel.connect') || channel.status === 'connected') return null;
  return (
    <div className="pair-start">
      <ErrorMessage message={connect.error ? errorMessage(connect.error) : undefined} />
      <button type="button" className="button button-primary" onClick={() => connect.mutate()} disabled={connect.isPending}>
        {connect.isPending ? 'Starting…' : 'Pair a phone'}
      </button>
      <p className="small muted">Shows a QR code to scan with the phone’s chat app (Linked devices).</p>
    </div>
  );
}

function ChannelActions({ channel, capabilities }: { channel: ChannelView; capabilities: ChannelCapabilitiesRecord | undefined }) {
  const canWrite = useCan('channels:write');
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [confirm, setConfirm] = useState<'disconnect' | 'delete' | undefined>(undefined);
  const disconnect = useMutation({
    mutationFn: () => channelsApi.disconnect(channel.id),
    onSuccess: (updated) => {
      queryClient.setQueryData(orgKey('channels', channel.id), updated);
      void queryClient.invalidateQueries({ queryKey: orgKey('channels') });
      setConfirm(undefined);
    },
  });
  const remove = useMutation({
    mutationFn: () => channelsApi.remove(channel.id),
    onSuccess: () => {
      // Dropped rather than marked stale: the list must not show the deleted channel while it reloads.
      queryClient.removeQueries({ queryKey: orgKey('channels', channel.id) });
      queryClient.removeQueries({ queryKey: orgKey('channels', 'list') });
      void queryClient.invalidateQueries({ queryKey: orgKey('channels') });
      void queryClient.invalidateQueries({ queryKey: orgKey('templates') });
      void navigate('/channels');
    },
  });
  if (!canWrite) return null;
  const canDisconnect =
    capabilities?.operations.includes('channel.logout') && (channel.status === 'connected' || channel.status === 'pairing');
  return (
    <>
      {canDisconnect ? (
        <button type="button" className="button" onClick={() => setConfirm('disconnect')}>
          Disconnect
        </button>
      ) : null}
      <button type="button" className="button button-danger-outline" onClick={() => setConfirm('delete')}>
        Delete
      </button>
      <ConfirmDialog
        open={confirm === 'disconnect'}
        title="Disconnect this channel?"
        confirmLabel="Disconnect"
        busy={disconnect.isPending}
        error={disconnect.error}
        onConfirm={() => disconnect.mutate()}
        onClose={() => {
          setConfirm(undefined);
          disconnect.reset();
        }}
      >
        The phone is logged out of {channel.name}; it stops sending and receiving until a phone pairs again.
      </ConfirmDialog>
      <ConfirmDialog
        open={confirm === 'delete'}
        title="Delete this channel?"
        confirmLabel="Delete channel"
        danger
        busy={remove.isPending}
        error={remove.error}
        onConfirm={() => remove.mutate()}
        onClose={() => {
          setConfirm(undefined);
          remove.reset();
        }}
      >
        {channel.name} and its templates are deleted; its messages keep their history.
      </ConfirmDialog>
    </>
  );
}

const OPERATION_LABELS: Record<ChannelCapabilitiesRecord['operations'][number], string> = {
  'messages.send': 'Send messages',
  'messages.read': 'Mark messages read',
  'groups.send': 'Send to groups',
  'groups.manage': 'Manage groups',
  'chats.manage': 'Archive, pin, mute and delete chats',
  'chats.history': "Fetch a chat's earlier messages",
  'messages.star': 'Star messages',
  'messages.pin': 'Pin messages in a chat',
  'messages.forward': 'Forward messages',
  'presence.subscribe': "Follow contacts' presence",
  'labels.manage': 'Labels on chats',
  'status.post': 'Post status updates',
  'status.receive': "Receive contacts' status posts",
  'channel.connect': 'Pair a phone',
  'channel.qr': 'Pairing QR code',
  'channel.pairing_code': 'Pairing code',
  'channel.logout': 'Disconnect the phone',
  'bizapi.register_phone': 'Register the number (PIN)',
  'bizapi.exchange_code': 'Embedded signup',
  'templates.submit': 'Submit templates',
  'templates.sync': 'Sync templates',
  'contacts.lookup': 'Look numbers up',
  'media.fetch': 'Receive media',
  'media.upload': 'Upload media to send by id',
  'profiles.read': "Read numbers' profiles",
  'profile.update': 'Change its own profile',
  'contacts.block': 'Block numbers',
  'privacy.settings': 'Privacy settings',
  'contacts.lid': 'Privacy id lookup',
  'calls.events': 'Incoming calls',
  'calls.reject': 'Reject calls',
};

function CapabilityList({ capabilities, error }: { capabilities: ChannelCapabilitiesRecord | undefined; error: unknown }) {
  return (
    <section className="card" aria-labelledby="capabilities-title">
      <h2 id="capabilities-title">Capabilities</h2>
      {error ? <ErrorMessage message={errorMessage(error)} /> : null}
      {!capabilities ? (
        error ? null : (
          <Loading />
        )
      ) : (
        <>
          <h3>Operations</h3>
          <ul className="chips" aria-label="Operations">
            {capabilities.operations.map((op) => (
              <li key={op} className="chip" title={op}>
                {OPERATION_LABELS[op] ?? op}
              </li>
            ))}
          </ul>
          <h3>Message types</h3>
          <ul className="chips" aria-label="Message types">
            {capabilities.message_types.map((type) => (
              <li key={type} className="chip mono">
                {type}
                {capabilities.simplified_types.includes(type)
                  ? ' (sent as text)'
                  : capabilities.parley_types.includes(type)
                    ? ' (answered by Parley)'
                    : ''}
              </li>
            ))}
          </ul>
          <p className="small muted">
            {capabilities.customer_service_window_hours === null
              ? 'No customer service window: any message may start a conversation.'
              : `Outside ${capabilities.customer_service_window_hours} hours since the customer last wrote, only templates may be sent.`}
          </p>
        </>
      )}
    </section>
  );
}

function StatusHistory({ channelId }: { channelId: string }) {
  const status = useQuery({ queryKey: orgKey('channels', channelId, 'status'), queryFn: () => channelsApi.status(channelId) });
  return (
    <section className="card" aria-labelledby="history-title">
      <h2 id="history-title">Status history</h2>
      {status.error ? <ErrorMessage message={errorMessage(status.error)} /> : null}
      {!status.data ? (
        status.error ? null : (
          <Loading />
        )
      ) : (
        <ol className="status-history">
          {[...status.data.history].reverse().map((h) => (
            <li key={`${h.at}-${h.to}-${h.from ?? ''}`}>
              <StatusBadge status={h.to} /> <span className="small">{h.reason ?? ''}</span>
              <div className="small muted">{formatDate(h.at)}</div>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
