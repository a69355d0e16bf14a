/** Small pieces the broadcast pages share: a status as a badge, with the word from statuses.ts. */
import { BROADCAST_STATUS, RECIPIENT_STATUS } from './statuses.ts';
import type { BroadcastStatus, RecipientStatus } from './api.ts';

export function BroadcastBadge({ status }: { status: BroadcastStatus }) {
  const { label, tone } = BROADCAST_STATUS[status] ?? { label: status, tone: 'neutral' };
  return <span className={`badge badge-${tone}`}>{label}</span>;
}

export function RecipientBadge({ status }: { status: RecipientStatus }) {
  const { label, tone } = RECIPIENT_STATUS[status] ?? { label: status, tone: 'neutral' };
  return <span className={`badge badge-${tone}`}>{label}</span>;
}
