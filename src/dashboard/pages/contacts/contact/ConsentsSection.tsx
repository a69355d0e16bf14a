/** The contact's consent per channel scope, and recording one (a revoked consent stops sends). */
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useAllChannels } from '../../../channels.ts';
import { formatDate } from '../../../format.ts';
import { formErrors, SectionForm, SelectField, TextField } from '../../../forms.tsx';
import { orgKey } from '../../../query.ts';
import { ListState, StatusBadge, Table } from '../../../ui.tsx';
import { contactsApi, type ConsentRecord } from '../api.ts';
import { scopeName, scopeOptions } from './scopes.ts';

export function ConsentsSection({ contactId, canWrite }: { contactId: string; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const consents = useQuery({ queryKey: orgKey('contacts', contactId, 'consents'), queryFn: () => contactsApi.consents(contactId) });
  const channels = useAllChannels();
  const [channel, setChannel] = useState('all');
  const [state, setState] = useState<ConsentRecord['state']>('granted');
  const [source, setSource] = useState('');
  const save = useMutation({
    mutationFn: () => contactsApi.putConsent(contactId, channel, { state, source: source.trim() || null }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: orgKey('contacts', contactId, 'consents') });
      setSource('');
    },
  });
  const errors = formErrors(save.error);

  return (
    <section className="section card span-all" aria-labelledby="consents-title">
      <h2 id="consents-title">Consents</h2>
      <p className="small muted">A revoked consent stops sends on its channels (templates too).</p>
      <ListState items={consents.data} error={consents.error} empty={<p className="muted">No consent recorded.</p>}>
        {(items) => (
          <Table label="Consents table" caption="Consents by channel" columns={['Channel', 'Consent', 'Source', 'Recorded']}>
            {items.map((c) => (
              <tr key={c.channel}>
                <td>{scopeName(c.channel, channels.data)}</td>
                <td>
                  <StatusBadge status={c.state === 'granted' ? 'approved' : 'rejected'} label={c.state} />
                </td>
                <td>{c.source ?? '—'}</td>
                <td className="nowrap">{formatDate(c.recorded_at)}</td>
              </tr>
            ))}
          </Table>
        )}
      </ListState>
      {canWrite ? (
        <SectionForm
          label="Record consent"
          title="Record consent"
          error={errors.message}
          pending={save.isPending}
          submitLabel="Save consent"
          onSubmit={() => save.mutate()}
        >
          <SelectField
            label="Consent channel"
            value={channel}
            onChange={setChannel}
            options={scopeOptions(channels.data)}
            error={errors.field('/channel')}
          />
          <SelectField
            label="Consent"
            value={state}
            onChange={(v) => setState(v as ConsentRecord['state'])}
            options={[
              { value: 'granted', label: 'Granted' },
              { value: 'revoked', label: 'Revoked' },
            ]}
            error={errors.field('/state')}
          />
          <TextField
            label="Source"
            value={source}
            onChange={setSource}
            error={errors.field('/source')}
            placeholder="e.g. signup form"
            maxLength={200}
          />
        </SectionForm>
      ) : null}
    </section>
  );
}
