import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkQuietHours, quietUntil } from './quiet-hours.ts';
import { jitteredMinute } from './sending-rules.ts';

const at = (iso: string) => new Date(iso);

test('quiet hours across midnight, in the zone: inside before and after midnight, outside in the day', () => {
  const q = { start: '21:00', end: '08:00' };
  // Paris is UTC+1 in January.
  assert.equal(quietUntil(q, 'Europe/Paris', at('2026-01-10T21:30:00Z'))?.toISOString(), '2026-01-11T07:00:00.000Z');
  assert.equal(quietUntil(q, 'Europe/Paris', at('2026-01-11T05:00:00Z'))?.toISOString(), '2026-01-11T07:00:00.000Z');
  assert.equal(quietUntil(q, 'Europe/Paris', at('2026-01-11T07:00:00Z')), null, 'its end is outside');
  assert.equal(quietUntil(q, 'Europe/Paris', at('2026-01-11T12:00:00Z')), null);
  assert.equal(quietUntil(q, 'UTC', at('2026-01-11T07:30:00Z'))?.toISOString(), '2026-01-11T08:00:00.000Z', 'UTC reads it otherwise');
});

test('quiet hours within a day; none given; bad times named', () => {
  const q = { start: '12:00', end: '14:00' };
  assert.equal(quietUntil(q, 'UTC', at('2026-03-02T12:00:00Z'))?.toISOString(), '2026-03-02T14:00:00.000Z');
  assert.equal(quietUntil(q, 'UTC', at('2026-03-02T11:59:00Z')), null);
  assert.equal(quietUntil(null, 'UTC', at('2026-03-02T12:30:00Z')), null);
  assert.deepEqual(
    checkQuietHours({ start: '24:00', end: '8:00' }).map((e) => e.pointer),
    ['/quiet_hours/start', '/quiet_hours/end'],
  );
  assert.deepEqual(checkQuietHours({ start: '08:00', end: '08:00' })[0]?.pointer, '/quiet_hours');
  assert.deepEqual(checkQuietHours(q), []);
});

test('the linked-device pace is a minute spread by half either way', () => {
  assert.equal(
    jitteredMinute(() => 0),
    30_000,
  );
  assert.equal(
    jitteredMinute(() => 0.5),
    60_000,
  );
  assert.equal(
    jitteredMinute(() => 0.999999),
    90_000,
  );
});
