import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addressSubject, throttleKeys } from './keys.ts';
import { delayAfter } from './throttle.ts';

test('waits start after the free attempts, double each time and stop growing at the cap', () => {
  const policy = { freeAttempts: 3, baseDelayMs: 1000, maxDelayMs: 60_000, forgiveEveryMs: 60_000 };
  const waits = Array.from({ length: 12 }, (_, i) => delayAfter(policy, i + 1));
  assert.deepEqual(waits, [0, 0, 0, 1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000]);
  assert.equal(delayAfter(policy, 1_000_000), 60_000, 'a huge count stays finite and capped');
});

test('keys: emails in any case are one account; an IPv6 address is keyed by its /64, a mapped IPv4 as IPv4', () => {
  assert.equal(throttleKeys.loginAccount(' Owner@Example.com '), throttleKeys.loginAccount('owner@example.com'));
  assert.equal(addressSubject('2001:db8:1:2::1'), addressSubject('2001:db8:1:2:ffff:ffff:ffff:ffff'));
  assert.notEqual(addressSubject('2001:db8:1:2::1'), addressSubject('2001:db8:1:3::1'));
  assert.equal(addressSubject('::ffff:192.0.2.1'), '192.0.2.1');
  assert.equal(throttleKeys.loginAddress('192.0.2.1'), 'login:ip:192.0.2.1');
});
