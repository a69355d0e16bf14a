import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeGatewayCallback } from './inbound.ts';

test('a message.statuses callback is one status event per entry, in order; entries that are not statuses are skipped', () => {
  const events = normalizeGatewayCallback({
    event: 'message.statuses',
    session: 'gws_1',
    timestamp: '2026-11-26T10:00:00.000Z',
    payload: {
      statuses: [
        { id: 'm1', status: 'delivered' },
        { id: 'm2', status: 'failed', error: { code: 'undeliverable', message: 'message undeliverable' } },
        { id: 'm3', status: 'typing' },
        'nonsense',
        null,
        { id: 'm4', status: 'read' },
      ],
    },
  });
  const at = new Date('2026-11-26T10:00:00.000Z');
  assert.deepEqual(events, [
    { kind: 'message.status', ref: 'gws_1', providerMessageId: 'm1', status: 'delivered', timestamp: at },
    {
      kind: 'message.status',
      ref: 'gws_1',
      providerMessageId: 'm2',
      status: 'failed',
      timestamp: at,
      error: { code: 'undeliverable', title: 'message undeliverable' },
    },
    { kind: 'message.status', ref: 'gws_1', providerMessageId: 'm4', status: 'read', timestamp: at },
  ]);
  assert.deepEqual(normalizeGatewayCallback({ event: 'message.statuses', session: 'gws_1', payload: { statuses: 'no' } }), []);
});

test('a message.status callback is still one event', () => {
  const events = normalizeGatewayCallback({
    event: 'message.status',
    session: 'gws_1',
    timestamp: '2026-11-26T10:00:00.000Z',
    payload: { id: 'm1', status: 'sent' },
  });
  assert.deepEqual(events, [
    { kind: 'message.status', ref: 'gws_1', providerMessageId: 'm1', status: 'sent', timestamp: new Date('2026-11-26T10:00:00.000Z') },
  ]);
});

test('group.update callbacks: each change in group.updated words, participants by phone; a bad one is skipped', () => {
  const at = new Date('2026-11-26T10:00:00.000Z');
  const callback = (payload: Record<string, unknown>) =>
    normalizeGatewayCallback({ event: 'group.update', session: 'gws_1', timestamp: at.toISOString(), payload });
  assert.deepEqual(
    callback({
      group_id: '120363000000000001@g.us',
      change: 'group_add_participants',
      author: '+4915100000001',
      participants: [{ phone: '4915100000002', lid: '8022' }, { phone: 'nobody' }],
    }),
    [
      {
        kind: 'group.update',
        ref: 'gws_1',
        field: 'group',
        groupId: '120363000000000001@g.us',
        change: 'group_add_participants',
        details: { added_participants: [{ wa_id: '4915100000002', lid: '8022' }], author: '4915100000001' },
        timestamp: at,
      },
    ],
  );
  const [settings] = callback({
    group_id: '120363000000000001@g.us',
    change: 'group_settings_update',
    subject: 'New name',
    settings: { announcement: true, locked: 'yes', ephemeral_seconds: 86400 },
  });
  assert.deepEqual((settings as { details: unknown }).details, {
    subject: 'New name',
    settings: { announcement: true, ephemeral_seconds: 86400 },
  });
  assert.deepEqual(callback({ group_id: 'not-a-group', change: 'group_join' }), []);
  assert.deepEqual(callback({ group_id: '120363000000000001@g.us', change: 'group_explode' }), []);
});

test('presence callbacks and group messages: a presence event; a group message in its group’s chat, a status post in status@broadcast', () => {
  const at = new Date('2026-11-26T10:00:00.000Z');
  assert.deepEqual(
    normalizeGatewayCallback({
      event: 'presence',
      session: 'gws_1',
      timestamp: at.toISOString(),
      payload: { phone: '4915100000003', presence: 'composing', chat: '120363000000000001@g.us', last_seen: '2026-11-26T09:00:00.000Z' },
    }),
    [
      {
        kind: 'presence.update',
        ref: 'gws_1',
        phone: '4915100000003',
        chat: '120363000000000001@g.us',
        presence: 'composing',
        lastSeen: new Date('2026-11-26T09:00:00.000Z'),
        timestamp: at,
      },
    ],
  );
  assert.deepEqual(
    normalizeGatewayCallback({ event: 'presence', session: 'gws_1', payload: { phone: '4915100000003', presence: 'dancing' } }),
    [],
  );
  const message = (payload: Record<string, unknown>) =>
    normalizeGatewayCallback({
      event: 'message',
      session: 'gws_1',
      payload: { id: 'm9', from: '4915100000004', type: 'text', ...payload },
    })[0] as {
      chat?: string;
      content: unknown;
    };
  const grouped = message({ content: { body: 'hi', group: { id: '120363000000000001@g.us' } } });
  assert.equal(grouped.chat, '120363000000000001@g.us');
  const story = message({ content: { body: 'story' }, chat: 'status@broadcast' });
  assert.deepEqual([story.chat, story.content], ['status@broadcast', { body: 'story', status_post: true }]);
  assert.equal(message({ content: { body: 'hi' } }).chat, undefined);
});

