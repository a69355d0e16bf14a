import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHANNEL_STATUSES } from '../domain/channels/status.ts';
import { formatMoney, statusTone } from './format.ts';

test('status badges: channel states by the machine (error and disconnected bad, pending and pairing waiting, connected good)', () => {
  assert.deepEqual(Object.fromEntries(CHANNEL_STATUSES.map((s) => [s, statusTone(s)])), {
    pending: 'warn',
    connected: 'ok',
    disconnected: 'bad',
    error: 'bad',
    pairing: 'warn',
  });
});

test('status badges: a failed or rejected thing is always bad, a delivered, read or approved one good; unknown words are neutral', () => {
  for (const s of ['failed', 'rejected']) assert.equal(statusTone(s), 'bad', s);
  for (const s of ['delivered', 'read', 'approved', 'succeeded']) assert.equal(statusTone(s), 'ok', s);
  assert.equal(statusTone('something new'), 'neutral');
  assert.equal(statusTone('__proto__'), 'neutral');
});

test('money is shown from minor units with the currency’s digits', () => {
  assert.match(formatMoney(1250, 'EUR'), /12[.,]50/);
  assert.match(formatMoney(500, 'JPY'), /500/);
  assert.doesNotMatch(formatMoney(500, 'JPY'), /5[.,]00/);
  assert.equal(formatMoney(7, 'not a currency'), '7 not a currency');
});
