/**
 * Automation rules (docs/automations.md): the rules with their trigger and whether they are on; an
 * editor for one (name, trigger, conditions and actions, each a kind and its fields); a rule's run log.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../api.ts';
import { formatDate } from '../../format.ts';
import { CheckboxField, formErrors, SelectField, TextField } from '../../forms.tsx';
import { orgKey, usePagedList } from '../../query.ts';
import { useCan } from '../../session.tsx';
import { EmptyState, ErrorMessage, ListState, PageHeader, Pager, StatusBadge } from '../../ui.tsx';
import { settingsApi, type AutomationInput, type AutomationRuleRecord } from './api.ts';
import { ConfirmButton, Table, useRowAction } from './parts.tsx';

type Field = { name: string; label: string; kind?: 'text' | 'number' | 'json' | 'ids'; options?: string[] };
/** Each condition's and action's fields, as the editor shows them. */
const CONDITIONS: Record<string, Field[]> = {
  message: [
    { name: 'op', label: 'Operator', options: ['contains', 'equals', 'starts_with', 'regex'] },
    { name: 'value', label: 'Text or pattern' },
  ],
  business_hours: [{ name: 'value', label: 'Hours', options: ['open', 'closed'] }],
  channel: [{ name: 'channel_ids', label: 'Channel ids (comma-separated)', kind: 'ids' }],
  labels: [
    { name: 'op', label: 'Operator', options: ['has_any', 'has_all', 'has_none'] },
    { name: 'label_ids', label: 'Label ids (comma-separated)', kind: 'ids' },
  ],
  contact: [{ name: 'filter', label: 'Segment filter (JSON)', kind: 'json' }],
};
const ACTIONS: Record<string, Field[]> = {
  send_text: [{ name: 'text', label: 'Text' }],
  send_template: [{ name: 'template', label: 'Template (JSON: name, language)', kind: 'json' }],
  send_canned_response: [{ name: 'canned_response_id', label: 'Canned response id' }],
  add_label: [{ name: 'label_id', label: 'Label id' }],
  assign: [{ name: 'user_id', label: 'Member id (empty: unassign)' }],
  set_status: [{ name: 'status', label: 'Status', options: ['open', 'pending', 'snoozed', 'resolved'] }],
  set_contact_field: [
    { name: 'field', label: 'Field (name, email, custom_fields.key)' },
    { name: 'value', label: 'Value' },
  ],
  add_to_list: [{ name: 'list_id', label: 'List id' }],
  create_task: [
    { name: 'title', label: 'Task title' },
    { name: 'due_in_minutes', label: 'Due in minutes', kind: 'number' },
  ],
  move_deal: [{ name: 'stage_id', label: 'Stage id' }],
  call_webhook: [{ name: 'url', label: 'URL' }],
  start_bot: [],
};
const TRIGGERS = ['message_received', 'conversation_created', 'status_changed', 'label_added', 'no_reply', 'broadcast_reply'];
const label = (s: string) => s.replaceAll('_', ' ');

/** An item as edited: its kind and each field as text. */
type Item = { kind: string; values: Record<string, string> };
type Draft = { name: string; enabled: boolean; trigger: string; minutes: string; conditions: Item[]; actions: Item[] };

const toText = (v: unknown) =>
  v === undefined || v === null ? '' : Array.isArray(v) ? v.join(', ') : typeof v === 'object' ? JSON.stringify(v) : String(v);
function itemOf(record: Record<string, unknown>, key: 'kind' | 'type', specs: Record<string, Field[]>): Item {
  const kind = String(record[key]);
  return { kind, values: Object.fromEntries((specs[kind] ?? []).map((f) => [f.name, toText(record[f.name])])) };
}
function fromItem(item: Item, key: 'kind' | 'type', specs: Record<string, Field[]>): Record<string, unknown> {
  const out: Record<string, unknown> = { [key]: item.kind };
  for (const f of specs[item.kind] ?? []) {
    const v = item.values[f.name] ?? '';
    if (f.kind === 'ids')
      out[f.name] = v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    else if (f.kind === 'json') out[f.name] = v.trim() ? (JSON.parse(v) as unknown) : {};
    else if (f.kind === 'number') {
      if (v.trim()) out[f.name] = Number(v);
    } else if (f.name === 'user_id') out[f.name] = v.trim() || null;
    else if (v !== '' || !f.options) out[f.name] = v;
    else out[f.name] = f.options[0];
  }
  return out;
}
function draftOf(rule: AutomationRuleRecord | null): Draft {
  if (!rule)
    return {
      name: '',
      enabled: true,
      trigger: 'message_received',
      minutes: '30',
      conditions: [],
      actions: [{ kind: 'send_text', values: { text: '' } }],
    };
  return {
    name: rule.name,
    enabled: rule.enabled,
    trigger: rule.trigger.type,
    minutes: String(rule.trigger.minutes ?? 30),
    conditions: rule.conditions.map((c) => itemOf(c as Record<string, unknown>, 'kind', CONDITIONS)),
    actions: rule.actions.map((a) => itemOf(a as Record<string, unknown>, 'type', ACTIONS)),
  };
}

