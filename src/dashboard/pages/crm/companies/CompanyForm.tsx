/** A company's fields, for creating one and editing one; the API's refusals show next to their field. */
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { CheckboxField, formErrors, TextField } from '../../../forms.tsx';
import { orgKey } from '../../../query.ts';
import { Link, useNavigate } from '../../../router.tsx';
import { useSession } from '../../../session.tsx';
import { ErrorMessage, PageHeader } from '../../../ui.tsx';
import { crmApi, type CompanyBody, type CompanyRecord } from '../api.ts';

const ADDRESS = ['line1', 'line2', 'city', 'region', 'postal_code', 'country'] as const;
type AddressKey = (typeof ADDRESS)[number];
type Fields = { name: string; domain: string; phone: string } & Record<AddressKey, string>;

const LABELS: Record<AddressKey, string> = {
  line1: 'Street',
  line2: 'Address line 2',
  city: 'City',
  region: 'Region',
  postal_code: 'Postal code',
  country: 'Country',
};

function fieldsOf(company: CompanyRecord | undefined): Fields {
  const a = company?.address;
  return {
    name: company?.name ?? '',
    domain: company?.domain ?? '',
    phone: company?.phone ?? '',
    ...(Object.fromEntries(ADDRESS.map((k) => [k, a?.[k] ?? ''])) as Record<AddressKey, string>),
  };
}

/** What changed (every filled field for a new company); the address is sent whole when any line changed. */
function bodyOf(fields: Fields, initial: Fields, isNew: boolean): CompanyBody {
  const body: CompanyBody = {};
  const changed = (k: keyof Fields) => (isNew ? fields[k].trim() !== '' : fields[k].trim() !== initial[k].trim());
  if (isNew || changed('name')) body.name = fields.name.trim();
  if (changed('domain')) body.domain = fields.domain.trim() || null;
  if (changed('phone')) body.phone = fields.phone.trim() || null;
  if (ADDRESS.some(changed)) {
    const address = Object.fromEntries(ADDRESS.map((k) => [k, fields[k].trim() || null])) as Record<AddressKey, string | null>;
    body.address = ADDRESS.some((k) => address[k] !== null) ? address : null;
  }
  return body;
}

export function CompanyForm({
  company,
  onSaved,
  onCancel,
}: {
  company?: CompanyRecord;
  onSaved(c: CompanyRecord): void;
  onCancel(): void;
}) {
  const initial = fieldsOf(company);
  const me = useSession().user.id;
  const [fields, setFields] = useState<Fields>(initial);
  const [mine, setMine] = useState(company ? company.owner_user_id === me : true);
  const queryClient = useQueryClient();
  const set = (name: keyof Fields) => (value: string) => setFields((f) => ({ ...f, [name]: value }));
  const save = useMutation({
    mutationFn: (body: CompanyBody) => (company ? crmApi.updateCompany(company.id, body) : crmApi.createCompany(body)),
    onSuccess: async (saved) => {
      queryClient.setQueryData(orgKey('crm', 'companies', saved.id), saved);
      await queryClient.invalidateQueries({ queryKey: orgKey('crm', 'companies') });
      onSaved(saved);
    },
  });
  const errors = formErrors(save.error);

  function submit(event: FormEvent) {
    event.preventDefault();
    const body = bodyOf(fields, initial, !company);
    const wasMine = company ? company.owner_user_id === me : false;
    if (mine !== wasMine) body.owner_user_id = mine ? me : null;
    save.mutate(body);
  }

  return (
    <form className="card crm-form" onSubmit={submit} noValidate aria-label={company ? 'Edit company' : 'New company'}>
      <ErrorMessage message={errors.summary('/name', '/domain', '/phone', '/address')} />
      <div className="form-grid">
        <TextField label="Name" value={fields.name} onChange={set('name')} error={errors.field('/name')} required maxLength={200} />
        <TextField
          label="Domain"
          value={fields.domain}
          onChange={set('domain')}
          error={errors.field('/domain')}
          description="Its web address, such as acme.com"
        />
        <TextField
          label="Phone"
          type="tel"
          value={fields.phone}
          onChange={set('phone')}
          error={errors.field('/phone')}
          description="With the country code"
        />
        {ADDRESS.map((k) => (
          <TextField
            key={k}
            label={LABELS[k]}
            value={fields[k]}
            onChange={set(k)}
            error={errors.field(`/address/${k}`)}
            description={k === 'country' ? 'Two letters, such as DE' : undefined}
            maxLength={k === 'country' ? 2 : 200}
          />
        ))}
      </div>
      <CheckboxField label="I own this company" checked={mine} onChange={setMine} />
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : company ? 'Save changes' : 'Create company'}
        </button>
        <button type="button" className="button" onClick={onCancel} disabled={save.isPending}>
          Cancel
        </button>
      </div>
    </form>
  );
}

export function BackToCompanies() {
  return (
    <Link className="button" to="/companies">
      Back to companies
    </Link>
  );
}

export function NewCompanyPage() {
  const navigate = useNavigate();
  return (
    <div className="crm-area">
      <PageHeader title="New company">
        <BackToCompanies />
      </PageHeader>
      <CompanyForm onSaved={(c) => navigate(`/companies/${c.id}`)} onCancel={() => navigate('/companies')} />
    </div>
  );
}
