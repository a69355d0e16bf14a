/**
 * The library acknowledges a message to the service before the engine stores it, so an event that
 * meets an unreachable database is kept and stored when the database is back, in order, never dropped.
 */
// stores: both
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DatabaseUnavailableError } from '../../src/db/errors.ts';
import { createEmbeddedEngine, type EmbeddedEngine } from '../../src/providers/gateway/embedded/engine.ts';
import type { InboundEvent } from '../../src/providers/provider.ts';
import { eventually } from '../eventually.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { embeddedChannel } from './helpers.ts';
import { createScriptedSockets } from './scripted-socket.ts';

let server: TestServer;
let engine: EmbeddedEngine;
before(async () => {
  // No worker role: this test's own engine is the only one holding sessions.
  server = await startTestServer();
});
after(async () => {
  await engine?.stop({ timeoutMs: 2000 });
  await server.close();
});

test('session events that meet an unreachable database are stored when it is back, in order', async () => {
  const scripted = createScriptedSockets();
  const stored: InboundEvent[] = [];
  let unreachableFor = 0;
  engine = createEmbeddedEngine({
    database: server.container.database,
    sealer: server.container.sealer,
    clock: server.container.clock,
    logger: server.container.logger,
    processId: 'outage-holder',
    lease: { ttlMs: 60_000, renewMs: 1000, pollMs: 100 },
    reconnect: { baseMs: 60_000, maxMs: 600_000 },
    qrWaitMs: 5000,
    commandTimeoutMs: 5000,
    socketFactory: scripted.factory,
    async report(_channelId, events) {
      if (unreachableFor > 0) {
        unreachableFor--;
        throw new DatabaseUnavailableError('connection refused');
      }
      stored.push(...events);
    },
    statusOf: async () => undefined,
    messageOf: async () => undefined,
    pollKey: new Uint8Array(32),
  });
  await engine.start();
  const channel = await embeddedChannel(server);
  assert.equal((await engine.startPairing(channel.id)).ok, true);
  const pairing = await eventually('the session to be taken', async () => scripted.latest(channel.id));
  await pairing.scan('4915100000900', 'Shop');
  await eventually('the channel to be reported connected', async () =>
    stored.some((e) => e.kind === 'channel.status' && e.status === 'connected'),
  );
  // The library restarts its connection after pairing: the session's socket now is the latest one.
  const socket = scripted.latest(channel.id)!;

  // The database is unreachable for the next three tries; two messages arrive meanwhile.
  unreachableFor = 3;
  socket.receiveText('4915122220900', 'first', 'OUTAGE-1');
  socket.receiveText('4915122220900', 'second', 'OUTAGE-2');
  const inbound = await eventually('both messages to be stored', async () => {
    const messages = stored.filter((e) => e.kind === 'message.inbound');
    return messages.length === 2 ? messages : undefined;
  });
  assert.deepEqual(
    inbound.map((e) => e.kind === 'message.inbound' && e.providerMessageId),
    ['OUTAGE-1', 'OUTAGE-2'],
    'stored once each, in order',
  );
  assert.equal(unreachableFor, 0, 'every failed try was tried again');
});
