/**
 * One broadcast: its settings, its state live (asked again every 2 s while scheduled or sending, and on
 * the broadcast events of the live stream), the actions its state and the member's role allow, the
 * report (a chart with the same numbers in a table) and the recipients by status, paged, with a CSV export.
 */
import { lazy, Suspense } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../api.ts';
import { useAllChannels } from '../../channels.ts';
import { SelectField } from '../../forms.tsx';
import { formatDate } from '../../format.ts';
import { orgKey, usePagedList } from '../../query.ts';
import { Link, useNavigate, useParams } from '../../router.tsx';
import { useCan } from '../../session.tsx';
import { ConfirmButton, EmptyState, ErrorMessage, ListState, Loading, PageHeader, Pager, Table } from '../../ui.tsx';
import { useUrlFilters } from '../channels/url-filters.ts';
import { Details } from '../crm/parts.tsx';
import { broadcastsApi, downloadRecipientsCsv, type BroadcastAction, type BroadcastRecord, type BroadcastStatus } from './api.ts';
import { describeAudience } from './BroadcastForm.tsx';
import { BroadcastBadge, RecipientBadge } from './parts.tsx';
import { ACTIVE_STATUSES, RECIPIENT_STATUS, recipientStatuses, skipReasonLabel } from './statuses.ts';

const ReportChart = lazy(() => import('./ReportChart.tsx'));

/** The buttons each state offers (stop is asked once more: it cannot be undone). */
const ACTIONS: Record<BroadcastStatus, BroadcastAction[]> = {
  draft: ['schedule'],
  scheduled: ['cancel', 'stop'],
  sending: ['pause', 'stop'],
  paused: ['resume', 'stop'],
  completed: [],
  stopped: [],
  failed: [],
};

const ACTION_LABEL: Record<BroadcastAction, string> = {
  schedule: 'Schedule',
  cancel: 'Cancel schedule',
  pause: 'Pause',
  resume: 'Resume',
  stop: 'Stop',
};

/**
 * How often the page asks again: often while it changes by itself (sending, or completed with messages
 * the provider has not taken yet), now and then after (deliveries and reads arrive later).
 */
const refreshEvery = (status: BroadcastStatus | undefined, pending = false) =>
  status && (ACTIVE_STATUSES.has(status) || (status === 'completed' && pending)) ? 2_000 : 15_000;

export function BroadcastPage() {
  const { broadcastId = '' } = useParams();
  const broadcast = useQuery({
    queryKey: orgKey('broadcasts', broadcastId),
    queryFn: () => broadcastsApi.get(broadcastId),
    refetchInterval: (q) => refreshEvery(q.state.data?.status),
  });
  if (broadcast.error && !broadcast.data) {
    return (
      <>
        <PageHeader title="Broadcast">
          <BackLink />
        </PageHeader>
        <ErrorMessage message={errorMessage(broadcast.error)} />
      </>
    );
  }
  if (!broadcast.data) return <Loading />;
  return <BroadcastView broadcast={broadcast.data} />;
}

function BackLink() {
  return (
    <Link className="button" to="/broadcasts">
      Back to broadcasts
    </Link>
  );
}

function BroadcastView({ broadcast: b }: { broadcast: BroadcastRecord }) {
  const canSend = useCan('messages:send');
  const channels = useAllChannels();
  const channel = channels.data?.find((c) => c.id === b.channel_id);
  return (
    <div className="broadcast-page">
      <PageHeader
        title={b.name}
        description={
          <>
            <BroadcastBadge status={b.status} /> <span className="small muted">created {formatDate(b.created_at)}</span>
          </>
        }
      >
        <BackLink />
        {canSend && b.status === 'draft' ? (
          <Link className="button" to={`/broadcasts/${b.id}/edit`}>
            Edit
          </Link>
        ) : null}
      </PageHeader>
      {canSend ? <Actions broadcast={b} /> : null}
      {b.failure_reason ? (
        <p className="alert alert-error" role="alert">
          Sending stopped: {b.failure_reason}
        </p>
      ) : null}
      <Details
        id="broadcast-details"
        title="Settings"
        pairs={[
          ['Channel', channel ? <Link to={`/channels/${channel.id}`}>{channel.name}</Link> : '—'],
          ['Template', `${b.template.name} (${b.template.language})`],
          ['Variables', b.template.variables.length ? b.template.variables.join(' · ') : 'none'],
          ['Audience', describeAudience(b.audience)],
          ['Send', b.send_at ? formatDate(b.send_at) : 'As soon as it is scheduled'],
          ['Pace', b.per_minute ? `${b.per_minute.toLocaleString()} a minute` : "The channel's own"],
          ['Marketing consent', b.require_consent ? 'Required' : 'Not required'],
          ['Started', formatDate(b.started_at)],
          ['Finished', formatDate(b.finished_at)],
        ]}
      />
      {b.status === 'draft' ? (
        <p className="muted">Nothing is sent until it is scheduled; its report and recipients appear when sending starts.</p>
      ) : (
        <>
          <Report broadcast={b} />
          <Recipients broadcast={b} />
        </>
      )}
    </div>
  );
}