function ItemsEditor({
  legend,
  items,
  specs,
  onChange,
}: {
  legend: string;
  items: Item[];
  specs: Record<string, Field[]>;
  onChange(items: Item[]): void;
}) {
  const set = (i: number, item: Item) => onChange(items.map((x, j) => (j === i ? item : x)));
  const first = Object.keys(specs)[0]!;
  return (
    <fieldset className="fieldset">
      <legend>{legend}</legend>
      {items.map((item, i) => (
        <div key={i} className="form-grid" role="group" aria-label={`${legend} ${i + 1}`}>
          <SelectField
            label={`${legend.replace(/s$/, '')} ${i + 1}`}
            value={item.kind}
            onChange={(kind) => set(i, { kind, values: {} })}
            options={Object.keys(specs).map((k) => ({ value: k, label: label(k) }))}
          />
          {(specs[item.kind] ?? []).map((f) =>
            f.options ? (
              <SelectField
                key={f.name}
                label={f.label}
                value={item.values[f.name] || f.options[0]!}
                onChange={(v) => set(i, { ...item, values: { ...item.values, [f.name]: v } })}
                options={f.options.map((o) => ({ value: o, label: label(o) }))}
              />
            ) : (
              <TextField
                key={f.name}
                label={f.label}
                value={item.values[f.name] ?? ''}
                onChange={(v) => set(i, { ...item, values: { ...item.values, [f.name]: v } })}
              />
            ),
          )}
          <div className="form-actions">
            <button type="button" className="button" onClick={() => onChange(items.filter((_, j) => j !== i))}>
              Remove {legend.replace(/s$/, '').toLowerCase()} {i + 1}
            </button>
          </div>
        </div>
      ))}
      <button type="button" className="button" onClick={() => onChange([...items, { kind: first, values: {} }])}>
        Add {legend.replace(/s$/, '').toLowerCase()}
      </button>
    </fieldset>
  );
}

function RuleEditor({ rule, onDone }: { rule: AutomationRuleRecord | null; onDone(): void }) {
  const client = useQueryClient();
  const [draft, setDraft] = useState<Draft>(() => draftOf(rule));
  const [local, setLocal] = useState<string>();
  const save = useMutation({
    mutationFn: (input: AutomationInput) => (rule ? settingsApi.updateAutomation(rule.id, input) : settingsApi.createAutomation(input)),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: orgKey('automations') });
      onDone();
    },
  });
  const errors = formErrors(save.error);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setLocal(undefined);
    try {
      save.mutate({
        name: draft.name,
        enabled: draft.enabled,
        trigger:
          draft.trigger === 'no_reply'
            ? { type: 'no_reply', minutes: Number(draft.minutes) }
            : { type: draft.trigger as 'message_received' },
        conditions: draft.conditions.map((c) => fromItem(c, 'kind', CONDITIONS)) as AutomationInput['conditions'],
        actions: draft.actions.map((a) => fromItem(a, 'type', ACTIONS)) as AutomationInput['actions'],
      });
    } catch (err) {
      setLocal(`A JSON field is not valid JSON: ${(err as Error).message}`);
    }
  };
  return (
    <section className="card" aria-labelledby="rule-editor-title">
      <h2 id="rule-editor-title">{rule ? `Edit ${rule.name}` : 'New rule'}</h2>
      <form onSubmit={submit} noValidate>
        <ErrorMessage message={local ?? errors.summary('/name')} />
        <div className="form-grid">
          <TextField
            label="Name"
            value={draft.name}
            onChange={(name) => setDraft({ ...draft, name })}
            error={errors.field('/name')}
            required
          />
          <SelectField
            label="Trigger"
            value={draft.trigger}
            onChange={(trigger) => setDraft({ ...draft, trigger })}
            options={TRIGGERS.map((t) => ({ value: t, label: label(t) }))}
          />
          {draft.trigger === 'no_reply' ? (
            <TextField
              label="Minutes without a reply"
              type="number"
              value={draft.minutes}
              onChange={(minutes) => setDraft({ ...draft, minutes })}
            />
          ) : null}
          <CheckboxField label="Enabled" checked={draft.enabled} onChange={(enabled) => setDraft({ ...draft, enabled })} />
        </div>
        <ItemsEditor
          legend="Conditions"
          items={draft.conditions}
          specs={CONDITIONS}
          onChange={(conditions) => setDraft({ ...draft, conditions })}
        />
        <ItemsEditor legend="Actions" items={draft.actions} specs={ACTIONS} onChange={(actions) => setDraft({ ...draft, actions })} />
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save rule'}
          </button>
          <button type="button" className="button" onClick={onDone}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}

