/**
 * Teams (docs/inbox.md#teams-and-assignment): create one, set its assignment policy and default
 * capacity, add and take out members, set a member's own capacity; each team shows its queue (a link
 * to the inbox filtered to it) and its members' availability and open conversations.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { TeamRecord } from '../../../http/v1/teams.presenters.ts';
import { call, errorMessage, type Page } from '../../api.ts';
import { formErrors, SelectField, TextField } from '../../forms.tsx';
import { orgKey, usePagedList } from '../../query.ts';
import { Link } from '../../router.tsx';
import { useCan } from '../../session.tsx';
import { EmptyState, ErrorMessage, ListState, PageHeader, Pager, StatusBadge } from '../../ui.tsx';
import { settingsApi } from './api.ts';
import { CellLabel, ConfirmButton, Table } from './parts.tsx';

const POLICIES = [
  { value: 'manual', label: 'Manual' },
  { value: 'round_robin', label: 'Round robin' },
  { value: 'least_busy', label: 'Least busy' },
];
const enc = encodeURIComponent;
const teamsApi = {
  list: (cursor?: string) => call<Page<TeamRecord>>('GET', '/v1/teams', { query: { cursor } }),
  create: (body: { name: string; assignment_policy: string; default_capacity: number | null }) =>
    call<{ data: TeamRecord }>('POST', '/v1/teams', { body }),
  update: (id: string, body: { assignment_policy?: string; default_capacity?: number | null }) =>
    call<{ data: TeamRecord }>('PATCH', `/v1/teams/${enc(id)}`, { body }),
  remove: (id: string) => call<void>('DELETE', `/v1/teams/${enc(id)}`),
  putMember: (id: string, userId: string, capacity?: number | null) =>
    call<{ data: TeamRecord }>('PUT', `/v1/teams/${enc(id)}/members/${enc(userId)}`, { body: capacity === undefined ? {} : { capacity } }),
  removeMember: (id: string, userId: string) => call<void>('DELETE', `/v1/teams/${enc(id)}/members/${enc(userId)}`),
};

/** A capacity typed in a field: empty is no limit (null). */
const capacityOf = (text: string): number | null => (text.trim() === '' ? null : Number(text));

function useTeamsRefresh() {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: orgKey('teams') });
}

function NewTeamForm() {
  const [name, setName] = useState('');
  const [policy, setPolicy] = useState('round_robin');
  const [capacity, setCapacity] = useState('');
  const refresh = useTeamsRefresh();
  const create = useMutation({
    mutationFn: () => teamsApi.create({ name: name.trim(), assignment_policy: policy, default_capacity: capacityOf(capacity) }),
    onSuccess: async () => {
      setName('');
      setCapacity('');
      await refresh();
    },
  });
  const errors = formErrors(create.error);
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    create.mutate();
  }
  return (
    <form className="card section" onSubmit={submit} aria-label="New team" noValidate>
      <h2>New team</h2>
      <ErrorMessage message={errors.summary('/name', '/assignment_policy', '/default_capacity')} />
      <div className="form-row">
        <TextField label="Name" value={name} onChange={setName} error={errors.field('/name')} autoComplete="off" />
        <SelectField label="Assignment" value={policy} onChange={setPolicy} options={POLICIES} error={errors.field('/assignment_policy')} />
        <TextField
          label="Capacity per member"
          type="number"
          value={capacity}
          onChange={setCapacity}
          description="Open conversations at most; empty: no limit"
          error={errors.field('/default_capacity')}
        />
      </div>
      <button type="submit" className="button button-primary" disabled={create.isPending}>
        {create.isPending ? 'Creating…' : 'Create team'}
      </button>
    </form>
  );
}

function MemberCapacity({ team, userId, name, capacity }: { team: TeamRecord; userId: string; name: string; capacity: number | null }) {
  const [value, setValue] = useState(capacity === null ? '' : String(capacity));
  const refresh = useTeamsRefresh();
  const save = useMutation({ mutationFn: () => teamsApi.putMember(team.id, userId, capacityOf(value)), onSuccess: refresh });
  return (
    <form
      className="inline-form"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <input
        type="number"
        min={0}
        aria-label={`Capacity of ${name}`}
        placeholder={team.default_capacity === null ? 'No limit' : `Team: ${team.default_capacity}`}
        value={value}
        onChange={(e) => setValue(e.target.value)}
      />
      <button type="submit" className="button" disabled={save.isPending}>
        Set
      </button>
      {save.error ? (
        <span className="field-error" role="alert">
          {errorMessage(save.error)}
        </span>
      ) : null}
    </form>
  );
}

