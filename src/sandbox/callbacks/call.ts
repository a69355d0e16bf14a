/** A call's event, as the gateway's `call` callback (docs/gateway-protocol.md). */
import type { Executor } from '../../db/client.ts';
import type { CallBody } from '../calls.ts';
import type { SandboxCallback, SandboxContext } from '../context.ts';
import { lidOf } from '../rules.ts';
import { gatewayDelivery, post } from './delivery.ts';
import { loadMessage } from './load.ts';

export async function deliverCall(ctx: SandboxContext, db: Executor, payload: Extract<SandboxCallback, { kind: 'call' }>, eventId: string) {
  const found = await loadMessage(db, payload.call_id);
  if (!found) {
    ctx.logger.warn({ call_id: payload.call_id }, 'sandbox call callback for an unknown call dropped');
    return;
  }
  const { message, account } = found;
  const stored = message.body as unknown as CallBody;
  const delivery = gatewayDelivery(
    ctx,
    account,
    eventId,
    'call',
    {
      id: message.id,
      from: message.recipient,
      from_lid: lidOf(message.recipient),
      from_name: stored.name,
      status: payload.status,
      video: stored.video,
      ...(stored.group ? { group: stored.group } : {}),
    },
    payload.at,
  );
  if (!delivery) {
    ctx.logger.info({ session: account.id }, 'sandbox gateway callback not sent: the session has no callback_url');
    return;
  }
  await post(ctx, delivery);
}
