/** One company: its fields (edit, delete), its deals, its tasks and its comments. */
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../../api.ts';
import { formatDate } from '../../../format.ts';
import { orgKey, usePagedList } from '../../../query.ts';
import { Link, useNavigate, useParams } from '../../../router.tsx';
import { useCan, useSession } from '../../../session.tsx';
import { ErrorMessage, ListState, Loading, PageHeader, Pager, StatusBadge } from '../../../ui.tsx';
import { CommentsSection } from '../CommentsSection.tsx';
import { crmApi, type CompanyRecord } from '../api.ts';
import { dealAmount } from '../money.ts';
import { DeleteRecord, Details, usePageDeletion } from '../parts.tsx';
import { RecordTasksSection } from '../tasks/RecordTasksSection.tsx';
import { BackToCompanies, CompanyForm } from './CompanyForm.tsx';

export function CompanyPage() {
  const { companyId = '' } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const deletion = usePageDeletion(
    () => crmApi.deleteCompany(companyId),
    () => {
      queryClient.removeQueries({ queryKey: orgKey('crm', 'companies') });
      navigate('/companies');
    },
  );
  const company = useQuery({
    queryKey: orgKey('crm', 'companies', companyId),
    queryFn: () => crmApi.company(companyId),
    enabled: !deletion.deleting,
  });
  if (deletion.deleting) return <Loading label="Deleting…" />;
  if (company.error && !company.data) {
    return (
      <div className="crm-area">
        <PageHeader title="Company">
          <BackToCompanies />
        </PageHeader>
        <ErrorMessage message={errorMessage(company.error)} />
      </div>
    );
  }
  if (!company.data) return <Loading />;
  return <CompanyView company={company.data} deleteError={deletion.error} onDelete={deletion.run} />;
}

function CompanyView({ company, deleteError, onDelete }: { company: CompanyRecord; deleteError: string | undefined; onDelete(): void }) {
  const canWrite = useCan('crm:write');
  const me = useSession().user.id;
  const [editing, setEditing] = useState(false);
  const address = company.address
    ? [
        company.address.line1,
        company.address.line2,
        [company.address.postal_code, company.address.city].filter(Boolean).join(' '),
        company.address.region,
        company.address.country,
      ]
        .filter(Boolean)
        .join(', ')
    : '';
  return (
    <div className="crm-area">
      <PageHeader title={company.name} description={`Company since ${formatDate(company.created_at)}`}>
        <BackToCompanies />
        {canWrite && !editing ? (
          <button type="button" className="button button-primary" onClick={() => setEditing(true)}>
            Edit
          </button>
        ) : null}
      </PageHeader>
      {editing ? (
        <section className="section" aria-labelledby="edit-title">
          <h2 id="edit-title">Edit company</h2>
          <CompanyForm company={company} onSaved={() => setEditing(false)} onCancel={() => setEditing(false)} />
        </section>
      ) : (
        <Details
          id="details-title"
          title="Details"
          pairs={[
            ['Domain', company.domain ?? '—'],
            ['Phone', company.phone ?? '—'],
            ['Address', address || '—'],
            ['Owner', company.owner_user_id === null ? 'Nobody' : company.owner_user_id === me ? 'You' : 'A teammate'],
            ...Object.entries(company.custom_fields).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
            ['Updated', formatDate(company.updated_at)],
          ]}
        />
      )}
      <div className="contact-grid">
        <CompanyDeals companyId={company.id} canWrite={canWrite} />
        <RecordTasksSection kind="company" id={company.id} canWrite={canWrite} />
        <CommentsSection kind="company" id={company.id} canWrite={canWrite} />
      </div>
      {canWrite ? (
        <DeleteRecord
          what="company"
          consequence="Its comments and task links go too; its deals stay, without the company."
          error={deleteError}
          onDelete={onDelete}
        />
      ) : null}
    </div>
  );
}

function CompanyDeals({ companyId, canWrite }: { companyId: string; canWrite: boolean }) {
  const deals = usePagedList(orgKey('crm', 'deals', 'list', { company_id: companyId }), (cursor) =>
    crmApi.deals({ company_id: companyId }, cursor),
  );
  return (
    <section className="section card" aria-labelledby="company-deals-title">
      <h2 id="company-deals-title">Deals</h2>
      <ListState items={deals.items} error={deals.error} empty={<p className="muted">No deals yet.</p>}>
        {(items) => (
          <ul className="plain-list" aria-label="Deals of this company">
            {items.map((d) => (
              <li key={d.id}>
                <Link to={`/deals/${d.id}`}>{d.name}</Link> <span className="small muted">{dealAmount(d)}</span>{' '}
                <StatusBadge status={d.status} />
              </li>
            ))}
          </ul>
        )}
      </ListState>
      <Pager list={deals} />
      {canWrite ? (
        <Link className="button" to={`/deals/new?company=${companyId}`}>
          New deal for this company
        </Link>
      ) : null}
    </section>
  );
}
