import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually } from '../../test/eventually.ts';
import { createAvailability } from './availability.ts';
import { DatabaseUnavailableError, isDatabaseUnavailable } from './errors.ts';

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });
/** What drizzle throws: the query and its parameters in the message, the driver's error as the cause. */
const wrapped = (cause: unknown) =>
  Object.assign(new Error('Failed query: select $1\nparams: Connection terminated'), { query: 'select $1', params: [], cause });

test('connection-class failures are told from every other database error', () => {
  for (const err of [
    pgError('57P01', 'terminating connection due to administrator command'),
    pgError('57P03', 'the database system is starting up'),
    pgError('08006'),
    pgError('53300', 'too many connections'),
    pgError('ECONNRESET', 'read ECONNRESET'),
    pgError('ECONNREFUSED'),
    new Error('Connection terminated unexpectedly'),
    new Error('timeout exceeded when trying to connect'),
    new Error('Client has encountered a connection error and is not queryable'),
    new DatabaseUnavailableError('down'),
    wrapped(pgError('57P01')),
  ]) {
    assert.equal(isDatabaseUnavailable(err), true, String((err as Error).message));
  }
  for (const err of [
    pgError('23505', 'duplicate key'),
    pgError('22P02', 'invalid input syntax'),
    new Error('boom'),
    wrapped(pgError('42601')),
    wrapped(new Error('x')),
    undefined,
    'text',
  ]) {
    assert.equal(isDatabaseUnavailable(err), false, String(err));
  }
});

test('down after a failed probe, failing fast meanwhile; up again when a probe answers', async () => {
  let reachable = false;
  let probes = 0;
  const events: string[] = [];
  const availability = createAvailability({
    probe: async () => {
      probes++;
      if (!reachable) throw pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432');
    },
    onDown: (reason) => events.push(`down ${reason}`),
    onUp: () => events.push('up'),
    minDelayMs: 5,
    maxDelayMs: 20,
  });
  let resumed = 0;
  availability.onAvailable(() => resumed++);
  try {
    availability.report(pgError('23505'));
    assert.equal(probes, 0, 'an ordinary error starts no probe');
    availability.report(pgError('57P01'));
    await eventually('the database to be down', () => !availability.up(), { everyMs: 2 });
    assert.throws(() => availability.check(), DatabaseUnavailableError);
    assert.match(availability.reason()!, /ECONNREFUSED/);
    await eventually('three probes', () => probes >= 3, { everyMs: 2 });
    assert.equal(resumed, 0);
    reachable = true;
    await eventually('the database to be up again', () => availability.up(), { everyMs: 2 });
    availability.check();
    assert.equal(resumed, 1);
    assert.deepEqual(events, ['down ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:5432', 'up']);
    // One terminated connection while the server is fine: a probe answers and nothing goes down.
    availability.report(pgError('57P01'));
    await eventually('two more probes, or a change', () => probes >= 5 || events.length > 2, { everyMs: 2 });
    assert.equal(availability.up(), true);
    assert.equal(events.length, 2);
  } finally {
    availability.stop();
  }
});
