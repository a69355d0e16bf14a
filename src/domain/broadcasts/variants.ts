/**
 * A/B variants: 2 to 5 templates (each with its variables), a test share (a percentage of the
 * audience), a metric (read or replied) and a decision time. When the audience is frozen the test
 * share of the recipients to send to is drawn at random and split evenly across the variants (each
 * recipient records its variant); the rest are `held`. The runner sends the test group, then waits
 * for the decision time; then (decideDue, in the runner's job) the variant with the best rate of the
 * metric among its sent messages wins (a tie: the earlier variant), `broadcast.variant_won` is
 * recorded, and the held recipients get the winner, filled from their contacts as they are then.
 */
import { randomInt } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { broadcasts } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { recordEvent } from '../events/outbox.ts';
import { invalid } from '../errors.ts';
import type { ResolvedRecipient } from './audience.ts';
import { checkSpecVariables, checkTemplateSpec, specFiller, type FilledTemplate, type HeaderSpec, type TemplateSpec } from './content.ts';
import type { RecipientFields } from './variables.ts';

export const AB_METRICS = ['read', 'replied'] as const;
export type AbMetric = (typeof AB_METRICS)[number];
export const VARIANTS_MIN = 2;
export const VARIANTS_MAX = 5;

/** As stored (the request's own shape). */
export type AbTest = { variants: TemplateSpec[]; test_share: number; metric: AbMetric; decide_at: string };

type Row = typeof broadcasts.$inferSelect;

/** The main template of a broadcast (variant 0's when it has an A/B test). */
export const mainSpec = (row: Row): TemplateSpec => ({
  name: row.templateName,
  language: row.templateLanguage,
  variables: row.variables,
  header: (row.header as HeaderSpec | null) ?? null,
  buttons: (row.buttons ?? []) as TemplateSpec['buttons'],
});

export const abTestOf = (row: Pick<Row, 'abTest'>): AbTest | null => (row.abTest as AbTest | null) ?? null;

/** The template a recipient is sent: its variant's, or the broadcast's own. */
export function specOf(row: Row, variant: number | null): TemplateSpec {
  const test = abTestOf(row);
  return variant !== null && test ? test.variants[variant]! : mainSpec(row);
}

/** Each variant checked against its template, a decision time after the send time and not past. */
export async function checkAbTest(
  db: Executor,
  organizationId: string,
  channelId: string,
  test: AbTest,
  sendAt: Date | null | undefined,
  now: Date,
): Promise<void> {
  for (const [i, variant] of test.variants.entries()) {
    const errors = checkSpecVariables(variant, `/ab_test/variants/${i}`);
    if (errors.length) throw invalid(`variant ${i}: ${errors[0]!.message}`, errors);
    await checkTemplateSpec(db, organizationId, channelId, variant, `/ab_test/variants/${i}`);
  }
  const decideAt = new Date(test.decide_at);
  const start = sendAt && sendAt > now ? sendAt : now;
  if (!(decideAt > start)) {
    throw invalid('ab_test.decide_at must be after the send time', [
      { pointer: '/ab_test/decide_at', message: `after the send time (${start.toISOString()}): the test needs time to be read` },
    ]);
  }
}

export type PlannedRecipient = {
  status: 'pending' | 'held' | 'skipped';
  variant: number | null;
  parameters: string[] | null;
  components: FilledTemplate['components'];
};

/** k distinct indices of 0..n-1 drawn at random (a partial Fisher-Yates shuffle), in the order drawn. */
function sample(n: number, k: number): number[] {
  const pool = Array.from({ length: n }, (_, i) => i);
  for (let i = 0; i < k; i++) {
    const j = i + randomInt(n - i);
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, k);
}

/**
 * What each resolved recipient is frozen as: skipped ones as they are; without a test every other one
 * pending with the broadcast's template filled; with one, the test share (rounded, at least one per
 * variant when there are enough) drawn at random and dealt round the variants, the rest held.
 */
export async function planRecipients(
  db: Executor,
  row: Row,
  recipients: Array<ResolvedRecipient & { fields: RecipientFields }>,
): Promise<PlannedRecipient[]> {
  const fill = await specFiller(db, row.organizationId, row.channelId);
  const test = abTestOf(row);
  const out: PlannedRecipient[] = recipients.map((r) => ({ status: r.status, variant: null, parameters: null, components: null }));
  const sendable = recipients.flatMap((r, i) => (r.status === 'pending' ? [i] : []));
  if (!test) {
    const spec = mainSpec(row);
    for (const i of sendable) Object.assign(out[i]!, fill(spec, recipients[i]!.fields));
    return out;
  }
  const k = test.variants.length;
  const share = Math.round((sendable.length * test.test_share) / 100);
  const size = Math.min(sendable.length, Math.max(share, Math.min(k, sendable.length)));
  const drawn = sample(sendable.length, size);
  for (const i of sendable) out[i]!.status = 'held';
  drawn.forEach((d, n) => {
    const i = sendable[d]!;
    const variant = n % k;
    Object.assign(out[i]!, { status: 'pending', variant }, fill(test.variants[variant]!, recipients[i]!.fields));
  });
  return out;
}

