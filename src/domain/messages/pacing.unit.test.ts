import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createPacer } from './pacing.ts';

test('a channel drains at its rate after a one-second burst, and channels do not share a bucket', () => {
  let now = 10_000;
  const pacer = createPacer(() => now);
  const waits = Array.from({ length: 30 }, () => pacer.reserve('a', 10));
  // One second's worth (10) goes at once; then one every 100 ms.
  assert.deepEqual(waits.slice(0, 10), Array(10).fill(0));
  assert.equal(waits[10], 100);
  assert.equal(waits[29], 2000);
  assert.equal(pacer.reserve('b', 10), 0, 'another channel is not held up');
  now += 5000;
  assert.equal(pacer.reserve('a', 10), 0, 'an idle channel starts at once again');
});

test('10,000 sends at 80 per second are spread over about 125 seconds, none refused', () => {
  const now = 0;
  const pacer = createPacer(() => now);
  let last = 0;
  for (let i = 0; i < 10_000; i++) last = pacer.reserve('bulk', 80);
  assert.ok(last > 123_000 && last < 126_000, `last send waits ${last} ms`);
});

test('a rate-limit pause holds every send of the channel', () => {
  let now = 0;
  const pacer = createPacer(() => now);
  pacer.pause('c', 6000);
  assert.ok(pacer.reserve('c', 80) >= 6000);
  now = 7000;
  assert.ok(pacer.reserve('c', 80) <= 20);
});

test('a slot beyond the caller\'s patience is not taken', () => {
  const now = 0;
  const pacer = createPacer(() => now);
  for (let i = 0; i < 5; i++) pacer.reserve('d', 5);
  const far = pacer.reserve('d', 5, 100);
  assert.ok(far > 100);
  assert.equal(pacer.reserve('d', 5, 100), far, 'the refused slot is still the next one');
});

test('a recipient pause holds only the sends to that recipient, and ends on time', () => {
  let now = 0;
  const pacer = createPacer(() => now);
  pacer.pauseRecipient('a', '491511', 6000);
  assert.equal(pacer.recipientWait('a', '491511'), 6000);
  assert.equal(pacer.recipientWait('a', '491512'), 0, 'another recipient of the channel goes on');
  assert.equal(pacer.recipientWait('b', '491511'), 0, 'the same recipient on another channel goes on');
  assert.equal(pacer.reserve('a', 10), 0, 'the channel itself is not held');
  now += 4000;
  assert.equal(pacer.recipientWait('a', '491511'), 2000);
  now += 2000;
  assert.equal(pacer.recipientWait('a', '491511'), 0);
});
