/**
 * Members and invitations: every member with their role (changed in place), a password-reset link for
 * one, removing one; inviting by email and role (the one-time link shown once, to copy), the pending
 * invitations and cancelling one.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Role } from '../../../domain/permissions.ts';
import { errorMessage } from '../../api.ts';
import { formatDate } from '../../format.ts';
import { formErrors, SelectField, TextField } from '../../forms.tsx';
import { orgKey, usePagedList } from '../../query.ts';
import { useCan, useRefreshSession, useSession } from '../../session.tsx';
import { EmptyState, ErrorMessage, ListState, PageHeader, Pager, StatusBadge } from '../../ui.tsx';
import { ROLES, settingsApi, type CreatedInvitationRecord, type MemberRecord, type PasswordResetLinkRecord } from './api.ts';
import { CellLabel, ConfirmButton, OneTimeLink, Table, useRowAction } from './parts.tsx';

/** The roles this person may hand out: only an owner makes owners. */
function useRoleOptions() {
  const { role } = useSession();
  return ROLES.map((r) => ({ value: r.value, label: r.label, disabled: r.value === 'owner' && role !== 'owner' }));
}

function MemberRow({
  member,
  canWrite,
  onResetLink,
}: {
  member: MemberRecord;
  canWrite: boolean;
  onResetLink(link: PasswordResetLinkRecord): void;
}) {
  const session = useSession();
  const client = useQueryClient();
  const refreshSession = useRefreshSession();
  const roleOptions = useRoleOptions();
  const self = member.user_id === session.user.id;
  const invalidate = async () => {
    await client.invalidateQueries({ queryKey: orgKey('members') });
    if (self) await refreshSession();
  };
  const changeRole = useMutation({ mutationFn: (role: Role) => settingsApi.changeRole(member.user_id, role), onSettled: invalidate });
  const remove = useMutation({ mutationFn: () => settingsApi.removeMember(member.user_id), onSuccess: invalidate });
  const reset = useMutation({ mutationFn: () => settingsApi.passwordReset(member.user_id), onSuccess: onResetLink });
  const failure = changeRole.error ?? remove.error ?? reset.error;
  const ownerOnly = member.role === 'owner' && session.role !== 'owner';

  return (
    <tr aria-current={self ? 'true' : undefined} className={self ? 'row-current' : undefined}>
      <td>
        <span className="strong">{member.name}</span>
        {self ? <span className="badge badge-ok badge-inline">You</span> : null}
        <div className="small muted">{member.email}</div>
        {failure ? (
          <div className="field-error" role="alert">
            {errorMessage(failure)}
          </div>
        ) : null}
      </td>
      <td>
        {canWrite && !ownerOnly ? (
          <select
            aria-label={`Role of ${member.name}`}
            value={changeRole.isPending && changeRole.variables ? changeRole.variables : member.role}
            disabled={changeRole.isPending}
            onChange={(e) => changeRole.mutate(e.target.value as Role)}
          >
            {roleOptions.map((o) => (
              <option key={o.value} value={o.value} disabled={o.disabled}>
                {o.label}
              </option>
            ))}
          </select>
        ) : (
          <StatusBadge status={member.role} />
        )}
      </td>
      <td className="nowrap">
        <CellLabel>Joined</CellLabel>
        {formatDate(member.joined_at)}
      </td>
      {canWrite ? (
        <td className="actions">
          {!self && !ownerOnly ? (
            <div className="member-actions">
              <button
                type="button"
                className="button"
                disabled={reset.isPending}
                aria-label={`Password-reset link for ${member.name}`}
                onClick={() => reset.mutate()}
              >
                {reset.isPending ? 'Making…' : 'Reset password'}
              </button>
              <ConfirmButton
                label="Remove"
                name={member.name}
                confirmLabel="Remove member"
                question="Their sessions, API keys and OAuth access here end at once."
                busy={remove.isPending}
                onConfirm={() => remove.mutate()}
              />
            </div>
          ) : null}
        </td>
      ) : null}
    </tr>
  );
}

