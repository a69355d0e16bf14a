/** The signed-in member's availability (online, away, offline) in the sidebar: only online members are assigned conversations automatically. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { AvailabilityRecord } from '../http/v1/teams.presenters.ts';
import { call, errorMessage } from './api.ts';
import { orgKey } from './query.ts';

const OPTIONS = [
  { value: 'online', label: 'Online' },
  { value: 'away', label: 'Away' },
  { value: 'offline', label: 'Offline' },
] as const;

export function AvailabilityToggle() {
  const client = useQueryClient();
  const key = orgKey('availability');
  const current = useQuery({
    queryKey: key,
    queryFn: () => call<{ data: AvailabilityRecord }>('GET', '/v1/me/availability').then((r) => r.data),
  });
  const change = useMutation({
    mutationFn: (availability: string) =>
      call<{ data: AvailabilityRecord }>('PUT', '/v1/me/availability', { body: { availability } }).then((r) => r.data),
    onSuccess: async (row) => {
      client.setQueryData(key, row);
      // The teams page shows each member's availability.
      await client.invalidateQueries({ queryKey: orgKey('teams') });
    },
  });
  if (!current.data) return null;
  const value = change.isPending && change.variables ? change.variables : current.data.availability;
  return (
    <div className="availability">
      <label htmlFor="availability" className={`availability-label availability-${value}`}>
        Availability
      </label>
      <select id="availability" value={value} disabled={change.isPending} onChange={(e) => change.mutate(e.target.value)}>
        {OPTIONS.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {change.error ? (
        <div className="field-error" role="alert">
          {errorMessage(change.error)}
        </div>
      ) : null}
    </div>
  );
}
