import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually } from '../../test/eventually.ts';
import { createLeaseLoop, type LeaseLoopDatabase, type LeaseLoopOptions } from './lease-loop.ts';

/** A database stand-in: notifications sent by hand, availability switched by hand. */
function fakeDatabase(options: { listenFails?: boolean } = {}) {
  const listeners = new Map<string, () => void>();
  const availableListeners = new Set<() => void>();
  let up = true;
  const database: LeaseLoopDatabase = {
    async listen(channel, onNotify) {
      if (options.listenFails) throw new Error('connection refused');
      listeners.set(channel, onNotify);
      return async () => void listeners.delete(channel);
    },
    availability: {
      up: () => up,
      onAvailable(listener) {
        availableListeners.add(listener);
        return () => availableListeners.delete(listener);
      },
    },
  };
  return {
    database,
    notify: (channel: string) => listeners.get(channel)?.(),
    listening: () => [...listeners.keys()],
    goDown: () => (up = false),
    comeBack() {
      up = true;
      for (const listener of availableListeners) listener();
    },
  };
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const silent = { error: () => undefined };

/** A loop over the fake database with quiet defaults: no channels, no poll within a test, no log, empty passes. */
function loopOver(fake: ReturnType<typeof fakeDatabase>, options: Partial<LeaseLoopOptions>) {
  return createLeaseLoop({
    name: 'test loop',
    database: fake.database,
    channels: [],
    pollMs: 60_000,
    logger: silent,
    pass: async () => false,
    ...options,
  });
}

/** Lets every callback already due run (a turn of the event loop). */
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A loop over an in-memory table of due rows: each pass claims up to the room left under `concurrency`. */
function queueLoop(fake: ReturnType<typeof fakeDatabase>, extra: Partial<LeaseLoopOptions> & { concurrency?: number } = {}) {
  const due: string[] = [];
  const claimedBatches: string[][] = [];
  let passes = 0;
  const work = new Map<string, ReturnType<typeof deferred>>();
  const concurrency = extra.concurrency ?? 2;
  const loop = loopOver(fake, {
    channels: [{ channel: 'due' }],
    async pass() {
      passes++;
      const room = concurrency - loop.inFlight();
      if (room <= 0) return false;
      const rows = due.splice(0, room);
      claimedBatches.push(rows);
      for (const row of rows) {
        const d = deferred();
        work.set(row, d);
        loop.run(() => d.promise, loop.wake);
      }
      return rows.length === room;
    },
    ...extra,
  });
  return { loop, due, claimedBatches, work, passes: () => passes };
}

test('claims up to the room left, claims again at once when it took all it could, and when work ends', async () => {
  const fake = fakeDatabase();
  const { loop, due, claimedBatches, work, passes } = queueLoop(fake, { concurrency: 2 });
  due.push('a', 'b', 'c');
  await loop.start();
  await eventually('the pass the full claim asked for', () => passes() === 2);
  // Full at once ([a, b]); the pass it asked for found no room and claimed nothing.
  assert.deepEqual(claimedBatches, [['a', 'b']]);
  assert.equal(loop.inFlight(), 2);
  work.get('a')!.resolve();
  await eventually('c claimed after a ended', () => work.has('c'));
  assert.deepEqual(claimedBatches.at(-1), ['c']);
  assert.equal(loop.inFlight(), 2);
  work.get('b')!.resolve();
  work.get('c')!.resolve();
  await eventually('all work ended', () => loop.inFlight() === 0);
  await loop.stop({ timeoutMs: 1000 });
});

test('a NOTIFY wakes it (after its onNotify); a wake during a pass makes one more pass after it, never two at once', async () => {
  const fake = fakeDatabase();
  const notes: string[] = [];
  let passes = 0;
  let concurrent = 0;
  let mostConcurrent = 0;
  const gate: { hold?: ReturnType<typeof deferred> } = {};
  const loop = loopOver(fake, {
    channels: [{ channel: 'events', onNotify: () => notes.push('events') }],
    async pass() {
      passes++;
      notes.push(`pass ${passes}`);
      concurrent++;
      mostConcurrent = Math.max(mostConcurrent, concurrent);
      await gate.hold?.promise;
      concurrent--;
      return false;
    },
  });
  await loop.start();
  await eventually('the pass at start', () => passes === 1 && concurrent === 0);
  assert.deepEqual(fake.listening(), ['events']);

  const hold = (gate.hold = deferred());
  fake.notify('events');
  await eventually('the notified pass', () => passes === 2);
  fake.notify('events');
  loop.wake();
  loop.wake();
  hold.resolve();
  await eventually('the pass asked for during it', () => passes === 3 && concurrent === 0);
  // Three wakes during pass 2 made one pass, not three; no two passes overlapped.
  await turn();
  assert.equal(passes, 3);
  assert.equal(mostConcurrent, 1);
  assert.deepEqual(notes, ['pass 1', 'events', 'pass 2', 'events', 'pass 3']);
  await loop.stop({ timeoutMs: 1000 });
});

test('polls every pollMs (after onPoll), and runs the periodic work', async (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  const fake = fakeDatabase();
  const notes: string[] = [];
  const loop = loopOver(fake, {
    pollMs: 1000,
    onPoll: () => notes.push('poll'),
    every: { ms: 400, run: async () => void notes.push('renew') },
    pass: async () => (notes.push('pass'), false),
  });
  await loop.start();
  await eventually('the pass at start', () => notes.includes('pass'));
  assert.deepEqual(notes, ['poll', 'pass']);
  notes.length = 0;
  t.mock.timers.tick(1000);
  await eventually('the polled pass', () => notes.includes('pass'));
  assert.deepEqual(notes, ['renew', 'renew', 'poll', 'pass']);
  await loop.stop({ timeoutMs: 0 });
  notes.length = 0;
  t.mock.timers.tick(5000);
  await turn();
  assert.deepEqual(notes, [], 'nothing polls or renews after stop');
});

test('pauses while the database is down: no pass on wake, NOTIFY or poll; polls at once when it is back', async (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  const fake = fakeDatabase();
  let passes = 0;
  let polls = 0;
  const loop = loopOver(fake, {
    channels: [{ channel: 'due' }],
    pollMs: 1000,
    onPoll: () => polls++,
    pass: async () => (passes++, false),
  });
  await loop.start();
  await eventually('the pass at start', () => passes === 1);
  fake.goDown();
  loop.wake();
  fake.notify('due');
  t.mock.timers.tick(3000);
  await turn();
  await turn();
  assert.equal(passes, 1);
  assert.equal(polls, 1);
  fake.comeBack();
  await eventually('the pass when the database is back', () => passes === 2);
  assert.equal(polls, 2);
  await loop.stop({ timeoutMs: 0 });
});

test('a failed pass is logged and not repeated on its own; the next wake tries again', async () => {
  const fake = fakeDatabase();
  const logged: string[] = [];
  let passes = 0;
  const loop = loopOver(fake, {
    logger: { error: (_fields: object, message: string) => void logged.push(message) },
    async pass() {
      passes++;
      if (passes === 1) throw new Error('connection reset');
      return false;
    },
  });
  await loop.start();
  await eventually('the failed pass is logged', () => logged.length === 1);
  assert.match(logged[0]!, /^test loop: could not claim/);
  await turn();
  assert.equal(passes, 1);
  loop.wake();
  await eventually('the next pass', () => passes === 2);
  await loop.stop({ timeoutMs: 0 });
});

test('stop: unlistens, waits for the pass under way (and the work it started), and no pass starts after it', async () => {
  const fake = fakeDatabase();
  const inPass = deferred();
  let passes = 0;
  let passEnded = false;
  const work = deferred();
  let workEnded = false;
  const loop = loopOver(fake, {
    channels: [{ channel: 'due' }],
    async pass() {
      passes++;
      loop.run(async () => {
        await work.promise;
        workEnded = true;
      });
      await inPass.promise;
      passEnded = true;
      return true;
    },
  });
  await loop.start();
  await eventually('the pass at start', () => passes === 1);
  let stopEnded = false;
  const stopped = loop.stop({ timeoutMs: 60_000 }).then(() => (stopEnded = true));
  assert.equal(loop.isRunning(), false);
  await eventually('listening stopped', () => fake.listening().length === 0);
  // The work started in the pass ends; stop still waits for the pass under way.
  work.resolve();
  await eventually('the work ended', () => workEnded && loop.inFlight() === 0);
  await turn();
  assert.equal(stopEnded, false);
  inPass.resolve();
  await stopped;
  assert.equal(passEnded, true);
  // The pass asked for another; none starts once stopping.
  assert.equal(passes, 1);
  loop.wake();
  fake.notify('due');
  await turn();
  assert.equal(passes, 1);
});

test('stop: past timeoutMs, abort is called and the work it ends is waited for; without abort the work is left running', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const fake = fakeDatabase();
  for (const withAbort of [true, false]) {
    const controller = new AbortController();
    let workEnded = false;
    const loop = loopOver(fake, {
      async pass() {
        if (loop.inFlight() > 0) return false;
        loop.run(async () => {
          await new Promise((resolve) => controller.signal.addEventListener('abort', resolve));
          workEnded = true;
        });
        return false;
      },
    });
    await loop.start();
    await eventually('the work started', () => loop.inFlight() === 1);
    let stopEnded = false;
    const stopped = loop.stop({ timeoutMs: 5000, abort: withAbort ? () => controller.abort() : undefined }).then(() => (stopEnded = true));
    await eventually('stop waits for the work', () => !loop.isRunning());
    await turn();
    assert.equal(stopEnded, false);
    t.mock.timers.tick(5000);
    await stopped;
    assert.equal(workEnded, withAbort);
    controller.abort();
    await eventually('the work ended', () => loop.inFlight() === 0);
  }
});

