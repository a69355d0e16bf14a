/**
 * The groups of a linked-device channel's number (docs/channels.md, "Groups"): the list with their
 * members and settings, a new group, and one group's members and invite link. The engine holds the
 * groups: every view asks it, through the channel's group routes.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../api.ts';
import { formatDate } from '../../format.ts';
import { formErrors, TextField } from '../../forms.tsx';
import { orgKey } from '../../query.ts';
import { Link, useParams } from '../../router.tsx';
import { useCan } from '../../session.tsx';
import { CopyButton, EmptyState, ErrorMessage, Loading, PageHeader, Table } from '../../ui.tsx';
import { channelsApi, groupsApi, type GroupRecord } from './api.ts';
import { ConfirmDialog } from './parts.tsx';

const ROLE_LABELS: Record<GroupRecord['participants'][number]['role'], string> = {
  superadmin: 'Creator (admin)',
  admin: 'Admin',
  member: 'Member',
};

const groupsKey = (channelId: string) => orgKey('channels', channelId, 'groups');

/**
 * A group's page names it by its id without the `@g.us` (the dashboard's server would read a path
 * ending in `.us` as a file): `/channels/{id}/groups/120363…`.
 */
export const groupPagePath = (channelId: string, groupId: string) =>
  `/channels/${channelId}/groups/${encodeURIComponent(groupId.replace(/@g\.us$/, ''))}`;
const groupIdOf = (key: string) => (key.includes('@') ? key : `${key}@g.us`);

/** What a group's settings say, in words. */
function settingsOf(group: GroupRecord): string {
  const said = [
    group.announcement ? 'only admins send' : null,
    group.locked ? 'only admins edit' : null,
    group.members_can_add ? 'members add members' : null,
    group.join_approval ? 'joining needs approval' : null,
    group.ephemeral_seconds > 0 ? 'disappearing messages' : null,
  ].filter(Boolean);
  return said.length ? said.join(', ') : 'open to all members';
}

export function GroupsPage() {
  const { channelId = '' } = useParams();
  const channel = useQuery({ queryKey: orgKey('channels', channelId), queryFn: () => channelsApi.get(channelId) });
  const groups = useQuery({ queryKey: groupsKey(channelId), queryFn: () => groupsApi.list(channelId), retry: false });
  const name = channel.data?.name ?? 'channel';
  return (
    <>
      <PageHeader title={`Groups of ${name}`} description={<Link to={`/channels/${channelId}`}>Back to the channel</Link>} />
      <div className="groups-page">
        {groups.error ? <ErrorMessage message={errorMessage(groups.error)} /> : null}
        {!groups.data ? (
          groups.error ? null : (
            <Loading label="Asking the phone for its groups…" />
          )
        ) : groups.data.length === 0 ? (
          <EmptyState title="No groups yet">The channel's number is in no group. Make one below.</EmptyState>
        ) : (
          <Table label="Groups" caption={`The groups of ${name}`} columns={['Group', 'Members', 'Your role', 'Settings']}>
            {groups.data.map((g) => (
              <tr key={g.id}>
                <td>
                  <Link to={groupPagePath(channelId, g.id)}>{g.subject || g.id}</Link>
                  {g.description ? <div className="small muted">{g.description}</div> : null}
                </td>
                <td>{g.size}</td>
                <td>{g.role ? ROLE_LABELS[g.role] : '—'}</td>
                <td className="small">{settingsOf(g)}</td>
              </tr>
            ))}
          </Table>
        )}
        {groups.data ? <NewGroup channelId={channelId} /> : null}
      </div>
    </>
  );
}

/** A new group: its subject and the numbers to add (one per line or separated by commas). */
function NewGroup({ channelId }: { channelId: string }) {
  const canSend = useCan('messages:send');
  const queryClient = useQueryClient();
  const [subject, setSubject] = useState('');
  const [numbers, setNumbers] = useState('');
  const create = useMutation({
    mutationFn: () =>
      groupsApi.create(channelId, {
        subject: subject.trim(),
        participants: numbers
          .split(/[\n,;]+/)
          .map((n) => n.trim())
          .filter(Boolean),
      }),
    onSuccess: () => {
      setSubject('');
      setNumbers('');
      void queryClient.invalidateQueries({ queryKey: groupsKey(channelId) });
    },
  });
  const errors = formErrors(create.error);
  if (!canSend) return null;
  const participantError =
    errors.field('/participants') ?? [...Array(50).keys()].map((i) => errors.field(`/participants/${i}`)).find((m) => m !== undefined);

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }

  return (
    <section className="card" aria-labelledby="new-group-title">
      <h2 id="new-group-title">New group</h2>
      <form className="stack-form" aria-label="New group" onSubmit={onSubmit} noValidate>
        <TextField label="Subject" value={subject} onChange={setSubject} maxLength={100} error={errors.field('/subject')} />
        <TextField
          label="Members"
          multiline
          rows={3}
          value={numbers}
          onChange={setNumbers}
          error={participantError}
          description="Phone numbers in international format, one per line. The channel's number is the group's admin."
        />
        <ErrorMessage message={participantError || errors.field('/subject') ? undefined : errors.message} />
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create group'}
        </button>
        <div role="status" className="small">
          {create.isSuccess ? `Group ${create.data.subject} created.` : null}
        </div>
      </form>
    </section>
  );
}

