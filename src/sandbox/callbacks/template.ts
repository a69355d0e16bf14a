/**
 * A template's decision, as the official webhook `message_template_status_update` (a pending template is
 * decided here), or a later report on it (POST /sandbox/template-event: the event, with its details).
 */
import { eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { sandboxAccounts, sandboxTemplates } from '../../db/schema.ts';
import type { SandboxCallback, SandboxContext } from '../context.ts';
import { templateDecision } from '../rules.ts';
import { officialDelivery, officialTarget, post } from './delivery.ts';

export async function deliverTemplate(ctx: SandboxContext, db: Executor, payload: Extract<SandboxCallback, { kind: 'template.status' }>) {
  const [template] = await db.select().from(sandboxTemplates).where(eq(sandboxTemplates.id, payload.template_id)).limit(1);
  if (!template) {
    ctx.logger.warn({ template_id: payload.template_id }, 'sandbox template callback for an unknown template dropped');
    return;
  }
  let { status, reason } = template;
  if (payload.event) {
    status = payload.event;
    reason = payload.reason ?? 'NONE';
  } else if (status === 'PENDING') {
    const decision = templateDecision(template.name);
    ({ status, reason } = decision);
    await db.update(sandboxTemplates).set({ status, reason }).where(eq(sandboxTemplates.id, template.id));
  }
  const [account] = await db.select().from(sandboxAccounts).where(eq(sandboxAccounts.wabaId, template.wabaId)).limit(1);
  if (!account || !officialTarget(ctx, account)) return;
  const body = {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: template.wabaId,
        time: Math.floor(ctx.clock.now().getTime() / 1000),
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
              ...(payload.disable_date !== undefined ? { disable_info: { disable_date: payload.disable_date } } : {}),
              ...(payload.other_info ? { other_info: payload.other_info } : {}),
              ...(payload.rejection_info ? { rejection_info: payload.rejection_info } : {}),
            },
          },
        ],
      },
    ],
  };
  await post(ctx, officialDelivery(ctx, body));
}
