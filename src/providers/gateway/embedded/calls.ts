/**
 * Calls to the session's number: the library's `call` events (offer, accept, reject, timeout,
 * terminate; the rest of a call's signalling is not news) and its missed-call stubs, as Parley's
 * `call` events. A caller named by privacy id gets the phone the library's store maps it to first
 * (withCallerPhones), as message senders do; a caller with no phone known is skipped.
 */
import type { WACallEvent } from 'baileys';
import type { InboundEvent } from '../../provider.ts';
import { lidOfJid, phoneOfJid, serverOf } from './ids.ts';
import type { InboundContext } from './inbound.ts';
import type { EngineSocket } from './socket.ts';

type CallStatus = Extract<InboundEvent, { kind: 'call' }>['status'];
const STATUSES = new Set<string>(['offer', 'accept', 'reject', 'timeout', 'terminate'] satisfies CallStatus[]);

/** The library's missed-call stubs (it writes one when a call times out), by name: whether video, whether a group call. */
export const MISSED_CALL_STUBS: Record<string, { video: boolean; group: boolean }> = {
  CALL_MISSED_VOICE: { video: false, group: false },
  CALL_MISSED_VIDEO: { video: true, group: false },
  CALL_MISSED_GROUP_VOICE: { video: false, group: true },
  CALL_MISSED_GROUP_VIDEO: { video: true, group: true },
};

/** The caller's phone digits and privacy id, from `from` and `callerPn` (never our own). */
function callerOf(call: WACallEvent, context: InboundContext): { phone?: string; lid?: string } {
  const self = context.self ?? {};
  const phone = phoneOfJid(call.from) ?? phoneOfJid(call.callerPn);
  const lid = lidOfJid(call.from) ?? lidOfJid(call.callerPn);
  return { phone: phone && phone !== self.phone ? phone : undefined, lid: lid && lid !== self.lid ? lid : undefined };
}

export function callEvents(ref: string, calls: WACallEvent[], context: InboundContext): InboundEvent[] {
  return calls.flatMap((call): InboundEvent[] => {
    if (!call?.id || !STATUSES.has(call.status)) return [];
    const group = call.isGroup ? (call.groupJid ?? (serverOf(call.chatId) === 'g.us' ? call.chatId : undefined)) : undefined;
    // Group calls are kept where group messages are.
    if (call.isGroup && !context.groups) return [];
    const caller = callerOf(call, context);
    if (!caller.phone) return [];
    return [
      {
        kind: 'call',
        ref,
        callId: call.id,
        from: caller.phone,
        identities: [{ type: 'chatapp_id', value: caller.phone }, ...(caller.lid ? [{ type: 'linked_id', value: caller.lid }] : [])],
        status: call.status as CallStatus,
        video: call.isVideo === true,
        ...(group ? { group } : {}),
        timestamp: call.date instanceof Date && !Number.isNaN(call.date.getTime()) ? call.date : new Date(),
      },
    ];
  });
}

/** A missed-call stub the library wrote (its key is the call's id): the call timed out. */
export function missedCallEvent(
  ref: string,
  stub: { video: boolean; group: boolean },
  input: { callId: string; phone: string; lid?: string; profileName?: string; timestamp: Date; group?: string },
): InboundEvent {
  return {
    kind: 'call',
    ref,
    callId: input.callId,
    from: input.phone,
    ...(input.profileName ? { profileName: input.profileName } : {}),
    identities: [{ type: 'chatapp_id', value: input.phone }, ...(input.lid ? [{ type: 'linked_id', value: input.lid }] : [])],
    status: 'timeout',
    video: stub.video,
    ...(input.group ? { group: input.group } : {}),
    timestamp: input.timestamp,
  };
}

/** Callers named by privacy id only get the phone the library's store maps it to (as `callerPn`), where it knows one. */
export async function withCallerPhones(socket: EngineSocket, calls: WACallEvent[]): Promise<void> {
  if (!socket.phoneJidOfLid) return;
  for (const call of calls) {
    if (lidOfJid(call.from) && !phoneOfJid(call.callerPn))
      call.callerPn = (await socket.phoneJidOfLid(call.from).catch(() => undefined)) ?? call.callerPn;
  }
}
