/** The organization: its name (renamed by owners and admins), your role, leaving it; and creating another. */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../api.ts';
import { formatDate } from '../../format.ts';
import { formErrors, TextField } from '../../forms.tsx';
import { orgKey } from '../../query.ts';
import { Link, useNavigate } from '../../router.tsx';
import { useCan, useRefreshSession, useSession, useSwitchOrganization } from '../../session.tsx';
import { ErrorMessage, Loading, PageHeader } from '../../ui.tsx';
import { settingsApi } from './api.ts';
import { ConfirmButton, SaveActions } from './parts.tsx';

export const ORGANIZATION_NAME_MAX = 200;

function RenameForm({ name }: { name: string }) {
  const [value, setValue] = useState(name);
  const [saved, setSaved] = useState(false);
  const client = useQueryClient();
  const refreshSession = useRefreshSession();
  const rename = useMutation({
    mutationFn: settingsApi.rename,
    onSuccess: async (renamed) => {
      client.setQueryData(orgKey('organization'), renamed);
      setValue(renamed.name);
      setSaved(true);
      await refreshSession();
    },
  });
  const errors = formErrors(rename.error);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSaved(false);
    rename.mutate(value);
  }

  return (
    <form className="card section" onSubmit={submit} aria-label="Rename the organization" noValidate>
      <ErrorMessage message={errors.summary('/name')} />
      <TextField
        label="Organization name"
        value={value}
        onChange={(v) => {
          setValue(v);
          setSaved(false);
        }}
        error={errors.field('/name')}
        description={`Everyone in the organization sees it; up to ${ORGANIZATION_NAME_MAX} characters.`}
        autoComplete="organization"
      />
      <SaveActions label="Save name" busy={rename.isPending} saved={saved} />
    </form>
  );
}

function LeaveSection({ organizationName }: { organizationName: string }) {
  const refreshSession = useRefreshSession();
  const navigate = useNavigate();
  const leave = useMutation({
    mutationFn: settingsApi.leave,
    onSuccess: async () => {
      await refreshSession();
      navigate('/inbox', { replace: true });
    },
  });
  return (
    <section className="card section" aria-labelledby="leave-title">
      <h2 id="leave-title">Leave {organizationName}</h2>
      <p className="muted">
        Your sessions, API keys and the OAuth access you gave in this organization end with your membership. The last owner cannot leave:
        make someone else an owner first.
      </p>
      <ErrorMessage message={leave.error ? errorMessage(leave.error) : undefined} />
      <ConfirmButton
        label="Leave"
        name="the organization"
        confirmLabel="Leave now"
        question="You lose access at once."
        busy={leave.isPending}
        onConfirm={() => leave.mutate()}
      />
    </section>
  );
}

export function OrganizationPage() {
  const session = useSession();
  const canRename = useCan('members:write');
  const organization = useQuery({ queryKey: orgKey('organization'), queryFn: settingsApi.organization });
  return (
    <>
      <PageHeader title="Organization" description="The organization you are working in.">
        <Link className="button" to="/organizations/new">
          New organization
        </Link>
      </PageHeader>
      {organization.error ? <ErrorMessage message={errorMessage(organization.error)} /> : null}
      {!organization.data ? (
        organization.error ? null : (
          <Loading />
        )
      ) : (
        <>
          <dl className="settings-facts card section">
            <div>
              <dt>Name</dt>
              <dd className="strong">{organization.data.name}</dd>
            </div>
            <div>
              <dt>Your role</dt>
              <dd>{session.role}</dd>
            </div>
            <div>
              <dt>Created</dt>
              <dd>{formatDate(organization.data.created_at)}</dd>
            </div>
          </dl>
          {canRename ? (
            <RenameForm name={organization.data.name} />
          ) : (
            <p className="muted">Only owners and admins rename the organization.</p>
          )}
          <LeaveSection organizationName={organization.data.name} />
        </>
      )}
    </>
  );
}

/** Another organization of one's own: created, then switched to. */
export function NewOrganizationPage() {
  const [name, setName] = useState('');
  const refreshSession = useRefreshSession();
  const switchOrganization = useSwitchOrganization();
  const navigate = useNavigate();
  const create = useMutation({
    mutationFn: async (organizationName: string) => {
      const created = await settingsApi.createOrganization(organizationName);
      await switchOrganization(created.id);
    },
    onSuccess: async () => {
      await refreshSession();
      navigate('/settings/organization');
    },
  });
  const errors = formErrors(create.error);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    create.mutate(name);
  }

  return (
    <>
      <PageHeader
        title="New organization"
        description="An organization of your own, with you as its owner. Invite others to it afterwards."
      />
      <form className="card section narrow-form" onSubmit={submit} aria-label="New organization" noValidate>
        <ErrorMessage message={errors.summary('/name')} />
        <TextField
          label="Organization name"
          value={name}
          onChange={setName}
          error={errors.field('/name')}
          autoComplete="organization"
          description={`Up to ${ORGANIZATION_NAME_MAX} characters.`}
        />
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create organization'}
          </button>
          <Link to="/settings/organization">Cancel</Link>
        </div>
      </form>
    </>
  );
}
