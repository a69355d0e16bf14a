/**
 * Delivering the sandbox's callbacks: the official provider's webhooks (signed X-Hub-Signature-256
 * with the app secret, to config.sandbox.officialWebhookUrl) and the gateway's callbacks (signed
 * X-Gateway-Signature with the session's secret, to its callback_url). Each runs as one
 * 'sandbox.callback' job; a refused or failed POST throws, so the job is retried.
 */
import { createHash, createHmac } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import { batchIds } from '../db/batch-rows.ts';
import type { Executor } from '../db/client.ts';
import { sandboxAccounts, sandboxMedia, sandboxMessages, sandboxTemplates } from '../db/schema.ts';
import { safeUrl } from '../lib/logger.ts';
import { safeFetch, type TargetPolicy } from '../lib/safe-fetch.ts';
import { digitsOf, type AccountRow, type MessageRow, type SandboxCallback, type SandboxContext } from './context.ts';
import { heldMediaSha256 } from './media.ts';
import { templateDecision } from './rules.ts';

const CALLBACK_TIMEOUT_MS = 5000;

type StatusStep = 'sent' | 'delivered' | 'read' | 'failed';
type StatusPayload = Extract<SandboxCallback, { kind: 'message.status' }>;

const NEXT_STEP: Record<StatusStep, StatusStep | undefined> = { sent: 'delivered', delivered: 'read', read: undefined, failed: undefined };

export const UNDELIVERABLE = { code: 131026, title: 'Message undeliverable', details: 'Message Undeliverable.' };

type Delivery = { url: string; body: string; headers: Record<string, string> };