function Members({ canWrite }: { canWrite: boolean }) {
  const members = usePagedList(orgKey('members'), settingsApi.members);
  const [resetLink, setResetLink] = useState<PasswordResetLinkRecord | undefined>(undefined);
  return (
    <section className="section" aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      {resetLink ? (
        resetLink.mailed ? (
          <div className="alert alert-ok" role="status">
            A password-reset link was mailed to {resetLink.email}; it works once, until {formatDate(resetLink.expires_at)}.{' '}
            <button type="button" className="link-button" onClick={() => setResetLink(undefined)}>
              Dismiss
            </button>
          </div>
        ) : (
          <OneTimeLink title={`Password-reset link for ${resetLink.email}`} url={resetLink.url} onDone={() => setResetLink(undefined)}>
            Hand it to {resetLink.email} yourself; it works once, until {formatDate(resetLink.expires_at)}, and signs them out everywhere.
          </OneTimeLink>
        )
      ) : null}
      <ListState items={members.items} error={members.error} empty={<EmptyState title="No members" />}>
        {(items) => (
          <>
            <Table
              label="Members and their roles"
              columns={['Member', 'Role', 'Joined']}
              actions={canWrite}
              className="members-table stack-on-phone"
            >
              {items.map((m) => (
                <MemberRow key={m.user_id} member={m} canWrite={canWrite} onResetLink={setResetLink} />
              ))}
            </Table>
            <Pager list={members} />
          </>
        )}
      </ListState>
    </section>
  );
}

function InviteForm({ onInvited }: { onInvited(created: CreatedInvitationRecord): void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const client = useQueryClient();
  const roleOptions = useRoleOptions();
  const invite = useMutation({
    mutationFn: () => settingsApi.invite(email.trim(), role),
    onSuccess: async (created) => {
      setEmail('');
      onInvited(created);
      await client.invalidateQueries({ queryKey: orgKey('invitations') });
    },
  });
  const errors = formErrors(invite.error);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    invite.mutate();
  }

  return (
    <form className="card section" onSubmit={submit} aria-label="Invite someone" noValidate>
      <h3>Invite someone</h3>
      <ErrorMessage message={errors.summary('/email', '/role')} />
      <div className="form-row">
        <TextField label="Email" type="email" value={email} onChange={setEmail} error={errors.field('/email')} autoComplete="off" />
        <SelectField label="Role" value={role} onChange={(v) => setRole(v as Role)} options={roleOptions} error={errors.field('/role')} />
      </div>
      <button type="submit" className="button button-primary" disabled={invite.isPending}>
        {invite.isPending ? 'Inviting…' : 'Invite'}
      </button>
    </form>
  );
}

function Invitations({ canWrite }: { canWrite: boolean }) {
  const invitations = usePagedList(orgKey('invitations'), settingsApi.invitations);
  const [created, setCreated] = useState<CreatedInvitationRecord | undefined>(undefined);
  const cancel = useRowAction(orgKey('invitations'), settingsApi.cancelInvitation);
  return (
    <section className="section" aria-labelledby="invitations-title">
      <h2 id="invitations-title">Invitations</h2>
      {created ? (
        <OneTimeLink title={`Invitation link for ${created.email}`} url={created.url} onDone={() => setCreated(undefined)}>
          {created.mailed ? `It was also mailed to ${created.email}.` : `Send it to ${created.email} yourself.`} It works once, until{' '}
          {formatDate(created.expires_at)}.
        </OneTimeLink>
      ) : null}
      {canWrite ? <InviteForm onInvited={setCreated} /> : null}
      <h3>Pending invitations</h3>
      <ErrorMessage message={cancel.error ? errorMessage(cancel.error) : undefined} />
      <ListState items={invitations.items} error={invitations.error} empty={<p className="muted">No pending invitations.</p>}>
        {(items) => (
          <>
            <Table label="Pending invitations" columns={['Email', 'Role', 'Sent', 'Expires']} actions={canWrite} className="stack-on-phone">
              {items.map((i) => (
                <tr key={i.id}>
                  <td className="strong">{i.email}</td>
                  <td>
                    <CellLabel>Role</CellLabel>
                    {i.role}
                  </td>
                  <td className="nowrap">
                    <CellLabel>Sent</CellLabel>
                    {formatDate(i.created_at)}
                  </td>
                  <td className="nowrap">
                    <CellLabel>Expires</CellLabel>
                    {formatDate(i.expires_at)}
                  </td>
                  {canWrite ? (
                    <td className="actions">
                      <ConfirmButton
                        label="Revoke"
                        name={`the invitation for ${i.email}`}
                        confirmLabel="Revoke invitation"
                        question="The link stops working at once."
                        busy={cancel.isPending && cancel.variables === i.id}
                        onConfirm={() => cancel.mutate(i.id)}
                      />
                    </td>
                  ) : null}
                </tr>
              ))}
            </Table>
            <Pager list={invitations} />
          </>
        )}
      </ListState>
    </section>
  );
}

export function MembersPage() {
  const canWrite = useCan('members:write');
  return (
    <>
      <PageHeader title="Members" description="Who works in this organization, with which role, and who is invited." />
      <Members canWrite={canWrite} />
      <Invitations canWrite={canWrite} />
    </>
  );
}
