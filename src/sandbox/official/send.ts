/** POST /{phone_number_id}/messages: the provider's checks and answers, a throttled first attempt kept for its retry. */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { sandboxMessages, sandboxTemplates } from '../../db/schema.ts';
import { bodyHash, type AccountRow, type SandboxContext } from '../context.ts';
import { fail, ok, official, type OfficialResult } from '../errors.ts';
import { wamid } from '../ids.ts';
import { validateOfficialSend } from '../official-validation.ts';
import { recipientOutcome, statusSteps } from '../rules.ts';
import { isObject, type Json } from './shared.ts';

/** POST /{phone_number_id}/messages: a message, or a mark-as-read. */
export async function sendMessage(
  ctx: SandboxContext,
  db: Executor,
  account: AccountRow,
  phoneNumberId: string,
  body: unknown,
): Promise<OfficialResult<Json>> {
  if (account.id !== phoneNumberId) return fail(official.unknownObject('POST', phoneNumberId));
  const validated = validateOfficialSend(body);
  if (!validated.ok) return validated;
  const send = validated.value;
  if (send.kind === 'read') {
    const read = await db
      .update(sandboxMessages)
      .set({ status: 'read' })
      .where(
        and(eq(sandboxMessages.id, send.messageId), eq(sandboxMessages.accountId, account.id), eq(sandboxMessages.direction, 'inbound')),
      )
      .returning({ id: sandboxMessages.id });
    if (read.length === 0)
      return fail(official.invalidParameter(`Param message_id (${send.messageId}) is not a message this number received.`));
    return ok({ success: true });
  }
  if (!account.registered) return fail(official.notRegistered());
  if (send.template) {
    const refused = await templateCheck(db, account, send.template);
    if (refused) return refused;
  }
  const outcome = recipientOutcome(send.to);
  // A template may open a conversation; anything else needs the customer to have written lately.
  if (outcome === 'refuse' && send.type !== 'template') return fail(official.reengagement());
  const native = body as Json;
  const hash = bodyHash(native);
  return db.transaction(async (tx): Promise<OfficialResult<Json>> => {
    const [throttled] = await tx
      .update(sandboxMessages)
      .set({ status: 'accepted' })
      .where(
        and(
          eq(sandboxMessages.accountId, account.id),
          eq(sandboxMessages.recipient, send.to),
          eq(sandboxMessages.bodyHash, hash),
          eq(sandboxMessages.status, 'throttled'),
        ),
      )
      .returning({ id: sandboxMessages.id });
    let id: string;
    if (throttled) {
      id = throttled.id;
    } else {
      id = wamid();
      const first = outcome === 'throttle_once';
      await tx.insert(sandboxMessages).values({
        id,
        accountId: account.id,
        direction: 'outbound',
        recipient: send.to,
        type: send.type,
        body: native,
        bodyHash: hash,
        status: first ? 'throttled' : 'accepted',
        createdAt: ctx.clock.now(),
      });
      // The refused first attempt is kept (committed) so its retry is recognised.
      if (first) return fail(official.throughput());
    }
    await ctx.enqueueCallback(tx, { kind: 'message.status', message_id: id, status: statusSteps(outcome)[0]! }, 1);
    return ok({
      messaging_product: 'whatsapp',
      contacts: [{ input: String(native.to), wa_id: send.to }],
      messages: [send.type === 'template' ? { id, message_status: 'accepted' } : { id }],
    });
  });
}

async function templateCheck(db: Executor, account: AccountRow, template: { name: string; language: string; bodyParameters: number }) {
  const [row] = await db
    .select()
    .from(sandboxTemplates)
    .where(
      and(
        eq(sandboxTemplates.wabaId, account.wabaId ?? ''),
        eq(sandboxTemplates.name, template.name),
        eq(sandboxTemplates.language, template.language),
      ),
    )
    .limit(1);
  if (!row || row.status !== 'APPROVED') return fail(official.templateMissing(template.name, template.language));
  const expected = placeholderCount(row.components);
  if (expected !== template.bodyParameters) return fail(official.templateParams(expected, template.bodyParameters));
  return undefined;
}

function placeholderCount(components: unknown[]): number {
  const body = components.find((c) => isObject(c) && String(c.type).toUpperCase() === 'BODY') as Json | undefined;
  const text = typeof body?.text === 'string' ? body.text : '';
  return new Set(text.match(/\{\{\s*[^{}]+?\s*\}\}/g) ?? []).size;
}