function RunLog({ rule }: { rule: AutomationRuleRecord }) {
  const runs = usePagedList(orgKey('automations', rule.id, 'runs'), settingsApi.automationRuns(rule.id));
  return (
    <section className="card" aria-labelledby="run-log-title">
      <h2 id="run-log-title">Run log of {rule.name}</h2>
      <ListState items={runs.items} error={runs.error} empty={<EmptyState title="No runs yet" />}>
        {(items) => (
          <>
            <Table label={`Runs of ${rule.name}`} columns={['When', 'Trigger', 'Conditions', 'Actions']}>
              {items.map((r) => (
                <tr key={r.id}>
                  <td className="nowrap">{formatDate(r.created_at)}</td>
                  <td>{label(r.trigger)}</td>
                  <td>{r.matched === null ? '…' : r.matched ? 'Matched' : 'Not matched'}</td>
                  <td className="small">
                    {r.actions.map((a) => `${label(a.type)}: ${a.status}${a.detail ? ` (${a.detail})` : ''}`).join('; ') || '—'}
                  </td>
                </tr>
              ))}
            </Table>
            <Pager list={runs} />
          </>
        )}
      </ListState>
    </section>
  );
}

export function AutomationsPage() {
  const canWrite = useCan('automations:write');
  const rules = usePagedList(orgKey('automations'), settingsApi.automations);
  const remove = useRowAction(orgKey('automations'), settingsApi.deleteAutomation);
  const [editing, setEditing] = useState<AutomationRuleRecord | 'new' | null>(null);
  const [viewing, setViewing] = useState<AutomationRuleRecord | null>(null);
  return (
    <>
      <PageHeader title="Automations" description="Rules that act on conversations when something happens: a trigger, conditions, actions.">
        {canWrite ? (
          <button type="button" className="button button-primary" onClick={() => setEditing('new')}>
            New rule
          </button>
        ) : null}
      </PageHeader>
      <ErrorMessage message={remove.error ? errorMessage(remove.error) : undefined} />
      {editing ? (
        <RuleEditor
          key={editing === 'new' ? 'new' : editing.id}
          rule={editing === 'new' ? null : editing}
          onDone={() => setEditing(null)}
        />
      ) : null}
      <ListState items={rules.items} error={rules.error} empty={<EmptyState title="No automation rules" />}>
        {(items) => (
          <>
            <Table label="Automation rules" columns={['Name', 'Trigger', 'Conditions', 'Actions', 'State']} actions={true}>
              {items.map((r) => (
                <tr key={r.id}>
                  <td className="strong">{r.name}</td>
                  <td>{label(r.trigger.type)}</td>
                  <td>{r.conditions.length}</td>
                  <td>{r.actions.map((a) => label(a.type)).join(', ')}</td>
                  <td>
                    <StatusBadge status={r.enabled ? 'enabled' : 'disabled'} />
                  </td>
                  <td className="actions">
                    <button type="button" className="button" aria-label={`Runs of ${r.name}`} onClick={() => setViewing(r)}>
                      Runs
                    </button>
                    {canWrite ? (
                      <>
                        <button type="button" className="button" aria-label={`Edit ${r.name}`} onClick={() => setEditing(r)}>
                          Edit
                        </button>
                        <ConfirmButton
                          label="Delete"
                          confirmLabel="Delete rule"
                          question="Delete this rule and its run log?"
                          name={r.name}
                          busy={remove.isPending}
                          onConfirm={() => remove.mutate(r.id)}
                        />
                      </>
                    ) : null}
                  </td>
                </tr>
              ))}
            </Table>
            <Pager list={rules} />
          </>
        )}
      </ListState>
      {viewing ? <RunLog key={viewing.id} rule={viewing} /> : null}
    </>
  );
}
