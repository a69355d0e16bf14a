import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createBatcher } from './batcher.ts';

/** A run that is held until released by hand, recording the batches it was given. */
function heldRuns(fail: (item: number) => boolean = () => false) {
  const batches: number[][] = [];
  const pending: Array<() => void> = [];
  const run = (items: number[]) => {
    batches.push(items);
    return new Promise<string[]>((resolve, reject) => {
      pending.push(() => (items.some(fail) ? reject(new Error(`bad item in ${items.join(',')}`)) : resolve(items.map((i) => `done ${i}`))));
    });
  };
  // Releases the runs one by one, each answer read before the next: until three turns of the event
  // loop pass with none started (the batcher starts its next run on the turn after an answer).
  const releaseAll = async () => {
    for (let idle = 0; idle < 3; ) {
      if (pending.length > 0) {
        idle = 0;
        pending.shift()!();
      } else idle++;
      await new Promise((r) => setImmediate(r));
    }
  };
  return { run, batches, releaseAll };
}

const settled = <T>(promises: Array<Promise<T>>) => Promise.allSettled(promises);

test('calls made while the runs are busy are gathered into the next run, up to maxBatch; each gets its own result', async () => {
  const held = heldRuns();
  const call = createBatcher(held.run, { maxBatch: 3, maxInFlight: 1 });
  const first = call(0);
  await new Promise((r) => setImmediate(r));
  const rest = [1, 2, 3, 4, 5].map(call);
  const all = settled([first, ...rest]);
  await held.releaseAll();
  const results = await all;
  assert.deepEqual(held.batches, [[0], [1, 2, 3], [4, 5]]);
  assert.deepEqual(
    results.map((r) => (r.status === 'fulfilled' ? r.value : r.reason)),
    [0, 1, 2, 3, 4, 5].map((i) => `done ${i}`),
  );
});

test('an item that must run alone runs alone, and the others around it are not reordered past it', async () => {
  const held = heldRuns();
  const call = createBatcher(held.run, { maxBatch: 10, maxInFlight: 1, alone: (i) => i === 2 });
  const all = settled([0, 1, 2, 3, 4].map(call));
  await held.releaseAll();
  await all;
  assert.deepEqual(held.batches, [[0, 1], [2], [3, 4]]);
});

test('a failed run rejects every call it carried; with splitOnFailure each is run again alone and only the bad one fails', async () => {
  const plain = heldRuns((i) => i === 1);
  const callPlain = createBatcher(plain.run, { maxBatch: 10, maxInFlight: 1 });
  const plainResults = settled([0, 1, 2].map(callPlain));
  await plain.releaseAll();
  assert.deepEqual(
    (await plainResults).map((r) => r.status),
    ['rejected', 'rejected', 'rejected'],
  );

  const split = heldRuns((i) => i === 1);
  const callSplit = createBatcher(split.run, { maxBatch: 10, maxInFlight: 1, splitOnFailure: true });
  const splitResults = settled([0, 1, 2].map(callSplit));
  await split.releaseAll();
  assert.deepEqual(
    (await splitResults).map((r) => (r.status === 'fulfilled' ? r.value : 'failed')),
    ['done 0', 'failed', 'done 2'],
  );
  assert.deepEqual(split.batches, [[0, 1, 2], [0], [1], [2]]);
});

test('a run that throws before returning a promise rejects its calls instead of escaping', async () => {
  const call = createBatcher<number, string>(
    () => {
      throw new Error('thrown at once');
    },
    { maxBatch: 10, maxInFlight: 2 },
  );
  await assert.rejects(call(1), /thrown at once/);
});