test('label callbacks: a label edited or deleted, a label put on a chat or a message and taken off; bad ones skipped', () => {
  const at = new Date('2026-11-28T10:00:00.000Z');
  const callback = (event: string, payload: unknown) =>
    normalizeGatewayCallback({ event, session: 'gws_1', timestamp: at.toISOString(), payload });
  assert.deepEqual(callback('label.edit', { id: '3', name: 'Paid', color: 5 }), [
    { kind: 'label.edit', ref: 'gws_1', labelId: '3', name: 'Paid', color: 5, deleted: false, timestamp: at },
  ]);
  assert.deepEqual(callback('label.edit', { id: '3', name: 'Paid', color: 99, deleted: true }), [
    { kind: 'label.edit', ref: 'gws_1', labelId: '3', name: 'Paid', color: 0, deleted: true, timestamp: at },
  ]);
  assert.deepEqual(callback('label.association', { label_id: '3', chat: '+4915112345678', action: 'add' }), [
    { kind: 'label.association', ref: 'gws_1', labelId: '3', chat: '4915112345678', action: 'add', timestamp: at },
  ]);
  assert.deepEqual(callback('label.association', { label_id: '3', chat: '120363025246125888@g.us', message_id: 'm1', action: 'remove' }), [
    {
      kind: 'label.association',
      ref: 'gws_1',
      labelId: '3',
      chat: '120363025246125888@g.us',
      messageId: 'm1',
      action: 'remove',
      timestamp: at,
    },
  ]);
  for (const [event, payload] of [
    ['label.edit', { name: 'no id' }],
    ['label.edit', { id: 'a b', name: 'bad id' }],
    ['label.association', { label_id: '3', chat: 'someone', action: 'add' }],
    ['label.association', { label_id: '3', chat: '4915112345678', action: 'toggle' }],
    ['label.association', { chat: '4915112345678', action: 'add' }],
  ] as const)
    assert.deepEqual(callback(event, payload), [], `${event} ${JSON.stringify(payload)}`);
});

test('a chat.update callback is the chat change it names (a number or a group); a deletion is that alone; nothing to say is nothing', () => {
  const at = '2026-11-26T10:00:00.000Z';
  const callback = (payload: Record<string, unknown>) =>
    normalizeGatewayCallback({ event: 'chat.update', session: 'gws_1', timestamp: at, payload });
  assert.deepEqual(
    callback({ chat: '+4915112340101', archived: true, pinned: false, muted_until: '2026-11-27T10:00:00.000Z', unread: true }),
    [
      {
        kind: 'chat.update',
        ref: 'gws_1',
        chat: '4915112340101',
        archived: true,
        pinned: false,
        unread: true,
        mutedUntil: new Date('2026-11-27T10:00:00.000Z'),
        timestamp: new Date(at),
      },
    ],
  );
  assert.deepEqual(callback({ chat: '120363025246125888@g.us', muted_until: null }), [
    { kind: 'chat.update', ref: 'gws_1', chat: '120363025246125888@g.us', mutedUntil: null, timestamp: new Date(at) },
  ]);
  assert.deepEqual(callback({ chat: '4915112340101', deleted: true, archived: true }), [
    { kind: 'chat.update', ref: 'gws_1', chat: '4915112340101', deleted: true, timestamp: new Date(at) },
  ]);
  assert.deepEqual(callback({ chat: '4915112340101' }), []);
  assert.deepEqual(callback({ chat: 'status@broadcast', archived: true }), []);
  assert.deepEqual(callback({ chat: '4915112340101', archived: 'yes', muted_until: 'soon' }), []);
});

test("a message callback's mentions are E.164; history: true marks a message of the chat's history", () => {
  const [event] = normalizeGatewayCallback({
    event: 'message',
    session: 'gws_1',
    timestamp: '2026-11-26T10:00:00.000Z',
    payload: {
      id: 'm1',
      from: '4915112340101',
      type: 'text',
      content: { body: 'hi @49151', mentions: ['4915112340102', '+4915112340103', 'x'] },
      history: true,
    },
  });
  assert.equal(event!.kind, 'message.inbound');
  const inbound = event as Extract<typeof event, { kind: 'message.inbound' }>;
  assert.deepEqual(inbound.content.mentions, ['+4915112340102', '+4915112340103']);
  assert.equal(inbound.history, true);
});

test('a message.starred callback is the star on the phone', () => {
  const at = '2026-11-26T10:00:00.000Z';
  const of = (payload: Record<string, unknown>) =>
    normalizeGatewayCallback({ event: 'message.starred', session: 'gws_1', timestamp: at, payload });
  assert.deepEqual(of({ id: 'm1', starred: true }), [
    { kind: 'message.starred', ref: 'gws_1', providerMessageId: 'm1', starred: true, timestamp: new Date(at) },
  ]);
  assert.deepEqual(of({ id: 'm1', starred: 'yes' }), []);
});
