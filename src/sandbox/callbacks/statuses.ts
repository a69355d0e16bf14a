/** Status callbacks: delivered together, one step after the other (sent, delivered, read; or failed). */
import { createHash } from 'node:crypto';
import { inArray } from 'drizzle-orm';
import { batchIds } from '../../db/batch-rows.ts';
import type { Executor } from '../../db/client.ts';
import { sandboxMessages } from '../../db/schema.ts';
import { findTemplate } from '../official/shared.ts';
import type { AccountRow, MessageRow, SandboxCallback, SandboxContext } from '../context.ts';
import { envelope, gatewayDelivery, metadata, officialDelivery, officialTarget, post, unixSeconds, type Delivery } from './delivery.ts';
import { loadMessages } from './load.ts';

type StatusStep = 'sent' | 'delivered' | 'read' | 'failed';
export type StatusPayload = Extract<SandboxCallback, { kind: 'message.status' }>;

const NEXT_STEP: Record<StatusStep, StatusStep | undefined> = { sent: 'delivered', delivered: 'read', read: undefined, failed: undefined };

export const UNDELIVERABLE = { code: 131026, title: 'Message undeliverable', details: 'Message Undeliverable.' };

/**
 * Delivers status jobs together: one callback per account and step carrying every status of it
 * (the official webhooks' `statuses` array; the gateway's `message.statuses` event when there is
 * more than one), then the next step of those messages as one job. Resolves to the jobs that
 * failed (their callback was refused or could not be sent), each retried on its own.
 */
export async function deliverStatuses(
  ctx: SandboxContext,
  db: Executor,
  jobs: Array<{ id: string; payload: StatusPayload }>,
): Promise<Map<string, Error>> {
  const failed = new Map<string, Error>();
  const idsOf = (p: StatusPayload) => p.message_ids ?? (p.message_id ? [p.message_id] : []);
  const found = await loadMessages(db, [...new Set(jobs.flatMap((j) => idsOf(j.payload)))]);
  type Group = { account: AccountRow; status: StatusStep; messages: MessageRow[]; jobIds: Set<string> };
  const groups = new Map<string, Group>();
  for (const job of jobs) {
    for (const id of idsOf(job.payload)) {
      const row = found.get(id);
      if (!row) {
        ctx.logger.warn({ message_id: id }, 'sandbox status callback for an unknown message dropped');
        continue;
      }
      const key = `${row.account.id}\u0000${job.payload.status}`;
      const group = groups.get(key) ?? { account: row.account, status: job.payload.status, messages: [], jobIds: new Set() };
      // A message named twice in the batch (a retried job beside its first run's) is reported once.
      if (!group.messages.some((m) => m.id === id)) group.messages.push(row.message);
      group.jobIds.add(job.id);
      groups.set(key, group);
    }
  }
  await Promise.all(
    [...groups.values()].map(async (group) => {
      try {
        await deliverStatusGroup(ctx, db, group.account, group.status, group.messages, eventIdOf([...group.jobIds]));
      } catch (err) {
        for (const id of group.jobIds) failed.set(id, err instanceof Error ? err : new Error(String(err)));
      }
    }),
  );
  return failed;
}

/** The callback's event id: the job's own, or one made of the jobs it carries (the same when the same jobs are retried together). */
function eventIdOf(jobIds: string[]): string {
  if (jobIds.length === 1) return jobIds[0]!;
  const hex = createHash('sha256')
    .update([...jobIds].sort().join(','))
    .digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

async function deliverStatusGroup(
  ctx: SandboxContext,
  db: Executor,
  account: AccountRow,
  status: StatusStep,
  rows: MessageRow[],
  eventId: string,
) {
  let delivery: Delivery | undefined;
  if (account.protocol === 'official') {
    if (officialTarget(ctx, account)) {
      const statuses = await Promise.all(rows.map((message) => officialStatus(ctx, db, message, account, status)));
      delivery = officialDelivery(
        ctx,
        envelope(account, 'messages', { messaging_product: 'whatsapp', metadata: metadata(account), statuses }),
      );
    }
  } else {
    const one = (message: MessageRow) => ({
      id: message.id,
      status,
      ...(status === 'failed' ? { error: { code: 'undeliverable', message: 'message undeliverable' } } : {}),
    });
    delivery =
      rows.length === 1
        ? gatewayDelivery(ctx, account, eventId, 'message.status', one(rows[0]!))
        : gatewayDelivery(ctx, account, eventId, 'message.statuses', { statuses: rows.map(one) });
    if (!delivery) ctx.logger.info({ session: account.id }, 'sandbox gateway callback not sent: the session has no callback_url');
  }
  if (delivery) await post(ctx, delivery);
  // The next step is enqueued only once this one was delivered, so the steps arrive in order. No
  // transaction around the two writes: this job completes only after both, and one that stops between
  // them runs again (the status posted again, which a receiver takes as a repeat; the same status set).
  const next = NEXT_STEP[status];
  const ids = rows.map((m) => m.id);
  await db
    .update(sandboxMessages)
    .set({ status })
    .where(inArray(sandboxMessages.id, batchIds(ids, 'text')));
  if (next)
    await ctx.enqueueCallback(
      db,
      { kind: 'message.status', ...(ids.length === 1 ? { message_id: ids[0]! } : { message_ids: ids }), status: next },
      1,
    );
}

async function officialStatus(ctx: SandboxContext, db: Executor, message: MessageRow, account: AccountRow, status: StatusStep) {
  const status_: Record<string, unknown> = { id: message.id, status, timestamp: unixSeconds(ctx), recipient_id: message.recipient };
  if (status === 'sent' || status === 'delivered') {
    // As the provider reports per-message pricing: a template is charged by its category (`regular`);
    // a reply in the customer-service window is free. The conversation expires a day after it opened
    // (said only with `sent`).
    const category = await pricingCategory(db, message, account);
    const billable = category !== 'service';
    status_.conversation = {
      id: createHash('sha256').update(`${account.id}:${message.recipient}`).digest('hex').slice(0, 32),
      ...(status === 'sent' ? { expiration_timestamp: String(Math.floor(message.createdAt.getTime() / 1000) + 86_400) } : {}),
      origin: { type: category },
    };
    status_.pricing = { billable, pricing_model: 'PMP', type: billable ? 'regular' : 'free_customer_service', category };
  }
  if (status === 'failed') {
    status_.errors = [
      {
        code: UNDELIVERABLE.code,
        title: UNDELIVERABLE.title,
        message: UNDELIVERABLE.title,
        error_data: { details: UNDELIVERABLE.details },
      },
    ];
  }
  const opaque = message.body.biz_opaque_callback_data;
  if (typeof opaque === 'string') status_.biz_opaque_callback_data = opaque;
  return status_;
}

async function pricingCategory(db: Executor, message: MessageRow, account: AccountRow): Promise<string> {
  if (message.type !== 'template') return 'service';
  const template = message.body.template as { name?: string; language?: { code?: string } } | undefined;
  const row = await findTemplate(db, account.wabaId ?? '', String(template?.name ?? ''), String(template?.language?.code ?? ''));
  return (row?.category ?? 'MARKETING').toLowerCase();
}
