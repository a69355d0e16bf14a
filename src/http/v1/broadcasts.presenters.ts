/** The broadcasts routes' records (broadcasts.ts), typed from their response schemas. */
import type { z } from 'zod';
import type { BroadcastRow } from '../../domain/broadcasts/broadcasts.ts';
import type { RecipientView } from '../../domain/broadcasts/recipients.ts';
import { abTestOf, mainSpec } from '../../domain/broadcasts/variants.ts';
import type { BroadcastSchema, RecipientSchema } from './broadcasts.schemas.ts';

export type BroadcastRecord = z.infer<typeof BroadcastSchema>;
export type BroadcastRecipientRecord = z.infer<typeof RecipientSchema>;

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function presentBroadcast(row: BroadcastRow): BroadcastRecord {
  return {
    id: row.id,
    name: row.name,
    channel_id: row.channelId,
    template: mainSpec(row) as BroadcastRecord['template'],
    ab_test: abTestOf(row) as BroadcastRecord['ab_test'],
    winner_variant: row.winnerVariant,
    decided_at: iso(row.decidedAt),
    audience: row.audience as BroadcastRecord['audience'],
    status: row.status as BroadcastRecord['status'],
    send_at: iso(row.sendAt),
    per_minute: row.perMinute,
    require_consent: row.requireConsent,
    quiet_hours: row.quietHours,
    retry_marketing_limit_days: row.retryMarketingLimitDays,
    skip_open_conversations: row.skipOpenConversations,
    pause_reason: row.pauseReason,
    retry_round: row.retryRound,
    started_at: iso(row.startedAt),
    finished_at: iso(row.finishedAt),
    failure_reason: row.failureReason,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function presentRecipient(r: RecipientView): BroadcastRecipientRecord {
  return {
    id: r.id,
    contact_id: r.contactId,
    phone: r.phone,
    status: r.status as BroadcastRecipientRecord['status'],
    reason: r.reason,
    message_id: r.messageId,
    error_code: r.errorCode,
    parameters: r.parameters,
    variant: r.variant,
    sent_at: iso(r.sentAt),
    replied_at: iso(r.repliedAt),
    updated_at: r.updatedAt.toISOString(),
  };
}