export function createCallbacks(ctx: SandboxContext) {
  const { logger, clock } = ctx;

  function officialDelivery(payload: unknown): Delivery {
    const body = JSON.stringify(payload);
    const signature = createHmac('sha256', ctx.officialAppSecret).update(body).digest('hex');
    return {
      url: ctx.config.sandbox.officialWebhookUrl,
      body,
      headers: { 'x-hub-signature-256': `sha256=${signature}`, 'user-agent': 'facebookexternalua' },
    };
  }

  /** `at`: when the event happened (a gateway stamps its events so, and a callback retried late stays in order). */
  function gatewayDelivery(account: AccountRow, eventId: string, event: string, payload: Record<string, unknown>, at?: string): Delivery | undefined {
    if (!account.callbackUrl || !account.callbackSecretSealed) return undefined;
    const body = JSON.stringify({ event, session: account.id, timestamp: at ?? clock.now().toISOString(), payload });
    const secret = ctx.sealer.open(account.callbackSecretSealed);
    return {
      url: account.callbackUrl,
      body,
      headers: {
        'x-gateway-signature': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
        'x-gateway-event-id': eventId,
        'user-agent': 'parley-sandbox-gateway',
      },
    };
  }

  // The sandbox runs inside this service, so its callbacks are this service's requests: under the
  // same guard as any other, with Parley's own provider webhooks (where bound channels point them)
  // and the configured official webhook URL as the exceptions.
  const targets: TargetPolicy = {
    allowPrivate: ctx.config.allowPrivateNetworkTargets,
    ownPrefixes: [`${ctx.config.baseUrl}/v1/providers/`, ctx.config.sandbox.officialWebhookUrl],
  };

  async function post(delivery: Delivery): Promise<void> {
    const response = await safeFetch(delivery.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...delivery.headers },
      body: delivery.body,
      signal: AbortSignal.timeout(CALLBACK_TIMEOUT_MS),
    }, targets).catch((err: unknown) => {
      throw new Error(`sandbox callback to ${safeUrl(delivery.url)} failed: ${(err as Error).message}`, { cause: err });
    });
    await response.arrayBuffer().catch(() => undefined);
    if (response.status < 200 || response.status > 299) {
      throw new Error(`sandbox callback to ${safeUrl(delivery.url)} answered ${response.status}`);
    }
  }

  /** Official webhooks only reach business accounts the app subscribed to. */
  function officialTarget(account: AccountRow): boolean {
    if (account.subscribed) return true;
    logger.info({ waba_id: account.wabaId }, 'sandbox webhook not sent: the app is not subscribed to this business account');
    return false;
  }

  function envelope(account: AccountRow, field: string, value: Record<string, unknown>) {
    return { object: 'whatsapp_business_account', entry: [{ id: account.wabaId, changes: [{ field, value }] }] };
  }

  function metadata(account: AccountRow) {
    return { display_phone_number: digitsOf(account.displayPhoneNumber), phone_number_id: account.id };
  }

  const unixSeconds = () => String(Math.floor(clock.now().getTime() / 1000));

  async function loadMessages(db: Executor, ids: string[]): Promise<Map<string, { message: MessageRow; account: AccountRow }>> {
    if (ids.length === 0) return new Map();
    const rows = await db
      .select({ message: sandboxMessages, account: sandboxAccounts })
      .from(sandboxMessages)
      .innerJoin(sandboxAccounts, eq(sandboxAccounts.id, sandboxMessages.accountId))
      .where(inArray(sandboxMessages.id, batchIds(ids, 'text')));
    return new Map(rows.map((r) => [r.message.id, r]));
  }

  async function loadMessage(db: Executor, id: string): Promise<{ message: MessageRow; account: AccountRow } | undefined> {
    const [row] = await db
      .select({ message: sandboxMessages, account: sandboxAccounts })
      .from(sandboxMessages)
      .innerJoin(sandboxAccounts, eq(sandboxAccounts.id, sandboxMessages.accountId))
      .where(eq(sandboxMessages.id, id))
      .limit(1);
    return row;
  }

  async function officialStatus(db: Executor, message: MessageRow, account: AccountRow, status: StatusStep) {
    const status_: Record<string, unknown> = { id: message.id, status, timestamp: unixSeconds(), recipient_id: message.recipient };
    if (status === 'sent' || status === 'delivered') {
      const category = await pricingCategory(db, message, account);
      status_.conversation = {
        id: createHash('sha256').update(`${account.id}:${message.recipient}`).digest('hex').slice(0, 32),
        origin: { type: category },
      };
      status_.pricing = { billable: category !== 'service', pricing_model: 'CBP', category };
    }
    if (status === 'failed') {
      status_.errors = [{ code: UNDELIVERABLE.code, title: UNDELIVERABLE.title, message: UNDELIVERABLE.title, error_data: { details: UNDELIVERABLE.details } }];
    }
    const opaque = message.body.biz_opaque_callback_data;
    if (typeof opaque === 'string') status_.biz_opaque_callback_data = opaque;
    return status_;
  }

  async function pricingCategory(db: Executor, message: MessageRow, account: AccountRow): Promise<string> {
    if (message.type !== 'template') return 'service';
    const template = message.body.template as { name?: string; language?: { code?: string } } | undefined;
    const [row] = await db
      .select({ category: sandboxTemplates.category })
      .from(sandboxTemplates)
      .where(
        and(
          eq(sandboxTemplates.wabaId, account.wabaId ?? ''),
          eq(sandboxTemplates.name, String(template?.name ?? '')),
          eq(sandboxTemplates.language, String(template?.language?.code ?? '')),
        ),
      )
      .limit(1);
    return (row?.category ?? 'MARKETING').toLowerCase();
  }

  /**
   * Delivers status jobs together: one callback per account and step carrying every status of it
   * (the official webhooks' `statuses` array; the gateway's `message.statuses` event when there is
   * more than one), then the next step of those messages as one job. Resolves to the jobs that
   * failed (their callback was refused or could not be sent), each retried on its own.
   */
  async function deliverStatuses(db: Executor, jobs: Array<{ id: string; payload: StatusPayload }>): Promise<Map<string, Error>> {
    const failed = new Map<string, Error>();
    const idsOf = (p: StatusPayload) => p.message_ids ?? (p.message_id ? [p.message_id] : []);
    const found = await loadMessages(db, [...new Set(jobs.flatMap((j) => idsOf(j.payload)))]);
    type Group = { account: AccountRow; status: StatusStep; messages: MessageRow[]; jobIds: Set<string> };
    const groups = new Map<string, Group>();
    for (const job of jobs) {
      for (const id of idsOf(job.payload)) {
        const row = found.get(id);
        if (!row) {
          logger.warn({ message_id: id }, 'sandbox status callback for an unknown message dropped');
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
          await deliverStatusGroup(db, group.account, group.status, group.messages, eventIdOf([...group.jobIds]));
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
    const hex = createHash('sha256').update([...jobIds].sort().join(',')).digest('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
  }

  async function deliverStatusGroup(db: Executor, account: AccountRow, status: StatusStep, rows: MessageRow[], eventId: string) {
    let delivery: Delivery | undefined;
    if (account.protocol === 'official') {
      if (officialTarget(account)) {
        const statuses = await Promise.all(rows.map((message) => officialStatus(db, message, account, status)));
        delivery = officialDelivery(envelope(account, 'messages', { messaging_product: 'whatsapp', metadata: metadata(account), statuses }));
      }
    } else {
      const one = (message: MessageRow) => ({
        id: message.id,
        status,
        ...(status === 'failed' ? { error: { code: 'undeliverable', message: 'message undeliverable' } } : {}),
      });
      delivery =
        rows.length === 1
          ? gatewayDelivery(account, eventId, 'message.status', one(rows[0]!))
          : gatewayDelivery(account, eventId, 'message.statuses', { statuses: rows.map(one) });
      if (!delivery) logger.info({ session: account.id }, 'sandbox gateway callback not sent: the session has no callback_url');
    }
    if (delivery) await post(delivery);
    // The next step is enqueued only once this one was delivered, so the steps arrive in order. No
    // transaction around the two writes: this job completes only after both, and one that stops between
    // them runs again (the status posted again, which a receiver takes as a repeat; the same status set).
    const next = NEXT_STEP[status];
    const ids = rows.map((m) => m.id);
    await db.update(sandboxMessages).set({ status }).where(inArray(sandboxMessages.id, batchIds(ids, 'text')));
    if (next) await ctx.enqueueCallback(db, { kind: 'message.status', ...(ids.length === 1 ? { message_id: ids[0]! } : { message_ids: ids }), status: next }, 1);
  }

  async function deliverInbound(db: Executor, payload: Extract<SandboxCallback, { kind: 'message.inbound' }>, eventId: string) {
    const found = await loadMessage(db, payload.message_id);
    if (!found) {
      logger.warn({ message_id: payload.message_id }, 'sandbox inbound callback for an unknown message dropped');
      return;
    }
    const { message, account } = found;
    const stored = message.body as InboundBody;
    let delivery: Delivery | undefined;
    if (account.protocol === 'official') {
      if (!officialTarget(account)) return;
      const entry: Record<string, unknown> = { from: message.recipient, id: message.id, timestamp: stored.timestamp, type: message.type };
      if (stored.reply_to) entry.context = { from: digitsOf(account.displayPhoneNumber), id: stored.reply_to };
      const content = stored.content;
      if (message.type === 'text') entry.text = { body: content.body };
      else if (message.type === 'interactive') {
        const kind = content.type as string;
        entry.interactive = { type: kind, [kind]: { id: content.id, title: content.title, ...(content.description !== undefined ? { description: content.description } : {}) } };
      } else if (message.type === 'location') entry.location = pick(content, ['latitude', 'longitude', 'name', 'address']);
      else if (stored.media_id) {
        const media = await loadMedia(db, stored.media_id);
        entry[message.type] = {
          ...(content.caption !== undefined ? { caption: content.caption } : {}),
          ...(content.file_name !== undefined ? { filename: content.file_name } : {}),
          mime_type: media?.mimeType ?? 'image/png',
          sha256: media ? await heldMediaSha256(media) : '',
          id: stored.media_id,
          ...(message.type === 'sticker' ? { animated: false } : {}),
        };
      }
      delivery = officialDelivery(
        envelope(account, 'messages', {
          messaging_product: 'whatsapp',
          metadata: metadata(account),
          contacts: [{ profile: { name: stored.name }, wa_id: message.recipient }],
          messages: [entry],
        }),
      );
    } else {
      let content: Record<string, unknown> = stored.content;
      if (stored.media_id) {
        const media = await loadMedia(db, stored.media_id);
        content = { media_id: stored.media_id, mime_type: media?.mimeType ?? 'image/png', ...stored.content };
      }
      delivery = gatewayDelivery(account, eventId, 'message', {
        id: message.id,
        from: message.recipient,
        from_name: stored.name,
        type: message.type,
        content,
        ...(stored.reply_to ? { reply_to: stored.reply_to } : {}),
      });
      if (!delivery) logger.info({ session: account.id }, 'sandbox gateway callback not sent: the session has no callback_url');
    }
    if (delivery) await post(delivery);
  }

  async function deliverTemplate(db: Executor, payload: Extract<SandboxCallback, { kind: 'template.status' }>) {
    const [template] = await db.select().from(sandboxTemplates).where(eq(sandboxTemplates.id, payload.template_id)).limit(1);
    if (!template) {
      logger.warn({ template_id: payload.template_id }, 'sandbox template callback for an unknown template dropped');
      return;
    }
    let { status, reason } = template;
    if (status === 'PENDING') {
      const decision = templateDecision(template.name);
      ({ status, reason } = decision);
      await db.update(sandboxTemplates).set({ status, reason }).where(eq(sandboxTemplates.id, template.id));
    }
    const [account] = await db.select().from(sandboxAccounts).where(eq(sandboxAccounts.wabaId, template.wabaId)).limit(1);
    if (!account || !officialTarget(account)) return;
    const body = {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: template.wabaId,
          time: Math.floor(clock.now().getTime() / 1000),
          changes: [
            {
              field: 'message_template_status_update',
              value: {
                event: status,
                message_template_id: Number(template.id),
                message_template_name: template.name,
                message_template_language: template.language,
                reason: reason ?? 'NONE',
                message_template_category: template.category,
              },
            },
          ],
        },
      ],
    };
    await post(officialDelivery(body));
  }

  async function deliverSession(db: Executor, payload: Extract<SandboxCallback, { kind: 'session.status' }>, eventId: string) {
    const [account] = await db.select().from(sandboxAccounts).where(eq(sandboxAccounts.id, payload.session_id)).limit(1);
    if (!account) {
      logger.warn({ session: payload.session_id }, 'sandbox session callback for an unknown session dropped');
      return;
    }
    const phone = account.displayPhoneNumber;
    const delivery = gatewayDelivery(account, eventId, 'session.status', {
      status: payload.status,
      ...(payload.status === 'WORKING' && phone ? { me: { id: `${phone}@c.us`, phone } } : {}),
    }, payload.at);
    if (!delivery) {
      logger.info({ session: account.id }, 'sandbox gateway callback not sent: the session has no callback_url');
      return;
    }
    await post(delivery);
  }

  /** The business's phone and the senders (phone.ts): an echo, an edit, a deletion, as gateway callbacks. */
  async function deliverPhone(db: Executor, payload: Extract<SandboxCallback, { kind: 'message.echo' | 'message.edited' | 'message.deleted' }>, eventId: string) {
    const found = await loadMessage(db, payload.message_id);
    if (!found) {
      logger.warn({ message_id: payload.message_id }, `sandbox ${payload.kind} callback for an unknown message dropped`);
      return;
    }
    const { message, account } = found;
    const body = message.body as { content?: Record<string, unknown>; reply_to?: string };
    const event =
      payload.kind === 'message.echo'
        ? { id: message.id, to: message.recipient, type: message.type, content: body.content ?? {}, ...(body.reply_to ? { reply_to: body.reply_to } : {}) }
        : payload.kind === 'message.edited'
          ? { id: message.id, content: { body: payload.body } }
          : { id: message.id };
    const delivery = gatewayDelivery(account, eventId, payload.kind, event, payload.at);
    if (!delivery) {
      logger.info({ session: account.id }, 'sandbox gateway callback not sent: the session has no callback_url');
      return;
    }
    await post(delivery);
  }

  async function loadMedia(db: Executor, id: string) {
    const [media] = await db.select().from(sandboxMedia).where(eq(sandboxMedia.id, id)).limit(1);
    return media;
  }

  /** Delivers one callback other than a status. */
  async function deliverOne(db: Executor, payload: Exclude<SandboxCallback, StatusPayload>, eventId: string): Promise<void> {
    switch (payload.kind) {
      case 'message.inbound':
        return deliverInbound(db, payload, eventId);
      case 'template.status':
        return deliverTemplate(db, payload);
      case 'session.status':
        return deliverSession(db, payload, eventId);
      case 'message.echo':
      case 'message.edited':
      case 'message.deleted':
        return deliverPhone(db, payload, eventId);
      default:
        payload satisfies never;
    }
  }

  return {
    /**
     * Delivers a batch of callbacks (each job's `id` is stable across its retries): statuses together
     * (deliverStatuses), the others each on its own. Resolves to the jobs that failed, to be retried.
     */
    async deliverBatch(db: Executor, jobs: Array<{ id: string; payload: SandboxCallback }>): Promise<Map<string, Error>> {
      const statuses = jobs.filter((j): j is { id: string; payload: StatusPayload } => j.payload.kind === 'message.status');
      const others = jobs.filter((j): j is { id: string; payload: Exclude<SandboxCallback, StatusPayload> } => j.payload.kind !== 'message.status');
      const failed = statuses.length > 0 ? await deliverStatuses(db, statuses) : new Map<string, Error>();
      await Promise.all(
        others.map((job) =>
          deliverOne(db, job.payload, job.id).catch((err: unknown) => void failed.set(job.id, err instanceof Error ? err : new Error(String(err)))),
        ),
      );
      return failed;
    },
    /** Delivers one callback; `eventId` is stable across retries (the job id). Throws to be retried. */
    async deliver(db: Executor, payload: SandboxCallback, eventId: string): Promise<void> {
      if (payload.kind !== 'message.status') return deliverOne(db, payload, eventId);
      const failed = await deliverStatuses(db, [{ id: eventId, payload }]);
      const err = failed.get(eventId);
      if (err) throw err;
    },
  };
}

/** What an inbound message row keeps in its body (see inbound.ts). */
export type InboundBody = {
  name: string;
  timestamp: string;
  content: Record<string, unknown>;
  reply_to?: string;
  media_id?: string;
};

function pick(source: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => source[k] !== undefined).map((k) => [k, source[k]]));
}
