/**
 * A broadcast's recipients and its report. A recipient's status is its own until its message exists
 * (pending, skipped with a reason, failed when the accept refused it), then its message's, read
 * through message_id at read time (DECISIONS: no write on the status path; a message's status never
 * moves backwards, so neither does its recipient's). A message still queued reads as pending.
 */
import { eq, sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { listPage, oldestFirstBy } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { broadcastRecipients, messages } from '../../db/schema.ts';
import type { Actor } from '../actor.ts';
import { cursorKey } from '../paging.ts';
import { getBroadcast } from './broadcasts.ts';
import { MARKETING_LIMIT_CODE } from './sending-rules.ts';

export const RECIPIENT_STATUSES = ['pending', 'deferred', 'skipped', 'sent', 'delivered', 'read', 'replied', 'failed'] as const;
export type RecipientStatus = (typeof RECIPIENT_STATUSES)[number];

/**
 * The recipient's status: the message's once there is one (queued reads as pending), replied once the
 * customer wrote within 72 hours of it (replies.ts) unless it failed; held (the rest of an A/B test
 * before its decision) reads as pending; a message the provider refused for its per-user marketing limit
 * (131049) reads as skipped (marketing_limit).
 */
export const STATUS: SQL<string> = sql<string>`(case
  when ${messages.id} is null then (case when ${broadcastRecipients.status} = 'held' then 'pending' else ${broadcastRecipients.status} end)
  when ${messages.status} = 'queued' then 'pending'
  when ${messages.status} = 'failed' and ${messages.errorCode} = ${MARKETING_LIMIT_CODE} then 'skipped'
  when ${broadcastRecipients.repliedAt} is not null and ${messages.status} <> 'failed' then 'replied'
  else ${messages.status} end)`;
/** The recipient's reason: marketing_limit while its message is one the marketing limit refused. */
export const REASON: SQL<string | null> = sql<string | null>`(case
  when ${messages.status} = 'failed' and ${messages.errorCode} = ${MARKETING_LIMIT_CODE} then 'marketing_limit'
  else ${broadcastRecipients.reason} end)`;

export type RecipientView = {
  id: string;
  createdAt: Date;
  contactId: string | null;
  phone: string | null;
  status: string;
  reason: string | null;
  messageId: string | null;
  errorCode: string | null;
  parameters: string[] | null;
  variant: number | null;
  sentAt: Date | null;
  repliedAt: Date | null;
  updatedAt: Date;
};

/** A broadcast's recipients in send order, by cursor, optionally of one status. */
export async function listRecipients(
  { db }: { db: Executor },
  actor: Actor,
  { broadcastId, status, ...page }: Page & { broadcastId: string; status?: RecipientStatus },
): Promise<PageResult<RecipientView>> {
  const broadcast = await getBroadcast({ db }, actor, { broadcastId });
  return listPage(
    db
      .select({
        id: broadcastRecipients.id,
        createdAt: broadcastRecipients.createdAt,
        contactId: broadcastRecipients.contactId,
        phone: broadcastRecipients.phone,
        status: STATUS,
        reason: REASON,
        messageId: broadcastRecipients.messageId,
        errorCode: messages.errorCode,
        parameters: broadcastRecipients.parameters,
        variant: broadcastRecipients.variant,
        sentAt: messages.createdAt,
        repliedAt: broadcastRecipients.repliedAt,
        updatedAt: sql<Date>`greatest(${broadcastRecipients.updatedAt}, ${messages.updatedAt})`.mapWith((v) => new Date(v)),
      })
      .from(broadcastRecipients)
      .leftJoin(messages, eq(messages.id, broadcastRecipients.messageId))
      .$dynamic(),
    {
      where: [
        eq(broadcastRecipients.broadcastId, broadcast.id),
        eq(broadcastRecipients.organizationId, actor.organizationId),
        status ? sql`${STATUS} = ${status}` : undefined,
      ],
      order: oldestFirstBy(broadcastRecipients.createdAt, broadcastRecipients.id),
      after: cursorKey(page.cursor),
      limit: page.limit,
    },
  );
}

/** Counts of a broadcast's recipients by status, and of the skipped by reason. */
export async function recipientCounts(db: Executor, broadcastId: string) {
  const rows = await queryRows<{ status: string; reason: string | null; n: number }>(
    db,
    sql`select ${STATUS} as status, ${REASON} as reason, count(*)::int as n
          from ${broadcastRecipients} left join ${messages} on ${messages.id} = ${broadcastRecipients.messageId}
         where ${broadcastRecipients.broadcastId} = ${broadcastId}::uuid
         group by 1, 2`,
  );
  const byStatus = Object.fromEntries(RECIPIENT_STATUSES.map((s) => [s, 0])) as Record<RecipientStatus, number>;
  const skipped: Record<string, number> = {};
  let total = 0;
  for (const r of rows) {
    total += r.n;
    byStatus[r.status as RecipientStatus] = (byStatus[r.status as RecipientStatus] ?? 0) + r.n;
    if (r.status === 'skipped' && r.reason) skipped[r.reason] = (skipped[r.reason] ?? 0) + r.n;
  }
  return { total, byStatus, skipped };
}
