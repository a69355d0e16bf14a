/** Calls, gateway side: POST /sessions/{session}/calls/{call_id}/reject {from}: a ringing call ends, rejected. */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { sandboxMessages } from '../../db/schema.ts';
import type { AccountRow } from '../context.ts';
import { callStateAfter, type CallBody } from '../calls.ts';
import { fail, gateway, ok, type GatewayResult } from '../errors.ts';
import { normalizePhone } from '../rules.ts';
import { isObject, type Json } from './parse-send.ts';
import { working } from './profiles.ts';

export async function rejectCall(db: Executor, account: AccountRow, callId: string, body: unknown): Promise<GatewayResult<Json>> {
  const live = working(account);
  if (!live.ok) return live;
  if (body !== undefined && (!isObject(body) || (body.from !== undefined && !normalizePhone(body.from))))
    return fail(gateway.invalid('the body is {from}: the caller, international digits'));
  return db.transaction(async (tx): Promise<GatewayResult<Json>> => {
    const [call] = await tx
      .select()
      .from(sandboxMessages)
      .where(and(eq(sandboxMessages.id, callId), eq(sandboxMessages.accountId, account.id), eq(sandboxMessages.type, 'call')))
      .for('update')
      .limit(1);
    if (!call) return fail(gateway.notFound(`call ${callId}`));
    const stored = call.body as unknown as CallBody;
    if (callStateAfter(stored.status, 'reject') !== 'rejected')
      return fail(gateway.conflict('call_ended', `the call is ${stored.status}, not ringing`));
    await tx
      .update(sandboxMessages)
      .set({ status: 'rejected', body: { ...stored, status: 'rejected' } })
      .where(eq(sandboxMessages.id, call.id));
    // The device that rejects a call hears nothing back of it: no callback.
    return ok({});
  });
}
