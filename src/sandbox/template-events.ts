/**
 * The provider's later word on a template (docs/sandbox.md): `POST /sandbox/template-event` plays the
 * provider flagging, pausing, reinstating, disabling, archiving or locking a template of an official
 * sandbox channel. The sandbox's own template takes the status the event gives it (what its template
 * list and sends then see), and the event goes out as the provider's `message_template_status_update`
 * webhook, with the details the provider documents for it, so Parley applies it exactly as it would
 * the provider's.
 */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { channels, sandboxAccounts, sandboxTemplates } from '../db/schema.ts';
import { isUuid } from '../lib/ids.ts';
import type { SandboxContext } from './context.ts';
import { fail, gateway, ok, type GatewayResult } from './errors.ts';
import { findTemplate } from './official/shared.ts';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown, max = 1024): value is string => typeof value === 'string' && value.trim() !== '' && value.length <= max;

/**
 * Every event the provider documents for message_template_status_update, and the status its template
 * list shows after it: its own name, another, or unchanged (undefined). UNARCHIVED returns a template
 * to what it was before (only approved and rejected ones can be archived: a rejection keeps its reason).
 */
const EVENTS: Record<string, (current: { status: string; reason: string | null }) => string> = {
  APPROVED: () => 'APPROVED',
  PENDING: () => 'PENDING',
  IN_APPEAL: () => 'IN_APPEAL',
  REJECTED: () => 'REJECTED',
  LIMIT_EXCEEDED: () => 'LIMIT_EXCEEDED',
  PAUSED: () => 'PAUSED',
  DISABLED: () => 'DISABLED',
  PENDING_DELETION: () => 'PENDING_DELETION',
  DELETED: () => 'DELETED',
  ARCHIVED: () => 'ARCHIVED',
  UNARCHIVED: (t) => (t.status !== 'ARCHIVED' ? t.status : t.reason && t.reason !== 'NONE' ? 'REJECTED' : 'APPROVED'),
  REINSTATED: () => 'APPROVED',
  FLAGGED: (t) => t.status,
  LOCKED: (t) => t.status,
  UNLOCKED: (t) => t.status,
};

/** The events the provider documents, for callers and error messages. */
export const TEMPLATE_EVENTS = Object.keys(EVENTS);

/** What a report may carry beside its event, as the provider's webhook does. */
function details(body: Json): Json | string {
  const out: Json = {};
  if (body.reason !== undefined) {
    if (!text(body.reason, 256)) return 'reason must be a non-empty string';
    out.reason = body.reason;
  }
  if (body.other_info !== undefined) {
    const o = body.other_info;
    if (!isObject(o) || !text(o.title, 256) || !text(o.description))
      return 'other_info must be {title, description} (e.g. FIRST_PAUSE and what it means)';
    out.other_info = { title: o.title, description: o.description };
  }
  if (body.rejection_info !== undefined) {
    const r = body.rejection_info;
    if (!isObject(r) || !text(r.reason) || !text(r.recommendation)) return 'rejection_info must be {reason, recommendation}';
    out.rejection_info = { reason: r.reason, recommendation: r.recommendation };
  }
  if (body.disable_date !== undefined) {
    if (!Number.isInteger(body.disable_date) || (body.disable_date as number) <= 0) return 'disable_date must be Unix seconds';
    out.disable_date = body.disable_date;
  }
  return out;
}

export function createTemplateEvents(ctx: SandboxContext) {
  return {
    /**
     * POST /sandbox/template-event {channel_id, name, language, event, reason?, other_info?,
     * rejection_info?, disable_date?}: the provider reports `event` on the channel's template of that
     * name and language. Answers the template's status as the provider's list now shows it.
     */
    async report(db: Executor, organizationId: string, body: unknown): Promise<GatewayResult<{ id: string; status: string }>> {
      if (!isObject(body)) return fail(gateway.invalid('the body must be a JSON object {channel_id, name, language, event}'));
      if (typeof body.channel_id !== 'string' || !isUuid(body.channel_id)) return fail(gateway.invalid('channel_id must be a channel id'));
      if (!text(body.name, 512) || !text(body.language, 16)) return fail(gateway.invalid('name and language name the template'));
      const event = typeof body.event === 'string' ? body.event.toUpperCase() : '';
      const next = EVENTS[event];
      if (!next) return fail(gateway.invalid(`event must be one the provider documents: ${TEMPLATE_EVENTS.join(', ')}`));
      const extra = details(body);
      if (typeof extra === 'string') return fail(gateway.invalid(extra));

      const [channel] = await db
        .select()
        .from(channels)
        .where(and(eq(channels.id, body.channel_id), eq(channels.organizationId, organizationId)))
        .limit(1);
      const [account] =
        channel?.sandbox && channel.providerRef
          ? await db
              .select()
              .from(sandboxAccounts)
              .where(and(eq(sandboxAccounts.id, channel.providerRef), eq(sandboxAccounts.protocol, 'official')))
              .limit(1)
          : [];
      // Another organization's channel, an unknown id and a channel that is not the official sandbox's answer alike.
      if (!channel || !account) return fail(gateway.notFound('official sandbox channel'));
      const template = await findTemplate(db, account.wabaId ?? '', body.name, body.language);
      if (!template) return fail(gateway.notFound('template'));

      const status = next(template);
      const keepsReason = status === template.status || event === 'ARCHIVED' || event === 'UNARCHIVED';
      await db.transaction(async (tx) => {
        await tx
          .update(sandboxTemplates)
          .set({ status, ...(keepsReason ? {} : { reason: (extra.reason as string | undefined) ?? 'NONE' }) })
          .where(eq(sandboxTemplates.id, template.id));
        await ctx.enqueueCallback(tx, { kind: 'template.status', template_id: template.id, event, ...extra }, 0);
      });
      return ok({ id: template.id, status });
    },
  };
}
