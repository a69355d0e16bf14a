import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groupSocketEvents } from './group-events.ts';

const now = new Date('2026-11-26T10:00:00.000Z');
const GROUP = '120363025246125486@g.us';
const self = { phone: '4915100000000', lid: '100' };

test("the library's group notices: a group made with the number in it, what changed, members changed; a listing's metadata is no change", () => {
  const [joined] = groupSocketEvents(
    'ref',
    {
      event: 'groups.upsert',
      data: [
        { id: GROUP, subject: 'Team', owner: undefined, participants: [], author: '200@lid', authorPn: '4915100000001@s.whatsapp.net' },
      ],
    },
    { now, self },
  );
  assert.deepEqual(joined, {
    kind: 'group.update',
    ref: 'ref',
    field: 'group',
    groupId: GROUP,
    change: 'group_join',
    details: { subject: 'Team', author: '4915100000001' },
    timestamp: now,
  });
  const updates = groupSocketEvents(
    'ref',
    {
      event: 'groups.update',
      data: [
        { id: GROUP, announce: true, restrict: false, author: '4915100000001@s.whatsapp.net' },
        { id: GROUP, desc: 'About us' },
        { id: GROUP, inviteCode: 'abc' },
        // The whole metadata the library emits when every group is fetched: not a change.
        { id: GROUP, subject: 'Team', participants: [] },
      ],
    },
    { now, self },
  );
  assert.deepEqual(
    updates.map((u) => (u as { details: unknown }).details),
    [{ settings: { announcement: true, locked: false }, author: '4915100000001' }, { description: 'About us' }],
  );
});

test('participants by phone (a privacy id through the store’s mapping); the number itself added or removed is group_join or group_leave', () => {
  const phones = new Map([['300@lid', '4915100000003@s.whatsapp.net']]);
  const [added] = groupSocketEvents(
    'ref',
    {
      event: 'group-participants.update',
      data: { id: GROUP, author: '4915100000001@s.whatsapp.net', action: 'add', participants: [{ id: '300@lid' }, { id: '400@lid' }] },
    },
    { now, self, phones },
  );
  assert.equal((added as { change: string }).change, 'group_add_participants');
  assert.deepEqual((added as { details: unknown }).details, {
    added_participants: [{ wa_id: '4915100000003', lid: '300' }],
    author: '4915100000001',
  });
  const [left] = groupSocketEvents(
    'ref',
    {
      event: 'group-participants.update',
      data: { id: GROUP, author: '100@lid', action: 'remove', participants: [{ id: '4915100000000@s.whatsapp.net' }] },
    },
    { now, self },
  );
  assert.equal((left as { change: string }).change, 'group_leave');
  const [promoted] = groupSocketEvents(
    'ref',
    {
      event: 'group-participants.update',
      data: { id: GROUP, author: '', action: 'promote', participants: [{ id: '4915100000005@s.whatsapp.net' }] },
    },
    { now, self },
  );
  assert.deepEqual((promoted as { details: unknown }).details, { promoted_participants: [{ wa_id: '4915100000005' }] });
  assert.deepEqual(
    groupSocketEvents(
      'ref',
      { event: 'group-participants.update', data: { id: GROUP, author: '', action: 'modify', participants: [] } },
      { now, self },
    ),
    [],
  );
});

test('presence: each participant by phone, in a group its chat, last seen as a time; unknown presences and privacy ids without a phone are left out', () => {
  const events = groupSocketEvents(
    'ref',
    {
      event: 'presence.update',
      data: {
        id: GROUP,
        presences: {
          '4915100000006@s.whatsapp.net': { lastKnownPresence: 'recording' },
          '500@lid': { lastKnownPresence: 'composing' },
          '4915100000007@s.whatsapp.net': { lastKnownPresence: 'available', lastSeen: 1_700_000_000 },
        },
      },
    },
    { now, self },
  );
  assert.deepEqual(
    events.map((e) => e.kind === 'presence.update' && [e.phone, e.chat, e.presence, e.lastSeen?.toISOString()]),
    [
      ['4915100000006', GROUP, 'recording', undefined],
      ['4915100000007', GROUP, 'available', new Date(1_700_000_000_000).toISOString()],
    ],
  );
});
