/**
 * The words the broadcast pages show for statuses and skip reasons, in one place. The maps are typed by
 * the server's own status lists, so a status the API adds (deferred, replied) fails the typecheck here
 * until it has its label; the order of each map is the order filters and the report show them in.
 */
import type { Tone } from '../../format.ts';
import type { BroadcastStatus, RecipientStatus } from './api.ts';

export const BROADCAST_STATUS: Record<BroadcastStatus, { label: string; tone: Tone }> = {
  draft: { label: 'Draft', tone: 'neutral' },
  scheduled: { label: 'Scheduled', tone: 'neutral' },
  sending: { label: 'Sending', tone: 'ok' },
  paused: { label: 'Paused', tone: 'warn' },
  completed: { label: 'Completed', tone: 'ok' },
  stopped: { label: 'Stopped', tone: 'warn' },
  failed: { label: 'Failed', tone: 'bad' },
};

export const RECIPIENT_STATUS: Record<RecipientStatus, { label: string; tone: Tone; description: string }> = {
  pending: { label: 'Pending', tone: 'neutral', description: 'not sent yet' },
  skipped: { label: 'Skipped', tone: 'warn', description: 'not sent: see the reason' },
  sent: { label: 'Sent', tone: 'neutral', description: 'handed to the provider' },
  delivered: { label: 'Delivered', tone: 'ok', description: 'reached the phone' },
  read: { label: 'Read', tone: 'ok', description: 'opened' },
  failed: { label: 'Failed', tone: 'bad', description: 'the provider refused it' },
};

/** Why a recipient is skipped (GET /v1/broadcasts/{id}/audience-count and the report); an unknown reason shows as it is. */
const SKIP_REASONS: Record<string, string> = {
  invalid_number: 'No valid number',
  duplicate: 'Duplicate number',
  suppressed: 'Suppressed',
  opted_out: 'Opted out of marketing',
  consent_revoked: 'Consent revoked',
  no_consent: 'No marketing consent',
};

export function skipReasonLabel(reason: string): string {
  return Object.hasOwn(SKIP_REASONS, reason) ? SKIP_REASONS[reason]! : reason.replaceAll('_', ' ');
}

/** The statuses in which a broadcast still changes by itself (its page asks again often). */
export const ACTIVE_STATUSES: ReadonlySet<BroadcastStatus> = new Set(['scheduled', 'sending']);

export const broadcastStatuses = Object.keys(BROADCAST_STATUS) as BroadcastStatus[];
export const recipientStatuses = Object.keys(RECIPIENT_STATUS) as RecipientStatus[];
