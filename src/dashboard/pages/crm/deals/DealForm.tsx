/** A deal's fields, for creating one (from the board, in its pipeline) and editing one (on its page). */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { formErrors, SelectField, TextField } from '../../../forms.tsx';
import { orgKey } from '../../../query.ts';
import { Link, useNavigate, useSearchParams } from '../../../router.tsx';
import { ErrorMessage, PageHeader } from '../../../ui.tsx';
import { crmApi, type DealBody, type DealRecord } from '../api.ts';
import { moneyInput, parseMoney } from '../money.ts';

type Fields = { name: string; amount: string; currency: string; stage_id: string; expected_close_date: string; company_id: string };

function fieldsOf(deal: DealRecord | undefined, stageId: string, companyId: string): Fields {
  return {
    name: deal?.name ?? '',
    amount: deal ? moneyInput(deal.amount, deal.currency) : '',
    currency: deal?.currency ?? 'EUR',
    stage_id: deal?.stage_id ?? stageId,
    expected_close_date: deal?.expected_close_date ?? '',
    company_id: deal?.company_id ?? companyId,
  };
}

/** The fields that changed (all filled ones for a new deal), as the API takes them; a string when the amount is not one. */
function bodyOf(fields: Fields, initial: Fields, isNew: boolean): DealBody | string {
  const body: DealBody = {};
  const changed = (k: keyof Fields) => (isNew ? fields[k].trim() !== '' : fields[k].trim() !== initial[k].trim());
  if (changed('name') || isNew) body.name = fields.name.trim();
  if (changed('stage_id')) body.stage_id = fields.stage_id;
  if (changed('expected_close_date')) body.expected_close_date = fields.expected_close_date || null;
  if (changed('company_id')) body.company_id = fields.company_id || null;
  if (changed('amount') || (!isNew && changed('currency') && fields.amount.trim() !== '')) {
    const currency = fields.currency.trim().toUpperCase();
    const amount = parseMoney(fields.amount, currency);
    if (amount === undefined) return 'Write the amount as a number, such as 12500.00';
    body.amount = amount;
    if (amount !== null) body.currency = currency;
  }
  return body;
}

export function DealForm({
  deal,
  pipelineId,
  companyId = '',
  onSaved,
  onCancel,
}: {
  deal?: DealRecord;
  pipelineId: string;
  companyId?: string;
  onSaved(deal: DealRecord): void;
  onCancel(): void;
}) {
  const queryClient = useQueryClient();
  const pipelines = useQuery({ queryKey: orgKey('crm', 'pipelines'), queryFn: crmApi.pipelines });
  const companies = useQuery({ queryKey: orgKey('crm', 'companies', 'options'), queryFn: crmApi.companyOptions });
  const pipeline = pipelines.data?.find((p) => p.id === (deal?.pipeline_id ?? pipelineId)) ?? pipelines.data?.find((p) => p.is_default);
  const firstOpen = pipeline?.stages.find((s) => s.kind === 'open')?.id ?? '';
  const initial = fieldsOf(deal, firstOpen, companyId);
  const [fields, setFields] = useState<Fields>(initial);
  const [localError, setLocalError] = useState<string>();
  const set = (name: keyof Fields) => (value: string) => setFields((f) => ({ ...f, [name]: value }));
  const stageId = fields.stage_id || firstOpen;
  const save = useMutation({
    mutationFn: (body: DealBody) => (deal ? crmApi.updateDeal(deal.id, body) : crmApi.createDeal(body)),
    onSuccess: async (saved) => {
      queryClient.setQueryData(orgKey('crm', 'deals', saved.id), saved);
      await queryClient.invalidateQueries({ queryKey: orgKey('crm') });
      onSaved(saved);
    },
  });
  const errors = formErrors(save.error);

  function submit(event: FormEvent) {
    event.preventDefault();
    const body = bodyOf({ ...fields, stage_id: stageId }, initial, !deal);
    if (typeof body === 'string') return setLocalError(body);
    setLocalError(undefined);
    if (!deal && pipeline) body.pipeline_id = pipeline.id;
    save.mutate(body);
  }

  return (
    <form className="card crm-form" onSubmit={submit} noValidate aria-label={deal ? 'Edit deal' : 'New deal'}>
      <ErrorMessage message={errors.summary('/name', '/amount', '/currency', '/stage_id', '/expected_close_date', '/company_id')} />
      <div className="form-grid">
        <TextField label="Name" value={fields.name} onChange={set('name')} error={errors.field('/name')} required maxLength={200} />
        <TextField
          label="Amount"
          value={fields.amount}
          onChange={set('amount')}
          error={localError ?? errors.field('/amount')}
          description="In the currency's units, such as 12500.00"
        />
        <TextField label="Currency" value={fields.currency} onChange={set('currency')} error={errors.field('/currency')} maxLength={3} />
        <SelectField
          label="Stage"
          value={stageId}
          onChange={set('stage_id')}
          error={errors.field('/stage_id')}
          options={(pipeline?.stages ?? []).map((s) => ({ value: s.id, label: s.name }))}
          description={pipeline ? `In ${pipeline.name}` : undefined}
        />
        <TextField
          label="Expected close date"
          type="date"
          value={fields.expected_close_date}
          onChange={set('expected_close_date')}
          error={errors.field('/expected_close_date')}
        />
        <SelectField
          label="Company"
          value={fields.company_id}
          onChange={set('company_id')}
          error={errors.field('/company_id')}
          options={[{ value: '', label: 'No company' }, ...(companies.data ?? []).map((c) => ({ value: c.id, label: c.name }))]}
        />
      </div>
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={save.isPending || !pipeline}>
          {save.isPending ? 'Saving…' : deal ? 'Save changes' : 'Create deal'}
        </button>
        <button type="button" className="button" onClick={onCancel} disabled={save.isPending}>
          Cancel
        </button>
      </div>
    </form>
  );
}

export function NewDealPage() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const pipelineId = params.get('pipeline') ?? '';
  const companyId = params.get('company') ?? '';
  const pipelines = useQuery({ queryKey: orgKey('crm', 'pipelines'), queryFn: crmApi.pipelines });
  return (
    <div className="crm-area">
      <PageHeader title="New deal">
        <Link className="button" to="/deals">
          Back to deals
        </Link>
      </PageHeader>
      {pipelines.data ? (
        <DealForm pipelineId={pipelineId} companyId={companyId} onSaved={(d) => navigate(`/deals/${d.id}`)} onCancel={() => navigate(-1)} />
      ) : null}
    </div>
  );
}
