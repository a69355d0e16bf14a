import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hoursStatus, isOpen, parseInterval, zonedInstant, dayOf, type Hours } from './hours.ts';

const week = (intervals: string[]): Hours['weekly_hours'] => ({
  monday: intervals,
  tuesday: intervals,
  wednesday: intervals,
  thursday: intervals,
  friday: intervals,
  saturday: [],
  sunday: [],
});

test('intervals: hyphen or en dash, 24:00 as an end, nothing backwards', () => {
  assert.deepEqual(parseInterval('09:00-17:30'), { start: 540, end: 1050 });
  assert.deepEqual(parseInterval('09:00 – 24:00'), { start: 540, end: 1440 });
  assert.equal(typeof parseInterval('24:00-24:00'), 'string');
  assert.equal(typeof parseInterval('17:00-09:00'), 'string');
  assert.equal(typeof parseInterval('9-17'), 'string');
});

test('local times across DST changes (New York: 2027-03-14 forward, 2027-11-07 back)', () => {
  const zone = 'America/New_York';
  assert.equal(zonedInstant(zone, dayOf('2027-03-13'), 540).toISOString(), '2027-03-13T14:00:00.000Z');
  assert.equal(zonedInstant(zone, dayOf('2027-03-15'), 540).toISOString(), '2027-03-15T13:00:00.000Z');
  assert.equal(zonedInstant(zone, dayOf('2027-11-08'), 540).toISOString(), '2027-11-08T14:00:00.000Z');
  const hours: Hours = { time_zone: zone, weekly_hours: week(['09:00-17:00']), holidays: [] };
  // Friday 17:00 EST closes; Monday 09:00 EDT opens.
  assert.deepEqual(hoursStatus(hours, new Date('2027-03-12T22:30:00Z')), {
    open: false,
    reason: 'hours',
    holiday: null,
    next_change_at: new Date('2027-03-15T13:00:00Z'),
  });
  assert.equal(isOpen(hours, new Date('2027-03-15T13:30:00Z')), true);
  assert.equal(isOpen(hours, new Date('2027-03-15T12:30:00Z')), false);
});

test('never open: no next change; no hours: always open', () => {
  const closed: Hours = { time_zone: 'UTC', weekly_hours: week([]), holidays: [] };
  assert.deepEqual(hoursStatus(closed, new Date('2027-01-01T00:00:00Z')), {
    open: false,
    reason: 'hours',
    holiday: null,
    next_change_at: null,
  });
  const always: Hours = { time_zone: 'UTC', weekly_hours: null, holidays: [] };
  assert.equal(hoursStatus(always, new Date()).reason, 'always_open');
});
