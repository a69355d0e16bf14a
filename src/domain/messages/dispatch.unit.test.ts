import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DatabaseUnavailableError } from '../../db/errors.ts';
import { dispatchMessage, type DispatchDeps } from './dispatch.ts';
import type { MessageRow } from './messages.ts';

test('a database failure while loading the channel is thrown (the message is tried again), never taken for a deleted channel', async () => {
  const writes: string[] = [];
  const failing = () => {
    throw new DatabaseUnavailableError('ECONNRESET: read ECONNRESET');
  };
  // Every read fails, as when the connection was just terminated; writes are recorded.
  const chain: Record<string, unknown> = {};
  for (const method of ['from', 'where', 'limit'])
    chain[method] = () => (method === 'limit' ? Promise.reject(new DatabaseUnavailableError('ECONNRESET')) : chain);
  const db = {
    select: () => chain,
    transaction: async () => writes.push('transaction'),
    update: () => {
      writes.push('update');
      failing();
    },
  };
  const deps = { db, clock: { now: () => new Date() }, logger: { warn() {}, error() {}, info() {} } } as unknown as DispatchDeps;
  const row = { id: 'm1', status: 'queued', direction: 'outbound', channelId: 'c1', attempts: 0, errorCode: null } as unknown as MessageRow;
  await assert.rejects(dispatchMessage(deps, row), DatabaseUnavailableError);
  assert.deepEqual(writes, [], 'the message was not failed');
});
