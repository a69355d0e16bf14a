/**
 * One deal: its fields (edit, delete), where it is (its stage, with a stage picker), its stage history,
 * its company and contacts, comments and tasks; each section a component of its own in deal/.
 */
import { useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../../api.ts';
import { formatDate } from '../../../format.ts';
import { orgKey } from '../../../query.ts';
import { Link, useNavigate, useParams } from '../../../router.tsx';
import { useCan } from '../../../session.tsx';
import { ErrorMessage, Loading, PageHeader, StatusBadge } from '../../../ui.tsx';
import { CommentsSection } from '../CommentsSection.tsx';
import { crmApi, type DealRecord } from '../api.ts';
import { DeleteRecord, Details, usePageDeletion } from '../parts.tsx';
import { dealAmount } from '../money.ts';
import { RecordTasksSection } from '../tasks/RecordTasksSection.tsx';
import { ContactsSection } from '../deal/ContactsSection.tsx';
import { StageHistorySection } from '../deal/StageHistorySection.tsx';
import { DealForm } from './DealForm.tsx';

function BackToDeals({ pipelineId }: { pipelineId?: string }) {
  return (
    <Link className="button" to={pipelineId ? `/deals?pipeline=${pipelineId}` : '/deals'}>
      Back to the board
    </Link>
  );
}

export function DealPage() {
  const { dealId = '' } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  // Where to go after deleting: the deal's board (kept from the last answer, which the deletion stops).
  const pipelineId = useRef('');
  const deletion = usePageDeletion(
    () => crmApi.deleteDeal(dealId),
    () => {
      queryClient.removeQueries({ queryKey: orgKey('crm', 'deals', dealId) });
      navigate(`/deals?pipeline=${pipelineId.current}`);
    },
  );
  const deal = useQuery({ queryKey: orgKey('crm', 'deals', dealId), queryFn: () => crmApi.deal(dealId), enabled: !deletion.deleting });
  if (deal.data) pipelineId.current = deal.data.pipeline_id;
  if (deletion.deleting) return <Loading label="Deleting…" />;
  if (deal.error && !deal.data) {
    return (
      <div className="crm-area">
        <PageHeader title="Deal">
          <BackToDeals />
        </PageHeader>
        <ErrorMessage message={errorMessage(deal.error)} />
      </div>
    );
  }
  if (!deal.data) return <Loading />;
  return <DealView deal={deal.data} deleteError={deletion.error} onDelete={deletion.run} />;
}

function DealView({ deal, deleteError, onDelete }: { deal: DealRecord; deleteError: string | undefined; onDelete(): void }) {
  const canWrite = useCan('crm:write');
  const [editing, setEditing] = useState(false);
  const pipelines = useQuery({ queryKey: orgKey('crm', 'pipelines'), queryFn: crmApi.pipelines });
  const pipeline = pipelines.data?.find((p) => p.id === deal.pipeline_id);
  const stage = pipeline?.stages.find((s) => s.id === deal.stage_id);
  const company = useQuery({
    queryKey: orgKey('crm', 'companies', deal.company_id),
    queryFn: () => crmApi.company(deal.company_id!),
    enabled: deal.company_id !== null,
  });
  return (
    <div className="crm-area">
      <PageHeader title={deal.name} description={`Deal since ${formatDate(deal.created_at)}`}>
        <BackToDeals pipelineId={deal.pipeline_id} />
        {canWrite && !editing ? (
          <button type="button" className="button button-primary" onClick={() => setEditing(true)}>
            Edit
          </button>
        ) : null}
      </PageHeader>
      {editing && pipelines.data ? (
        <section className="section" aria-labelledby="edit-title">
          <h2 id="edit-title">Edit deal</h2>
          <DealForm deal={deal} pipelineId={deal.pipeline_id} onSaved={() => setEditing(false)} onCancel={() => setEditing(false)} />
        </section>
      ) : (
        <Details
          id="details-title"
          title="Details"
          pairs={[
            ['Amount', dealAmount(deal)],
            ['Stage', stage ? `${stage.name} (${pipeline?.name})` : '…'],
            ['Status', <StatusBadge key="status" status={deal.status} />],
            ['Probability', `${deal.probability} %`],
            ['Expected close', deal.expected_close_date ?? '—'],
            ['Company', deal.company_id ? <Link to={`/companies/${deal.company_id}`}>{company.data?.name ?? 'The company'}</Link> : '—'],
            ['In this stage since', formatDate(deal.stage_entered_at)],
            ...Object.entries(deal.custom_fields).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
            ['Updated', formatDate(deal.updated_at)],
          ]}
        />
      )}
      <div className="contact-grid">
        <StageHistorySection dealId={deal.id} />
        <ContactsSection contactIds={deal.contact_ids} />
        <RecordTasksSection kind="deal" id={deal.id} canWrite={canWrite} />
        <CommentsSection kind="deal" id={deal.id} canWrite={canWrite} />
      </div>
      {canWrite ? (
        <DeleteRecord
          what="deal"
          consequence="Its stage history, comments and task links go too; its company and contacts stay."
          error={deleteError}
          onDelete={onDelete}
        />
      ) : null}
    </div>
  );
}