test('start rejects when a channel cannot be listened to, unless onListenError is given: then it runs on polls', async () => {
  const failing = fakeDatabase({ listenFails: true });
  const strict = loopOver(failing, { channels: [{ channel: 'due' }] });
  await assert.rejects(strict.start(), /connection refused/);
  assert.equal(strict.isRunning(), false);

  const errors: unknown[] = [];
  let passes = 0;
  const lenient = loopOver(failing, {
    name: 'lenient',
    channels: [{ channel: 'due' }],
    onListenError: (err) => errors.push(err),
    pass: async () => (passes++, false),
  });
  await lenient.start();
  await eventually('the pass at start', () => passes === 1);
  assert.equal(errors.length, 1);
  await lenient.stop({ timeoutMs: 0 });
});

test('work that throws is logged and still ends (settled runs, inFlight drops)', async () => {
  const fake = fakeDatabase();
  const logged: string[] = [];
  let settled = 0;
  const loop = loopOver(fake, {
    logger: { error: (_fields: object, message: string) => void logged.push(message) },
    pass: async () => false,
  });
  await loop.start();
  loop.run(
    () => {
      throw new Error('bug');
    },
    () => settled++,
  );
  loop.run(
    async () => Promise.reject(new Error('bug')),
    () => settled++,
  );
  await eventually('both settled', () => settled === 2);
  assert.equal(loop.inFlight(), 0);
  assert.deepEqual(logged, ['test loop: work failed unexpectedly', 'test loop: work failed unexpectedly']);
  await loop.stop({ timeoutMs: 0 });
});

test('a wake as a pass ends is never lost (work that ends at once asks for the next pass)', async () => {
  const fake = fakeDatabase();
  const due = ['a', 'b', 'c', 'd', 'e'];
  const done: string[] = [];
  const loop = loopOver(fake, {
    async pass() {
      // One at a time, and not "full": only the work's end asks for the next pass.
      if (loop.inFlight() > 0) return false;
      const row = due.shift();
      if (row) loop.run(async () => void done.push(row), loop.wake);
      return false;
    },
  });
  await loop.start();
  await eventually('every row done', () => done.length === 5);
  await loop.stop({ timeoutMs: 0 });
});
