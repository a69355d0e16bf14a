/** The contact's suppressions per channel scope: suppress (until a time, or until lifted), lift one. */
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../../api.ts';
import { useAllChannels } from '../../../channels.ts';
import { formatDate } from '../../../format.ts';
import { formErrors, SectionForm, SelectField, TextField } from '../../../forms.tsx';
import { orgKey } from '../../../query.ts';
import { ErrorMessage, ListState, StatusBadge, Table } from '../../../ui.tsx';
import { contactsApi } from '../api.ts';
import { scopeName, scopeOptions } from './scopes.ts';

/** A datetime-local value ("2025-06-01T09:30", the browser's time zone) as an ISO timestamp. */
function isoFromLocal(value: string): string | null {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}

export function SuppressionsSection({ contactId, canWrite }: { contactId: string; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const key = orgKey('contacts', contactId, 'suppressions');
  const suppressions = useQuery({ queryKey: key, queryFn: () => contactsApi.suppressions(contactId) });
  const channels = useAllChannels();
  const [channel, setChannel] = useState('all');
  const [reason, setReason] = useState('');
  const [expires, setExpires] = useState('');
  const save = useMutation({
    mutationFn: () => contactsApi.suppress(contactId, { channel, reason: reason.trim(), expires_at: isoFromLocal(expires) }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: key });
      setReason('');
      setExpires('');
    },
  });
  const errors = formErrors(save.error);
  const lift = useMutation({
    mutationFn: (scope: string) => contactsApi.lift(contactId, scope),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: key }),
  });

  return (
    <section className="section card span-all" aria-labelledby="suppressions-title">
      <h2 id="suppressions-title">Suppressions</h2>
      <p className="small muted">No message is sent on a suppressed channel until the suppression is lifted or expires.</p>
      <ErrorMessage message={lift.error ? errorMessage(lift.error) : undefined} onDismiss={() => lift.reset()} />
      <ListState items={suppressions.data} error={suppressions.error} empty={<p className="muted">Not suppressed anywhere.</p>}>
        {(items) => (
          <Table
            label="Suppressions table"
            caption="Suppressions by channel"
            columns={['Channel', 'Reason', 'Expires', 'State']}
            actions={canWrite}
          >
            {items.map((s) => (
              <tr key={s.channel}>
                <td>{scopeName(s.channel, channels.data)}</td>
                <td>{s.reason}</td>
                <td className="nowrap">{formatDate(s.expires_at, 'Until lifted')}</td>
                <td>{s.active ? <StatusBadge status="active" /> : <StatusBadge status="closed" label="lapsed" />}</td>
                {canWrite ? (
                  <td className="actions">
                    <button
                      type="button"
                      className="button button-danger-outline"
                      disabled={lift.isPending}
                      onClick={() => lift.mutate(s.channel)}
                      aria-label={`Lift suppression on ${scopeName(s.channel, channels.data)}`}
                    >
                      Lift
                    </button>
                  </td>
                ) : null}
              </tr>
            ))}
          </Table>
        )}
      </ListState>
      {canWrite ? (
        <SectionForm
          label="Suppress"
          title="Suppress sending"
          error={errors.message}
          pending={save.isPending}
          submitLabel="Suppress"
          onSubmit={() => save.mutate()}
        >
          <SelectField
            label="Suppression channel"
            value={channel}
            onChange={setChannel}
            options={scopeOptions(channels.data, { marketing: true })}
            error={errors.field('/channel')}
          />
          <TextField
            label="Reason"
            value={reason}
            onChange={setReason}
            error={errors.field('/reason')}
            placeholder="e.g. asked for a pause"
            maxLength={500}
          />
          <TextField
            label="Expires"
            type="datetime-local"
            value={expires}
            onChange={setExpires}
            error={errors.field('/expires_at')}
            description="Leave empty to keep it until lifted"
          />
        </SectionForm>
      ) : null}
    </section>
  );
}
