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