function TeamCard({ team, canWrite }: { team: TeamRecord; canWrite: boolean }) {
  const refresh = useTeamsRefresh();
  const [capacity, setCapacity] = useState(team.default_capacity === null ? '' : String(team.default_capacity));
  const [adding, setAdding] = useState('');
  const members = useQuery({ queryKey: orgKey('members', 'all'), queryFn: () => settingsApi.members(), enabled: canWrite });
  const update = useMutation({
    mutationFn: (body: { assignment_policy?: string; default_capacity?: number | null }) => teamsApi.update(team.id, body),
    onSuccess: refresh,
  });
  const add = useMutation({
    mutationFn: () => teamsApi.putMember(team.id, adding),
    onSuccess: async () => {
      setAdding('');
      await refresh();
    },
  });
  const removeMember = useMutation({ mutationFn: (userId: string) => teamsApi.removeMember(team.id, userId), onSuccess: refresh });
  const remove = useMutation({ mutationFn: () => teamsApi.remove(team.id), onSuccess: refresh });
  const failure = update.error ?? add.error ?? removeMember.error ?? remove.error;
  const inTeam = new Set(team.members.map((m) => m.user_id));
  const candidates = (members.data?.data ?? []).filter((m) => !inTeam.has(m.user_id));
  const titleId = `team-${team.id}`;

  return (
    <section className="card team-card" aria-labelledby={titleId}>
      <h2 id={titleId}>{team.name}</h2>
      <p>
        <Link to={`/inbox?team=${enc(team.id)}&assignee=none&status=open`}>
          {team.queued === 1 ? '1 conversation waiting' : `${team.queued} conversations waiting`}
        </Link>
      </p>
      <ErrorMessage message={failure ? errorMessage(failure) : undefined} />
      {canWrite ? (
        <div className="team-settings">
          <SelectField
            label={`Assignment of ${team.name}`}
            value={update.isPending && update.variables?.assignment_policy ? update.variables.assignment_policy : team.assignment_policy}
            onChange={(v) => update.mutate({ assignment_policy: v })}
            options={POLICIES}
          />
          <form
            className="inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              update.mutate({ default_capacity: capacityOf(capacity) });
            }}
          >
            <TextField
              label={`Capacity per member in ${team.name}`}
              type="number"
              value={capacity}
              onChange={setCapacity}
              description="Empty: no limit"
            />
            <button type="submit" className="button" disabled={update.isPending}>
              Save capacity
            </button>
          </form>
        </div>
      ) : (
        <p className="muted">
          {POLICIES.find((p) => p.value === team.assignment_policy)?.label} assignment,{' '}
          {team.default_capacity === null ? 'no limit per member' : `${team.default_capacity} open conversations per member`}
        </p>
      )}
      {team.members.length === 0 ? (
        <p className="muted">No members yet.</p>
      ) : (
        <Table
          label={`Members of ${team.name}`}
          columns={['Member', 'Availability', 'Open', 'Capacity']}
          actions={canWrite}
          className="stack-on-phone"
        >
          {team.members.map((m) => (
            <tr key={m.user_id}>
              <td>
                <span className="strong">{m.name}</span>
                <div className="small muted">{m.email}</div>
              </td>
              <td>
                <CellLabel>Availability</CellLabel>
                <StatusBadge status={m.availability} />
              </td>
              <td>
                <CellLabel>Open</CellLabel>
                {m.open_conversations}
              </td>
              <td>
                <CellLabel>Capacity</CellLabel>
                {canWrite ? (
                  <MemberCapacity team={team} userId={m.user_id} name={m.name} capacity={m.capacity} />
                ) : (
                  (m.capacity ?? team.default_capacity ?? 'No limit')
                )}
              </td>
              {canWrite ? (
                <td className="actions">
                  <ConfirmButton
                    label="Remove"
                    name={`${m.name} from ${team.name}`}
                    confirmLabel="Remove from team"
                    question="What is assigned to them stays theirs."
                    busy={removeMember.isPending && removeMember.variables === m.user_id}
                    onConfirm={() => removeMember.mutate(m.user_id)}
                  />
                </td>
              ) : null}
            </tr>
          ))}
        </Table>
      )}
      {canWrite ? (
        <div className="team-settings">
          <SelectField
            label={`Add a member to ${team.name}`}
            value={adding}
            onChange={setAdding}
            options={[{ value: '', label: 'Choose a member' }, ...candidates.map((m) => ({ value: m.user_id, label: m.name }))]}
          />
          <button type="button" className="button" disabled={!adding || add.isPending} onClick={() => add.mutate()}>
            Add member
          </button>
          <ConfirmButton
            label="Delete team"
            name={team.name}
            confirmLabel="Delete team"
            question="Its conversations and channels keep no team; what is assigned stays assigned."
            busy={remove.isPending}
            onConfirm={() => remove.mutate()}
          />
        </div>
      ) : null}
    </section>
  );
}

export function TeamsPage() {
  const canWrite = useCan('teams:write');
  const teams = usePagedList(orgKey('teams'), teamsApi.list);
  return (
    <>
      <PageHeader
        title="Teams"
        description="Members who share a queue. A team’s assignment gives its conversations to its online members, under their capacity."
      />
      {canWrite ? <NewTeamForm /> : null}
      <ListState items={teams.items} error={teams.error} empty={<EmptyState title="No teams yet" />}>
        {(items) => (
          <>
            {items.map((t) => (
              <TeamCard key={t.id} team={t} canWrite={canWrite} />
            ))}
            <Pager list={teams} />
          </>
        )}
      </ListState>
    </>
  );
}