export function GroupPage() {
  const { channelId = '', groupKey = '' } = useParams();
  const groupId = groupIdOf(groupKey);
  const group = useQuery({ queryKey: [...groupsKey(channelId), groupId], queryFn: () => groupsApi.get(channelId, groupId), retry: false });
  const back = <Link to={`/channels/${channelId}/groups`}>Back to the groups</Link>;
  if (group.error) {
    return (
      <>
        <PageHeader title="Group" description={back} />
        <ErrorMessage message={errorMessage(group.error)} />
      </>
    );
  }
  if (!group.data) return <Loading />;
  const g = group.data;
  const admin = g.role === 'admin' || g.role === 'superadmin';
  return (
    <>
      <PageHeader title={g.subject || g.id} description={back} />
      <div className="groups-page">
        <div className="channel-grid">
          <section className="card" aria-labelledby="group-details-title">
            <h2 id="group-details-title">Details</h2>
            <dl className="details">
              <dt>Group ID</dt>
              <dd className="mono break">{g.id}</dd>
              <dt>Description</dt>
              <dd>{g.description ?? '—'}</dd>
              <dt>Your role</dt>
              <dd>{g.role ? ROLE_LABELS[g.role] : '—'}</dd>
              <dt>Settings</dt>
              <dd>{settingsOf(g)}</dd>
              <dt>Created</dt>
              <dd>{formatDate(g.created_at, 'unknown')}</dd>
            </dl>
          </section>
          <InviteLink channelId={channelId} groupId={g.id} admin={admin} />
        </div>
        <h2>Members ({g.size})</h2>
        <Table label="Members" caption={`The members of ${g.subject}`} columns={['Phone', 'Privacy ID', 'Role']}>
          {g.participants.map((p, i) => (
            <tr key={`${p.phone ?? p.lid ?? ''}-${i}`}>
              <td className="mono">{p.phone ?? '—'}</td>
              <td className="mono">{p.lid ?? '—'}</td>
              <td>{ROLE_LABELS[p.role]}</td>
            </tr>
          ))}
        </Table>
      </div>
    </>
  );
}

/** The group's invite link, read on demand (admins only), and its reset. */
function InviteLink({ channelId, groupId, admin }: { channelId: string; groupId: string; admin: boolean }) {
  const canSend = useCan('messages:send');
  const [confirm, setConfirm] = useState(false);
  const [link, setLink] = useState<string | undefined>(undefined);
  const show = useMutation({ mutationFn: () => groupsApi.invite(channelId, groupId), onSuccess: (invite) => setLink(invite.url) });
  const reset = useMutation({
    mutationFn: () => groupsApi.resetInvite(channelId, groupId),
    onSuccess: (invite) => {
      setLink(invite.url);
      setConfirm(false);
    },
  });
  return (
    <section className="card" aria-labelledby="invite-title">
      <h2 id="invite-title">Invite link</h2>
      {!admin || !canSend ? (
        <p className="small muted">Only the group's admins read its invite link.</p>
      ) : (
        <>
          {link ? (
            <p>
              <span className="mono break">{link}</span> <CopyButton value={link} label="Copy link" />
            </p>
          ) : (
            <button type="button" className="button" onClick={() => show.mutate()} disabled={show.isPending}>
              {show.isPending ? 'Asking…' : 'Show invite link'}
            </button>
          )}
          <ErrorMessage message={show.error ? errorMessage(show.error) : undefined} />
          <p className="small muted">Anyone with the link can join the group.</p>
          <button type="button" className="button button-danger-outline" onClick={() => setConfirm(true)}>
            Reset link
          </button>
          <ConfirmDialog
            open={confirm}
            title="Reset the invite link?"
            confirmLabel="Reset link"
            danger
            busy={reset.isPending}
            error={reset.error}
            onConfirm={() => reset.mutate()}
            onClose={() => {
              setConfirm(false);
              reset.reset();
            }}
          >
            The current link stops working; a new one replaces it.
          </ConfirmDialog>
        </>
      )}
    </section>
  );
}
