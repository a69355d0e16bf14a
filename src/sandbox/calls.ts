/**
 * A customer calls a sandbox gateway channel (docs/sandbox.md): `POST /sandbox/call` rings (the
 * gateway's `call` callback with status `offer`), `POST /sandbox/call/end` ends it as the caller's or
 * the business's phone would (`accept`, `reject`, `timeout`, `terminate`). A call is a sandbox_messages
 * row (type `call`, inbound), so the gateway's reject (gateway/calls.ts) finds it. Gateway channels only.
 */
import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { sandboxMessages } from '../db/schema.ts';
import type { SandboxContext } from './context.ts';
import { fail, gateway, ok, type GatewayResult } from './errors.ts';
import { pairedSession } from './phone.ts';
import { normalizePhone } from './rules.ts';

type Json = Record<string, unknown>;

/** What a call row keeps in its body. */
export type CallBody = { video: boolean; name: string; group?: string; status: CallState };
/** ringing, then answered, rejected, ended (after an answer) or missed. */
export type CallState = 'ringing' | 'answered' | 'rejected' | 'ended' | 'missed';

const END_STATUSES = ['accept', 'reject', 'timeout', 'terminate'] as const;
type EndStatus = (typeof END_STATUSES)[number];

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What a report makes of a call in a state; undefined: the report does not fit (409). */
export function callStateAfter(state: CallState, status: EndStatus): CallState | undefined {
  if (state === 'ringing') return status === 'accept' ? 'answered' : status === 'reject' ? 'rejected' : 'missed';
  if (state === 'answered' && status === 'terminate') return 'ended';
  return undefined;
}

/** A call id as the chat app writes them (32 upper-case hex digits). */
const callId = () => randomBytes(16).toString('hex').toUpperCase();

export function createCalls(ctx: SandboxContext) {
  const { clock } = ctx;
  return {
    /** POST /sandbox/call {channel_id, from, video?, name?, group?}: a customer calls; it rings. */
    async ring(db: Executor, organizationId: string, body: unknown): Promise<GatewayResult<{ call_id: string }>> {
      if (!isObject(body)) return fail(gateway.invalid('the body must be a JSON object {channel_id, from, video?, name?, group?}'));
      const from = normalizePhone(body.from);
      if (!from) return fail(gateway.invalid('from must be international digits without +'));
      if (body.video !== undefined && typeof body.video !== 'boolean') return fail(gateway.invalid('video must be true or false'));
      if (body.name !== undefined && (typeof body.name !== 'string' || body.name.trim() === '' || body.name.length > 256))
        return fail(gateway.invalid('name must be a non-empty string'));
      if (body.group !== undefined && (typeof body.group !== 'string' || !/^\d{5,20}(-\d{5,20})?@g\.us$/.test(body.group)))
        return fail(gateway.invalid('group must be a group id, <digits>@g.us'));
      const account = await pairedSession(db, organizationId, body.channel_id);
      if (!account.ok) return account;
      const id = callId();
      const stored: CallBody = {
        video: body.video === true,
        name: (body.name as string | undefined) ?? 'Sandbox Customer',
        ...(body.group ? { group: body.group as string } : {}),
        status: 'ringing',
      };
      await db.transaction(async (tx) => {
        await tx.insert(sandboxMessages).values({
          id,
          accountId: account.value.id,
          direction: 'inbound',
          recipient: from,
          type: 'call',
          body: stored as unknown as Json,
          status: 'ringing',
          createdAt: clock.now(),
        });
        await ctx.enqueueCallback(tx, { kind: 'call', call_id: id, status: 'offer', at: clock.now().toISOString() }, 0);
      });
      return ok({ call_id: id });
    },

    /** POST /sandbox/call/end {channel_id, call_id, status}: the call is answered, rejected on the phone, rings out or is hung up. */
    async end(db: Executor, organizationId: string, body: unknown): Promise<GatewayResult<{ call_id: string; status: CallState }>> {
      if (!isObject(body)) return fail(gateway.invalid('the body must be a JSON object {channel_id, call_id, status}'));
      if (!END_STATUSES.includes(body.status as EndStatus))
        return fail(gateway.invalid(`status must be one of ${END_STATUSES.join(', ')}`));
      const account = await pairedSession(db, organizationId, body.channel_id);
      if (!account.ok) return account;
      return db.transaction(async (tx) => {
        const [call] =
          typeof body.call_id === 'string' && body.call_id.length <= 128
            ? await tx
                .select()
                .from(sandboxMessages)
                .where(
                  and(
                    eq(sandboxMessages.id, body.call_id),
                    eq(sandboxMessages.accountId, account.value.id),
                    eq(sandboxMessages.type, 'call'),
                  ),
                )
                .for('update')
                .limit(1)
            : [];
        if (!call) return fail(gateway.notFound(`call ${String(body.call_id)}`));
        const stored = call.body as unknown as CallBody;
        const next = callStateAfter(stored.status, body.status as EndStatus);
        if (!next) return fail(gateway.conflict('call_ended', `the call is ${stored.status}; it cannot be ${String(body.status)} now`));
        await tx
          .update(sandboxMessages)
          .set({ status: next, body: { ...stored, status: next } })
          .where(eq(sandboxMessages.id, call.id));
        await ctx.enqueueCallback(
          tx,
          { kind: 'call', call_id: call.id, status: body.status as EndStatus, at: clock.now().toISOString() },
          0,
        );
        return ok({ call_id: call.id, status: next });
      });
    },
  };
}