type VariantRates = { variant: number; sent: number; read: number; replied: number };

/** Per variant: its messages (sent), and of them read (a reply counts as read) and replied. */
export async function variantRates(db: Executor, broadcastId: string): Promise<VariantRates[]> {
  return queryRows<VariantRates>(
    db,
    sql`select br.variant, count(*)::int as sent,
               count(*) filter (where m.status = 'read' or br.replied_at is not null)::int as read,
               count(*) filter (where br.replied_at is not null)::int as replied
          from broadcast_recipients br join messages m on m.id = br.message_id
         where br.broadcast_id = ${broadcastId}::uuid and br.variant is not null and m.status <> 'queued'
         group by br.variant order by br.variant`,
  );
}

/** Rows updated per statement when the held recipients get the winner. */
const FILL_CHUNK = 2000;

type HeldRow = {
  id: string;
  phone: string | null;
  name: string | null;
  email: string | null;
  custom_fields: Record<string, unknown> | null;
};

/**
 * Decides a broadcast's A/B test when its time has come (a sending broadcast, undecided, decide_at
 * reached): the winner recorded with broadcast.variant_won, the held recipients made pending with its
 * template. True when it decided.
 */
export async function decideDue({ db, clock }: { db: Executor; clock: Clock }, broadcastId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const now = clock.now();
    const [row] = await tx.select().from(broadcasts).where(eq(broadcasts.id, broadcastId)).for('update');
    const test = row && abTestOf(row);
    if (!row || !test || row.status !== 'sending' || row.winnerVariant !== null || new Date(test.decide_at) > now) return false;
    const rates = await variantRates(tx, row.id);
    const rateOf = (v: number) => {
      const r = rates.find((x) => x.variant === v);
      return r && r.sent > 0 ? r[test.metric] / r.sent : 0;
    };
    let winner = 0;
    for (let v = 1; v < test.variants.length; v++) if (rateOf(v) > rateOf(winner)) winner = v;
    const spec = test.variants[winner]!;
    const fill = await specFiller(tx, row.organizationId, row.channelId);
    const held = await queryRows<HeldRow>(
      tx,
      sql`select br.id, br.phone, c.name, c.email, c.custom_fields
            from broadcast_recipients br left join contacts c on c.id = br.contact_id
           where br.broadcast_id = ${row.id}::uuid and br.status = 'held' order by br.seq`,
    );
    for (let i = 0; i < held.length; i += FILL_CHUNK) {
      const values = held.slice(i, i + FILL_CHUNK).map((h) => {
        const filled = fill(spec, { phone: h.phone, name: h.name, email: h.email, customFields: h.custom_fields ?? {} });
        return { id: h.id, p: filled.parameters, c: filled.components };
      });
      await tx.execute(
        sql`update broadcast_recipients br set status = 'pending', variant = ${winner}, parameters = v.p, components = v.c,
                   updated_at = ${now.toISOString()}::timestamptz
              from jsonb_to_recordset(${JSON.stringify(values)}::jsonb) as v(id uuid, p jsonb, c jsonb)
             where br.id = v.id and br.status = 'held'`,
      );
    }
    await tx
      .update(broadcasts)
      .set({ winnerVariant: winner, decidedAt: now, nextRunAt: now, updatedAt: now })
      .where(and(eq(broadcasts.id, row.id)));
    await recordEvent(tx, row.organizationId, 'broadcast.variant_won', {
      broadcast_id: row.id,
      name: row.name,
      channel_id: row.channelId,
      organization_id: row.organizationId,
      variant: winner,
      template: { name: spec.name, language: spec.language },
      metric: test.metric,
      variants: test.variants.map((_, v) => {
        const r = rates.find((x) => x.variant === v);
        return { variant: v, sent: r?.sent ?? 0, [test.metric]: r?.[test.metric] ?? 0, rate: rateOf(v) };
      }),
      rest: held.length,
    });
    return true;
  });
}

/**
 * Whether a broadcast whose recipients are all handed over must wait for its A/B decision (the held
 * rest): then it is due again at decide_at, not completed.
 */
export async function awaitingDecision({ db, clock }: { db: Executor; clock: Clock }, broadcastId: string): Promise<boolean> {
  const [row] = await db
    .select({ abTest: broadcasts.abTest, winnerVariant: broadcasts.winnerVariant })
    .from(broadcasts)
    .where(eq(broadcasts.id, broadcastId));
  const test = row && abTestOf(row);
  if (!test || row.winnerVariant !== null) return false;
  const now = clock.now();
  const decideAt = new Date(test.decide_at);
  await db
    .update(broadcasts)
    .set({ nextRunAt: decideAt > now ? decideAt : now, updatedAt: now })
    .where(and(eq(broadcasts.id, broadcastId), eq(broadcasts.status, 'sending')));
  return true;
}
