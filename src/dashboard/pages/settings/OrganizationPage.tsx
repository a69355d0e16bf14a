/** The organization: its name (renamed by owners and admins), your role, leaving it; and creating another. */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../api.ts';
import { formatDate } from '../../format.ts';
import { TextField, useForm } from '../../forms.tsx';
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
  const form = useForm();
  const client = useQueryClient();
  const refreshSession = useRefreshSession();

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSaved(false);
    void form.submit(async () => {
      const renamed = await settingsApi.rename(value);
      client.setQueryData(orgKey('organization'), renamed);
      setValue(renamed.name);
      setSaved(true);
      await refreshSession();
    });
  }

  return (
    <form className="card section" onSubmit={submit} aria-label="Rename the organization" noValidate>
      <ErrorMessage message={form.fieldError('/name') ? undefined : form.message} />
      <TextField
        label="Organization name"
        value={value}
        onChange={(v) => {
          setValue(v);
          setSaved(false);
        }}
        error={form.fieldError('/name')}
        description={`Everyone in the organization sees it; up to ${ORGANIZATION_NAME_MAX} characters.`}
        autoComplete="organization"
      />
      <SaveActions label="Save name" busy={form.busy} saved={saved} />
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
        Your sessions, API keys and the OAuth access you gave in this organization end with your membership. The last owner cannot leave: make someone else an owner first.
      </p>
      <ErrorMessage message={leave.error ? errorMessage(leave.error) : undefined} />
      <ConfirmButton label="Leave" name="the organization" confirmLabel="Leave now" question="You lose access at once." busy={leave.isPending} onConfirm={() => leave.mutate()} />
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
        organization.error ? null : <Loading />
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
          {canRename ? <RenameForm name={organization.data.name} /> : <p className="muted">Only owners and admins rename the organization.</p>}
          <LeaveSection organizationName={organization.data.name} />
        </>
      )}
    </>
  );
}

/** Another organization of one's own: created, then switched to. */
export function NewOrganizationPage() {
  const [name, setName] = useState('');
  const form = useForm();
  const refreshSession = useRefreshSession();
  const switchOrganization = useSwitchOrganization();
  const navigate = useNavigate();

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void form.submit(async () => {
      const created = await settingsApi.createOrganization(name);
      await switchOrganization(created.id);
      await refreshSession();
      navigate('/settings/organization');
    });
  }

  return (
    <>
      <PageHeader title="New organization" description="An organization of your own, with you as its owner. Invite others to it afterwards." />
      <form className="card section narrow-form" onSubmit={submit} aria-label="New organization" noValidate>
        <ErrorMessage message={form.fieldError('/name') ? undefined : form.message} />
        <TextField label="Organization name" value={name} onChange={setName} error={form.fieldError('/name')} autoComplete="organization" description={`Up to ${ORGANIZATION_NAME_MAX} characters.`} />
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={form.busy}>
            {form.busy ? 'Creating…' : 'Create organization'}
          </button>
          <Link to="/settings/organization">Cancel</Link>
        </div>
      </form>
    </>
  );
}
