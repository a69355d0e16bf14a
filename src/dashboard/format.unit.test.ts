import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHANNEL_STATUSES } from '../domain/channels/status.ts';
import { channelStatusClass } from './format.ts';

test('channel status badges: every state the channel machine has gets its colour; error and disconnected show as bad', () => {
  const classes = Object.fromEntries(CHANNEL_STATUSES.map((status) => [status, channelStatusClass(status)]));
  assert.deepEqual(classes, {
    pending: 'badge',
    connected: 'badge badge-ok',
    disconnected: 'badge badge-bad',
    error: 'badge badge-bad',
    pairing: 'badge',
  });
});