function Actions({ broadcast: b }: { broadcast: BroadcastRecord }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const act = useMutation({
    mutationFn: (action: BroadcastAction) => broadcastsApi.act(b.id, action),
    onSuccess: (row) => {
      queryClient.setQueryData(orgKey('broadcasts', row.id), row);
      void queryClient.invalidateQueries({ queryKey: orgKey('broadcasts') });
    },
  });
  const remove = useMutation({
    mutationFn: () => broadcastsApi.remove(b.id),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: orgKey('broadcasts', b.id) });
      void queryClient.invalidateQueries({ queryKey: orgKey('broadcasts', 'list') });
      navigate('/broadcasts');
    },
  });
  const actions = ACTIONS[b.status] ?? [];
  if (actions.length === 0 && b.status !== 'draft') return null;
  return (
    <section className="section broadcast-actions" aria-label="Actions">
      <div className="form-actions">
        {actions.map((action) =>
          action === 'stop' ? (
            <ConfirmButton
              key={action}
              label="Stop"
              confirmLabel="Stop for good"
              question="Stop it? The recipients not sent yet are never sent."
              busy={act.isPending}
              onConfirm={() => act.mutate('stop')}
            />
          ) : (
            <button
              key={action}
              type="button"
              className={action === 'schedule' || action === 'resume' ? 'button button-primary' : 'button'}
              disabled={act.isPending}
              onClick={() => act.mutate(action)}
            >
              {act.isPending && act.variables === action ? 'Working…' : ACTION_LABEL[action]}
            </button>
          ),
        )}
        {b.status === 'draft' ? (
          <ConfirmButton
            label="Delete draft"
            confirmLabel="Delete"
            question="Delete this draft?"
            busy={remove.isPending}
            onConfirm={() => remove.mutate()}
          />
        ) : null}
      </div>
      <ErrorMessage message={act.error ? errorMessage(act.error) : remove.error ? errorMessage(remove.error) : undefined} />
    </section>
  );
}

