/**
 * A segment's builder: its name and its conditions (all or any of them), the count and the first 20
 * contacts of the filter as it stands (POST /v1/segments/preview, before it is saved), save, delete.
 * A saved filter with nested groups is shown as JSON: the builder makes flat ones.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../api.ts';
import { formErrors, SelectField, TextField } from '../../forms.tsx';
import { orgKey } from '../../query.ts';
import { Link, useNavigate, useParams } from '../../router.tsx';
import { useCan } from '../../session.tsx';
import { ConfirmButton, ErrorMessage, Loading, PageHeader, Table } from '../../ui.tsx';
import { contactLabel } from '../contacts/ContactsListPage.tsx';
import { listsApi, segmentsApi, type FilterGroup, type SegmentRecord } from './api.ts';
import { choiceOf, conditionOf, FIELD_CHOICES, newRow, rowsOf, type Row } from './filter-fields.ts';

export function SegmentPage() {
  const { segmentId } = useParams();
  const segment = useQuery({ queryKey: orgKey('segments', segmentId), queryFn: () => segmentsApi.get(segmentId!), enabled: !!segmentId });
  if (!segmentId) return <SegmentBuilder />;
  if (segment.error && !segment.data)
    return (
      <div className="crm-area">
        <PageHeader title="Segment">
          <BackToSegments />
        </PageHeader>
        <ErrorMessage message={errorMessage(segment.error)} />
      </div>
    );
  if (!segment.data) return <Loading />;
  return <SegmentBuilder key={segment.data.id} segment={segment.data} />;
}

function BackToSegments() {
  return (
    <Link className="button" to="/segments">
      Back to segments
    </Link>
  );
}

function SegmentBuilder({ segment }: { segment?: SegmentRecord }) {
  const canWrite = useCan('crm:write');
  const canReadContacts = useCan('contacts:read');
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const initial = segment ? rowsOf(segment.filter) : { join: 'and' as const, rows: [newRow()] };
  const [name, setName] = useState(segment?.name ?? '');
  const [join, setJoin] = useState<'and' | 'or'>(initial?.join ?? 'and');
  const [rows, setRows] = useState<Row[]>(initial?.rows ?? []);
  const nested = segment !== undefined && initial === undefined;
  const lists = useQuery({ queryKey: orgKey('lists', 'contact-choices'), queryFn: () => listsApi.list() });
  const contactLists = (lists.data?.data ?? []).filter((l) => l.kind === 'contact');

  const filter = (): FilterGroup => {
    if (nested) return segment!.filter as FilterGroup;
    const conditions = rows.map(conditionOf);
    return join === 'and' ? { and: conditions } : { or: conditions };
  };
  const preview = useMutation({ mutationFn: () => segmentsApi.preview(filter()) });
  const save = useMutation({
    mutationFn: () =>
      segment
        ? segmentsApi.update(segment.id, { name: name.trim(), filter: filter() })
        : segmentsApi.create({ name: name.trim(), filter: filter() }),
    onSuccess: async (saved) => {
      queryClient.setQueryData(orgKey('segments', saved.id), saved);
      await queryClient.invalidateQueries({ queryKey: orgKey('segments') });
      if (!segment) navigate(`/segments/${saved.id}`);
    },
  });
  const remove = useMutation({
    mutationFn: () => segmentsApi.remove(segment!.id),
    onSuccess: () => {
      // The list is fetched afresh; this page's own query is left alone, so nothing asks for the segment that is gone.
      queryClient.removeQueries({ queryKey: orgKey('segments'), predicate: (q) => q.queryKey[3] !== segment!.id });
      navigate('/segments');
    },
  });
  const errors = formErrors(save.error);
  const update = (i: number, change: Partial<Row>) =>
    setRows((all) =>
      all.map((row, j) => {
        if (j !== i) return row;
        if (change.field && change.field !== row.field) return newRow(change.field);
        const next = { ...row, ...change };
        if (change.op) {
          const kind = choiceOf(next.field).ops.find((o) => o.value === change.op)?.kind;
          if (kind === 'yesno') next.value = 'true';
        }
        return next;
      }),
    );

  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate();
  }

  return (
    <div className="crm-area">
      <PageHeader title={segment ? segment.name : 'New segment'} description="The contacts a filter finds, counted as they are now.">
        <BackToSegments />
      </PageHeader>
      <form className="card segment-builder" onSubmit={submit} noValidate aria-label={segment ? 'Edit segment' : 'New segment'}>
        <ErrorMessage message={errors.summary('/name')} />
        <TextField
          label="Segment name"
          value={name}
          onChange={setName}
          error={errors.field('/name')}
          maxLength={200}
          placeholder="e.g. Engaged VIPs"
        />
        {nested ? (
          <div className="field">
            <p className="small">This filter nests groups, which the builder does not edit; change it through the API.</p>
            <pre className="mono small">{JSON.stringify(segment!.filter, null, 2)}</pre>
          </div>
        ) : (
          <fieldset className="field-group">
            <legend>Conditions</legend>
            <SelectField
              label="Contacts matching"
              value={join}
              onChange={(v) => setJoin(v === 'or' ? 'or' : 'and')}
              options={[
                { value: 'and', label: 'all of these conditions' },
                { value: 'or', label: 'any of these conditions' },
              ]}
            />
            <ol className="condition-rows">
              {rows.map((row, i) => {
                const choice = choiceOf(row.field);
                const op = choice.ops.find((o) => o.value === row.op) ?? choice.ops[0]!;
                const n = i + 1;
                return (
                  <li key={i} className="filter-bar condition-row" aria-label={`Condition ${n}`}>
                    <SelectField
                      label={`Field ${n}`}
                      value={row.field}
                      onChange={(field) => update(i, { field })}
                      options={FIELD_CHOICES.map((c) => ({ value: c.value, label: c.label }))}
                    />
                    {choice.keyed ? (
                      <TextField
                        label={`${choice.keyed.label} ${n}`}
                        value={row.key}
                        onChange={(key) => update(i, { key })}
                        placeholder={choice.keyed.placeholder}
                        maxLength={100}
                      />
                    ) : null}
                    <SelectField
                      label={`Operator ${n}`}
                      value={row.op}
                      onChange={(value) => update(i, { op: value })}
                      options={choice.ops.map((o) => ({ value: o.value, label: o.label }))}
                    />
                    <ValueInput n={n} kind={op.kind} value={row.value} onChange={(value) => update(i, { value })} lists={contactLists} />
                    <button
                      type="button"
                      className="button"
                      aria-label={`Remove condition ${n}`}
                      onClick={() => setRows((all) => all.filter((_, j) => j !== i))}
                    >
                      Remove
                    </button>
                  </li>
                );
              })}
            </ol>
            <button type="button" className="button" onClick={() => setRows((all) => [...all, newRow()])}>
              Add condition
            </button>
          </fieldset>
        )}
        <div className="form-actions">
          {canReadContacts ? (
            <button type="button" className="button" disabled={preview.isPending} onClick={() => preview.mutate()}>
              {preview.isPending ? 'Counting…' : 'Preview'}
            </button>
          ) : null}
          {canWrite ? (
            <button type="submit" className="button button-primary" disabled={save.isPending}>
              {save.isPending ? 'Saving…' : segment ? 'Save changes' : 'Save segment'}
            </button>
          ) : null}
        </div>
        {save.isSuccess ? (
          <p className="small" role="status">
            Saved.
          </p>
        ) : null}
      </form>
      <section className="section" aria-labelledby="preview-title">
        <h2 id="preview-title">Preview</h2>
        <ErrorMessage message={preview.error ? errorMessage(preview.error) : undefined} />
        {preview.data ? (
          <>
            <p role="status" className="segment-count">
              {preview.data.count.toLocaleString()} {preview.data.count === 1 ? 'contact matches' : 'contacts match'}
            </p>
            {preview.data.contacts.length ? (
              <Table
                label="Preview of the matching contacts"
                caption="The newest 20 matching contacts"
                columns={['Name', 'Phone number', 'Tags']}
                className="preview-table"
              >
                {preview.data.contacts.map((c) => (
                  <tr key={c.id}>
                    <td className="strong">
                      <Link to={`/contacts/${c.id}`}>{contactLabel(c)}</Link>
                    </td>
                    <td className="mono nowrap">{c.phone_number ?? '—'}</td>
                    <td>{c.tags.join(', ') || '—'}</td>
                  </tr>
                ))}
              </Table>
            ) : null}
          </>
        ) : (
          <p className="small muted">Preview shows how many contacts the conditions find now, and the newest 20 of them.</p>
        )}
      </section>
      {segment && canWrite ? (
        <section className="section" aria-labelledby="delete-segment-title">
          <h2 id="delete-segment-title">Delete this segment</h2>
          <p className="small muted">Its contacts stay; only the saved filter goes.</p>
          <ConfirmButton
            label="Delete segment"
            confirmLabel="Delete"
            question="Delete this segment?"
            busy={remove.isPending}
            onConfirm={() => remove.mutate()}
          />
          <ErrorMessage message={remove.error ? errorMessage(remove.error) : undefined} />
        </section>
      ) : null}
    </div>
  );
}

function ValueInput({
  n,
  kind,
  value,
  onChange,
  lists,
}: {
  n: number;
  kind: string;
  value: string;
  onChange(value: string): void;
  lists: Array<{ id: string; name: string }>;
}) {
  switch (kind) {
    case 'yesno':
      return (
        <SelectField
          label={`Value ${n}`}
          value={value === 'false' ? 'false' : 'true'}
          onChange={onChange}
          options={[
            { value: 'true', label: 'yes' },
            { value: 'false', label: 'no' },
          ]}
        />
      );
    case 'consent':
      return (
        <SelectField
          label={`Value ${n}`}
          value={value || 'granted'}
          onChange={onChange}
          options={[
            { value: 'granted', label: 'granted' },
            { value: 'revoked', label: 'revoked' },
          ]}
        />
      );
    case 'list':
      return (
        <SelectField
          label={`Value ${n}`}
          value={value}
          onChange={onChange}
          options={[{ value: '', label: 'Choose a list' }, ...lists.map((l) => ({ value: l.id, label: l.name }))]}
        />
      );
    case 'duration':
      return <TextField label={`Days ${n}`} type="number" value={value} onChange={onChange} placeholder="30" />;
    case 'time':
      return <TextField label={`Time ${n}`} type="datetime-local" value={value} onChange={onChange} />;
    default:
      return <TextField label={`Value ${n}`} value={value} onChange={onChange} maxLength={500} />;
  }
}
