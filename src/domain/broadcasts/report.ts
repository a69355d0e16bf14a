/**
 * A broadcast's report, as of now: its recipients by status (recipients.ts's STATUS), the skipped by
 * reason, the failed by error code (the provider's, or why the accept refused it), the rates over the
 * messages sent (delivered, read, replied within 72 hours, failed: a read message was delivered, a
 * replied one read), the recipients who opted out of marketing after it started, the same over time
 * (by when each message was sent, in minute, hour or day buckets) and per A/B variant. One pass over
 * the recipients joined to their messages (grouped by variant, status, reason and bucket), and one
 * count of the opt-outs.
 */
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { broadcastRecipients, messages } from '../../db/schema.ts';
import type { Actor } from '../actor.ts';
import { MARKETING_SCOPE } from '../contacts/consents.ts';
import { getBroadcast, type BroadcastRow } from './broadcasts.ts';
import { REASON, RECIPIENT_STATUSES, STATUS, type RecipientStatus } from './recipients.ts';
import { abTestOf } from './variants.ts';

export const REPORT_BUCKETS = ['minute', 'hour', 'day'] as const;
export type ReportBucket = (typeof REPORT_BUCKETS)[number];

type Counts = Record<RecipientStatus, number>;
export type Rates = { delivered: number; read: number; replied: number; failed: number };
export type Point = { at: string; sent: number; delivered: number; read: number; replied: number; failed: number };
export type VariantReport = {
  variant: number;
  template: { name: string; language: string };
  recipients: number;
  byStatus: Counts;
  sent: number;
  rates: Rates;
};

export type BroadcastReport = {
  broadcast: BroadcastRow;
  total: number;
  byStatus: Counts;
  skipped: Record<string, number>;
  sent: number;
  rates: Rates;
  failedByCode: Record<string, number>;
  optedOut: number;
  bucket: ReportBucket;
  overTime: Point[];
  variants: VariantReport[];
};

const zero = (): Counts => Object.fromEntries(RECIPIENT_STATUSES.map((s) => [s, 0])) as Counts;

/** Messages that left the queue (sent, or further, or failed), and the rates over them. */
function ratesOf(c: Counts): { sent: number; rates: Rates } {
  const sent = c.sent + c.delivered + c.read + c.replied + c.failed;
  const of = (n: number) => (sent ? Math.round((n / sent) * 10_000) / 10_000 : 0);
  return {
    sent,
    rates: { delivered: of(c.delivered + c.read + c.replied), read: of(c.read + c.replied), replied: of(c.replied), failed: of(c.failed) },
  };
}

/** Minutes for a send of up to 2 hours, hours up to 3 days, else days. */
function bucketFor(row: BroadcastRow, now: Date): ReportBucket {
  if (!row.startedAt) return 'hour';
  const span = (row.finishedAt ?? now).getTime() - row.startedAt.getTime();
  return span <= 2 * 3_600_000 ? 'minute' : span <= 3 * 86_400_000 ? 'hour' : 'day';
}

type Group = { variant: number | null; status: RecipientStatus; reason: string | null; bucket: string | null; n: number };

export async function broadcastReport(
  { db, now }: { db: Executor; now: Date },
  actor: Actor,
  { broadcastId, bucket }: { broadcastId: string; bucket?: ReportBucket },
): Promise<BroadcastReport> {
  const broadcast = await getBroadcast({ db }, actor, { broadcastId });
  const unit = bucket ?? bucketFor(broadcast, now);
  const groups = await queryRows<Group>(
    db,
    sql`select ${broadcastRecipients.variant} as variant, ${STATUS} as status,
               (case when ${STATUS} = 'failed' then coalesce(${messages.errorCode}, ${broadcastRecipients.reason})
                     when ${STATUS} = 'skipped' then ${REASON} end) as reason,
               to_char(date_trunc(${unit}, ${messages.createdAt} at time zone 'UTC'), 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as bucket,
               count(*)::int as n
          from ${broadcastRecipients} left join ${messages} on ${messages.id} = ${broadcastRecipients.messageId}
         where ${broadcastRecipients.broadcastId} = ${broadcast.id}::uuid
         group by 1, 2, 3, 4`,
  );
  const byStatus = zero();
  const skipped: Record<string, number> = {};
  const failedByCode: Record<string, number> = {};
  const perVariant = new Map<number, Counts>();
  const points = new Map<string, Point>();
  let total = 0;
  for (const g of groups) {
    total += g.n;
    byStatus[g.status] += g.n;
    if (g.status === 'skipped' && g.reason) skipped[g.reason] = (skipped[g.reason] ?? 0) + g.n;
    if (g.status === 'failed') failedByCode[g.reason ?? 'unknown'] = (failedByCode[g.reason ?? 'unknown'] ?? 0) + g.n;
    if (g.variant !== null) {
      const counts = perVariant.get(g.variant) ?? zero();
      counts[g.status] += g.n;
      perVariant.set(g.variant, counts);
    }
    // A message the provider refused for its marketing limit reads as skipped: not among those sent.
    if (g.bucket && g.status !== 'pending' && g.status !== 'skipped') {
      const p = points.get(g.bucket) ?? { at: g.bucket, sent: 0, delivered: 0, read: 0, replied: 0, failed: 0 };
      p.sent += g.n;
      if (g.status === 'failed') p.failed += g.n;
      if (g.status === 'delivered' || g.status === 'read' || g.status === 'replied') p.delivered += g.n;
      if (g.status === 'read' || g.status === 'replied') p.read += g.n;
      if (g.status === 'replied') p.replied += g.n;
      points.set(g.bucket, p);
    }
  }
  const test = abTestOf(broadcast);
  const variants: VariantReport[] = (test?.variants ?? []).map((spec, variant) => {
    const counts = perVariant.get(variant) ?? zero();
    return {
      variant,
      template: { name: spec.name, language: spec.language },
      recipients: Object.values(counts).reduce((a, b) => a + b, 0),
      byStatus: counts,
      ...ratesOf(counts),
    };
  });
  return {
    broadcast,
    total,
    byStatus,
    skipped,
    ...ratesOf(byStatus),
    failedByCode,
    optedOut: await optedOutAfter(db, broadcast, now),
    bucket: unit,
    overTime: [...points.values()].sort((a, b) => a.at.localeCompare(b.at)),
    variants: test ? variants : [],
  };
}

/** Recipients sent a message who are now opted out of marketing by an opt-out recorded after the broadcast started. */
async function optedOutAfter(db: Executor, broadcast: BroadcastRow, now: Date): Promise<number> {
  if (!broadcast.startedAt) return 0;
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from contact_suppressions s
         where s.organization_id = ${broadcast.organizationId}::uuid and s.channel = ${MARKETING_SCOPE}
           and s.updated_at >= ${broadcast.startedAt.toISOString()}::timestamptz
           and (s.expires_at is null or s.expires_at > ${now.toISOString()}::timestamptz)
           and exists (select 1 from broadcast_recipients br
                        where br.broadcast_id = ${broadcast.id}::uuid and br.contact_id = s.contact_id and br.message_id is not null)`,
  );
  return row?.n ?? 0;
}