function Report({ broadcast: b }: { broadcast: BroadcastRecord }) {
  const report = useQuery({
    queryKey: orgKey('broadcasts', b.id, 'report'),
    queryFn: () => broadcastsApi.report(b.id),
    refetchInterval: (q) => refreshEvery(b.status, (q.state.data?.by_status.pending ?? 0) > 0),
  });
  const data = report.data;
  const total = data?.recipients ?? 0;
  const rows = recipientStatuses.map((s) => ({
    status: s,
    label: RECIPIENT_STATUS[s].label,
    tone: RECIPIENT_STATUS[s].tone,
    value: data?.by_status[s] ?? 0,
  }));
  const share = (n: number) => (total === 0 ? '—' : `${Math.round((n / total) * 1000) / 10}%`);
  const summary = `Recipients by status: ${rows.map((r) => `${r.label.toLowerCase()} ${r.value.toLocaleString()}`).join(', ')}.`;
  const skipped = Object.entries(data?.skipped ?? {}).filter(([, n]) => n > 0);
  return (
    <section className="section card" aria-labelledby="broadcast-report">
      <h2 id="broadcast-report">Report</h2>
      {report.error && !data ? <ErrorMessage message={errorMessage(report.error)} /> : null}
      {!data ? (
        <Loading />
      ) : total === 0 ? (
        <p className="muted">{b.status === 'scheduled' ? 'Sending has not started yet.' : 'No recipients.'}</p>
      ) : (
        <>
          <p role="status" className="strong">
            {total.toLocaleString()} recipients: {(data.by_status.pending ?? 0).toLocaleString()} not sent yet.
          </p>
          <div className="report-grid">
            <Suspense fallback={<Loading label="Loading the chart…" />}>
              <ReportChart rows={rows} label={summary} />
            </Suspense>
            <Table
              label="Recipients by status"
              caption="Recipients by status, with their share of all"
              columns={['Status', 'Recipients', 'Share']}
            >
              {rows.map((r) => (
                <tr key={r.status}>
                  <th scope="row">{r.label}</th>
                  <td data-label="Recipients">{r.value.toLocaleString()}</td>
                  <td data-label="Share">{share(r.value)}</td>
                </tr>
              ))}
            </Table>
          </div>
          {skipped.length > 0 ? (
            <Table label="Skipped by reason" caption="Skipped recipients by reason" columns={['Reason', 'Recipients']}>
              {skipped.map(([reason, n]) => (
                <tr key={reason}>
                  <th scope="row">{skipReasonLabel(reason)}</th>
                  <td data-label="Recipients">{n.toLocaleString()}</td>
                </tr>
              ))}
            </Table>
          ) : null}
        </>
      )}
    </section>
  );
}

function Recipients({ broadcast: b }: { broadcast: BroadcastRecord }) {
  const { values, set } = useUrlFilters(['status']);
  const status = values.status;
  const list = usePagedList(
    orgKey('broadcasts', b.id, 'recipients', status ?? 'all'),
    (cursor) => broadcastsApi.recipients(b.id, status, cursor),
    {
      refreshWhile: (items) =>
        refreshEvery(
          b.status,
          items.some((r) => r.status === 'pending'),
        ),
    },
  );
  const csv = useMutation({ mutationFn: () => downloadRecipientsCsv(b.id, status, `broadcast-${b.id}-recipients.csv`) });
  return (
    <section className="section card" aria-labelledby="broadcast-recipients">
      <h2 id="broadcast-recipients">Recipients</h2>
      <div className="filters">
        <SelectField
          label="Recipient status"
          value={status ?? ''}
          onChange={(v) => set('status', v)}
          options={[{ value: '', label: 'Any status' }, ...recipientStatuses.map((s) => ({ value: s, label: RECIPIENT_STATUS[s].label }))]}
        />
        <div className="field">
          <button type="button" className="button" disabled={csv.isPending} onClick={() => csv.mutate()}>
            {csv.isPending ? 'Exporting…' : 'Export CSV'}
          </button>
        </div>
      </div>
      <ErrorMessage message={csv.error ? errorMessage(csv.error) : undefined} />
      <ListState
        items={list.items}
        error={list.error}
        empty={
          <EmptyState title={status ? 'No recipients with this status' : 'No recipients yet'}>
            {status ? 'Try another status.' : 'They appear when sending starts.'}
          </EmptyState>
        }
      >
        {(items) => (
          <Table label="Recipient list" caption="Recipients, in send order" columns={['Recipient', 'Status', 'Reason or error', 'Updated']}>
            {items.map((r) => (
              <tr key={r.id} data-recipient-id={r.id}>
                <td className="strong">
                  {r.contact_id ? (
                    <Link to={`/contacts/${r.contact_id}`}>{r.phone ?? 'a contact without a number'}</Link>
                  ) : (
                    (r.phone ?? '—')
                  )}
                </td>
                <td data-label="Status">
                  <RecipientBadge status={r.status} />
                </td>
                <td data-label="Reason or error">
                  {r.reason ? skipReasonLabel(r.reason) : ''}
                  {r.error_code ? ` (code ${r.error_code})` : ''}
                </td>
                <td className="nowrap" data-label="Updated">
                  {formatDate(r.updated_at)}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </ListState>
      <Pager list={list} />
    </section>
  );
}
