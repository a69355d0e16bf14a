import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WACallEvent } from 'baileys';
import type { InboundEvent } from '../../provider.ts';
import { callEvents as normalize } from './calls.ts';

type CallEvent = Extract<InboundEvent, { kind: 'call' }>;
const callEvents = (...args: Parameters<typeof normalize>) => normalize(...args) as CallEvent[];

const REF = 'channel-1';
const SELF = { phone: '4930111111', lid: '99887766' };
const CUSTOMER = '4915112345678';
const CUSTOMER_LID = '123456789012345';
const at = new Date('2025-06-02T09:15:00.000Z');

/** A call event as the library's handleCall builds it (messages-recv.js). */
const call = (fields: Partial<WACallEvent>): WACallEvent => ({
  chatId: `${CUSTOMER_LID}@lid`,
  from: `${CUSTOMER_LID}@lid`,
  id: 'C1',
  date: at,
  offline: false,
  status: 'offer',
  ...fields,
});

test("a call from a privacy id with the caller's phone beside it: the phone is the caller, both ids are identities", () => {
  const [event] = callEvents(REF, [call({ callerPn: `${CUSTOMER}@s.whatsapp.net`, isVideo: true, isGroup: false })], {
    self: SELF,
    groups: false,
  });
  assert.deepEqual(event, {
    kind: 'call',
    ref: REF,
    callId: 'C1',
    from: CUSTOMER,
    identities: [
      { type: 'chatapp_id', value: CUSTOMER },
      { type: 'linked_id', value: CUSTOMER_LID },
    ],
    status: 'offer',
    video: true,
    timestamp: at,
  });
});

test("each end of a call is reported; a call's signalling is not; a caller with no phone known, our own device and group calls (unless groups are kept) are skipped", () => {
  const byPhone = { from: `${CUSTOMER}@s.whatsapp.net` };
  for (const status of ['accept', 'reject', 'timeout', 'terminate'] as const)
    assert.equal(callEvents(REF, [call({ ...byPhone, status })], { self: SELF, groups: false })[0]?.status, status);
  for (const status of ['ringing', 'preaccept', 'transport', 'relaylatency'] as const)
    assert.deepEqual(callEvents(REF, [call({ ...byPhone, status })], { self: SELF, groups: false }), []);
  assert.deepEqual(callEvents(REF, [call({})], { self: SELF, groups: false }), []);
  assert.deepEqual(callEvents(REF, [call({ from: `${SELF.phone}@s.whatsapp.net` })], { self: SELF, groups: false }), []);
  const group = call({ ...byPhone, isGroup: true, groupJid: '120363025246125486@g.us' });
  assert.deepEqual(callEvents(REF, [group], { self: SELF, groups: false }), []);
  assert.equal(callEvents(REF, [group], { self: SELF, groups: true })[0]?.group, '120363025246125486@g.us');
});
