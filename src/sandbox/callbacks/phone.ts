/** What the business's phone did (../phone.ts): an echo, an edit, a deletion, as gateway callbacks. */
import type { Executor } from '../../db/client.ts';
import type { SandboxCallback, SandboxContext } from '../context.ts';
import { gatewayDelivery, post } from './delivery.ts';
import { loadMessage } from './load.ts';

export async function deliverPhone(
  ctx: SandboxContext,
  db: Executor,
  payload: Extract<SandboxCallback, { kind: 'message.echo' | 'message.edited' | 'message.deleted' }>,
  eventId: string,
) {
  const found = await loadMessage(db, payload.message_id);
  if (!found) {
    ctx.logger.warn({ message_id: payload.message_id }, `sandbox ${payload.kind} callback for an unknown message dropped`);
    return;
  }
  const { message, account } = found;
  const body = message.body as { content?: Record<string, unknown>; reply_to?: string };
  const event =
    payload.kind === 'message.echo'
      ? {
          id: message.id,
          to: message.recipient,
          type: message.type,
          content: body.content ?? {},
          ...(body.reply_to ? { reply_to: body.reply_to } : {}),
        }
      : payload.kind === 'message.edited'
        ? { id: message.id, content: { body: payload.body } }
        : { id: message.id };
  const delivery = gatewayDelivery(ctx, account, eventId, payload.kind, event, payload.at);
  if (!delivery) {
    ctx.logger.info({ session: account.id }, 'sandbox gateway callback not sent: the session has no callback_url');
    return;
  }
  await post(ctx, delivery);
}
