/** A gateway session's status change, as its `session.status` callback. */
import { eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { sandboxAccounts } from '../../db/schema.ts';
import type { SandboxCallback, SandboxContext } from '../context.ts';
import { gatewayDelivery, post } from './delivery.ts';

export async function deliverSession(
  ctx: SandboxContext,
  db: Executor,
  payload: Extract<SandboxCallback, { kind: 'session.status' }>,
  eventId: string,
) {
  const [account] = await db.select().from(sandboxAccounts).where(eq(sandboxAccounts.id, payload.session_id)).limit(1);
  if (!account) {
    ctx.logger.warn({ session: payload.session_id }, 'sandbox session callback for an unknown session dropped');
    return;
  }
  const phone = account.displayPhoneNumber;
  const delivery = gatewayDelivery(
    ctx,
    account,
    eventId,
    'session.status',
    {
      status: payload.status,
      ...(payload.status === 'WORKING' && phone ? { me: { id: `${phone}@c.us`, phone } } : {}),
    },
    payload.at,
  );
  if (!delivery) {
    ctx.logger.info({ session: account.id }, 'sandbox gateway callback not sent: the session has no callback_url');
    return;
  }
  await post(ctx, delivery);
}

/** A group or presence event of a gateway session, as it was made (sandbox/gateway/groups.ts). */
export async function deliverGatewayEvent(
  ctx: SandboxContext,
  db: Executor,
  payload: Extract<SandboxCallback, { kind: 'gateway.event' }>,
  eventId: string,
) {
  const [account] = await db.select().from(sandboxAccounts).where(eq(sandboxAccounts.id, payload.session_id)).limit(1);
  if (!account) return;
  const delivery = gatewayDelivery(ctx, account, eventId, payload.event, payload.payload, payload.at);
  if (!delivery) {
    ctx.logger.info({ session: account.id }, 'sandbox gateway callback not sent: the session has no callback_url');
    return;
  }
  await post(ctx, delivery);
}
