/**
 * Message templates: filtered by channel, status, language and category (kept in the URL), synced
 * from the provider, submitted for approval; the provider's decisions arrive live.
 */
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../api.ts';
import { SelectField, TextField } from '../../forms.tsx';
import { formatDate } from '../../format.ts';
import { orgKey, usePagedList } from '../../query.ts';
import { Link } from '../../router.tsx';
import { useCan } from '../../session.tsx';
import { EmptyState, ErrorMessage, ListState, PageHeader, Pager, StatusBadge, Table } from '../../ui.tsx';
import {
  TEMPLATE_CATEGORY_OPTIONS,
  TEMPLATE_STATUS_OPTIONS,
  templatesApi,
  type ChannelView,
  type TemplateSyncRecord,
  type TemplateFilters,
  type TemplateRecord,
} from './api.ts';
import { useTemplateChannels } from './template-channels.ts';
import { useUrlFilters } from './url-filters.ts';

export function TemplatesPage() {
  const canWrite = useCan('templates:write');
  const { values, set: setFilter } = useUrlFilters(['channel', 'status', 'language', 'category']);
  const filters: TemplateFilters = {
    channel_id: values.channel,
    status: values.status,
    language: values.language,
    category: values.category,
  };
  const channels = useTemplateChannels();
  const templates = usePagedList(orgKey('templates', 'list', filters), (cursor) => templatesApi.list(filters, cursor));
  const names = new Map((channels.all ?? []).map((c) => [c.id, c.name]));
  // The channel narrows the list down; the other filters can leave a channel's templates out.
  const filtered = Boolean(filters.status || filters.language || filters.category);

  return (
    <>
      <PageHeader
        title="Templates"
        description="Pre-approved messages for starting a conversation, or writing after the customer service window closed."
      >
        {canWrite ? (
          <Link
            className="button button-primary"
            to={filters.channel_id ? `/templates/new?channel=${encodeURIComponent(filters.channel_id)}` : '/templates/new'}
          >
            New template
          </Link>
        ) : null}
      </PageHeader>
      {canWrite && channels.channels && channels.channels.length > 0 ? (
        <SyncForm channels={channels.channels} preferred={filters.channel_id} />
      ) : null}
      <form className="filters" role="search" aria-label="Filter templates" onSubmit={(e) => e.preventDefault()}>
        <SelectField
          label="Channel"
          value={filters.channel_id ?? ''}
          onChange={(v) => setFilter('channel', v)}
          options={[{ value: '', label: 'All channels' }, ...(channels.channels ?? []).map((c) => ({ value: c.id, label: c.name }))]}
        />
        <SelectField
          label="Status"
          value={filters.status ?? ''}
          onChange={(v) => setFilter('status', v)}
          options={[{ value: '', label: 'Any status' }, ...TEMPLATE_STATUS_OPTIONS.map((s) => ({ value: s, label: s }))]}
        />
        <TextField
          label="Language"
          value={filters.language ?? ''}
          onChange={(v) => setFilter('language', v.trim())}
          placeholder="en_US"
          maxLength={10}
        />
        <SelectField
          label="Category"
          value={filters.category ?? ''}
          onChange={(v) => setFilter('category', v)}
          options={[{ value: '', label: 'Any category' }, ...TEMPLATE_CATEGORY_OPTIONS.map((c) => ({ value: c, label: c.toLowerCase() }))]}
        />
      </form>
      <ListState
        items={templates.items}
        error={templates.error}
        empty={
          <EmptyState title={filtered ? 'No templates match' : 'No templates yet'}>
            {filtered
              ? 'Try other filters.'
              : channels.channels?.length === 0
                ? 'Templates belong to official channels; add one first.'
                : 'Create one, or sync the ones your provider already has.'}
          </EmptyState>
        }
      >
        {(items) => <TemplateTable templates={items} channelNames={names} canWrite={canWrite} />}
      </ListState>
      <Pager list={templates} />
    </>
  );
}

/** Pulls a channel's templates from the provider and says what changed. */
function SyncForm({ channels, preferred }: { channels: ChannelView[]; preferred: string | undefined }) {
  const queryClient = useQueryClient();
  const [chosen, setChosen] = useState<string | undefined>(undefined);
  const channelId = chosen ?? (channels.some((c) => c.id === preferred) ? preferred : channels[0]?.id) ?? '';
  const sync = useMutation({
    mutationFn: () => templatesApi.sync(channelId),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: orgKey('templates') }),
  });
  return (
    <form
      className="sync-form"
      aria-label="Sync templates"
      onSubmit={(e) => {
        e.preventDefault();
        sync.mutate();
      }}
    >
      {channels.length > 1 ? (
        <SelectField
          label="Sync channel"
          value={channelId}
          onChange={setChosen}
          options={channels.map((c) => ({ value: c.id, label: c.name }))}
        />
      ) : null}
      <button type="submit" className="button" disabled={sync.isPending || !channelId}>
        {sync.isPending ? 'Syncing…' : channels.length > 1 ? 'Sync from provider' : `Sync ${channels[0]?.name ?? ''} from provider`}
      </button>
      <span role="status" className="small muted">
        {sync.data ? describeSync(sync.data) : ''}
      </span>
      {sync.error ? <ErrorMessage message={errorMessage(sync.error)} onDismiss={() => sync.reset()} /> : null}
    </form>
  );
}

function describeSync(result: TemplateSyncRecord): string {
  return `Synced: ${result.created} new, ${result.updated} updated, ${result.unchanged} unchanged.`;
}

function TemplateTable({
  templates,
  channelNames,
  canWrite,
}: {
  templates: TemplateRecord[];
  channelNames: Map<string, string>;
  canWrite: boolean;
}) {
  return (
    <Table
      label="Templates"
      columns={['Name', 'Channel', 'Language', 'Category', 'Status', 'Updated']}
      actions={canWrite}
      className="templates-table"
    >
      {templates.map((t) => (
        <tr key={t.id} data-template={t.name}>
          <td className="strong mono">
            {t.name}
            <div className="small muted template-preview">{bodyText(t)}</div>
          </td>
          <td>{channelNames.get(t.channel_id) ?? '—'}</td>
          <td className="mono">{t.language}</td>
          <td>{t.category.toLowerCase()}</td>
          <td>
            <StatusBadge status={t.status} />
            {t.rejection_reason ? <div className="small muted">{t.rejection_reason}</div> : null}
          </td>
          <td className="nowrap">{formatDate(t.updated_at)}</td>
          {canWrite ? (
            <td className="actions">{t.status === 'draft' || t.status === 'rejected' ? <SubmitButton template={t} /> : null}</td>
          ) : null}
        </tr>
      ))}
    </Table>
  );
}

/** The BODY component's text, to recognise a template by. */
function bodyText(t: TemplateRecord): string {
  const body = t.components.find(
    (c): c is { type: string; text?: unknown } => typeof c === 'object' && c !== null && (c as { type?: unknown }).type === 'BODY',
  );
  return typeof body?.text === 'string' ? body.text : '';
}

function SubmitButton({ template }: { template: TemplateRecord }) {
  const queryClient = useQueryClient();
  const submit = useMutation({
    mutationFn: () => templatesApi.submit(template.id),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: orgKey('templates') }),
  });
  return (
    <>
      <button
        type="button"
        className="button"
        onClick={() => submit.mutate()}
        disabled={submit.isPending}
        aria-label={`Submit ${template.name} for approval`}
      >
        {submit.isPending ? 'Submitting…' : 'Submit'}
      </button>
      {submit.error ? <div className="field-error">{errorMessage(submit.error)}</div> : null}
    </>
  );
}
