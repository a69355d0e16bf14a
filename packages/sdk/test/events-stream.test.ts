// parley.events.stream() against a real server with its worker (which sequences events), through a
// loopback proxy that cuts the connection: the stream reconnects with Last-Event-ID and hands out every
// event once, in order, those made while it was away included; an AbortSignal ends it; a refusal is thrown.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { BadRequestError, Parley, type ParleyEvent } from '@parley/sdk';
import { eventually } from '../../../test/eventually.ts';
import { startTestServer, type TestServer } from '../../../test/harness.ts';
import { startProxy, type Proxy } from './proxy.ts';

let server: TestServer;
let proxy: Proxy;
let parley: Parley;
before(async () => {
  server = await startTestServer({ worker: true });
  proxy = await startProxy(server.baseUrl);
  parley = new Parley({ baseUrl: server.baseUrl, apiKey: server.apiKey });
});
after(async () => {
  await proxy?.close();
  await server?.close();
});

/** Every sequenced contact.updated event, in commit order. */
async function contactEvents(): Promise<ParleyEvent[]> {
  const events: ParleyEvent[] = [];
  for await (const event of parley.events.list({ type: 'contact.updated', limit: 200 })) events.push(event);
  return events;
}

test('the stream reconnects after the connection is cut, from the last event id: nothing missed, nothing twice', async (t) => {
  const contact = (await parley.contacts.upsert({ body: { phone_number: '+15550400001', name: 'Stream 0' } })).data;
  const rename = (n: number) => parley.contacts.update({ contactID: contact.id, body: { name: `Stream ${n}` } });
  const earlier = (await contactEvents()).length;

  const controller = new AbortController();
  // A failed check must not leave the stream reading (the file would never end).
  t.after(() => controller.abort());
  let opened = 0;
  const stream = new Parley({ baseUrl: proxy.url, apiKey: server.apiKey }).events.stream({
    types: ['contact.updated'],
    signal: controller.signal,
    onOpen: () => opened++,
  });
  const received: ParleyEvent[] = [];
  const reading = (async () => {
    for await (const event of stream) received.push(event);
  })();
  await eventually('the stream open', () => stream.connections === 1);

  await rename(1);
  await eventually('the first event', () => received.length === 1);
  const idAfterFirst = stream.lastEventId;
  assert.ok(idAfterFirst);

  // The connection is cut; while the stream is away two more events happen. Until they are sequenced,
  // the proxy answers a reconnection 503, so they are surely made during the gap.
  let ready = false;
  proxy.act((request) =>
    request.path.startsWith('/v1/events/stream') && !ready ? { status: 503, headers: { 'retry-after': '0' } } : 'forward',
  );
  const streamsBefore = proxy.seen.filter((r) => r.path.startsWith('/v1/events/stream')).length;
  proxy.cutAll();
  await rename(2);
  await rename(3);
  await eventually('the two events sequenced', async () => (await contactEvents()).length === earlier + 3);
  ready = true;

  await eventually('the stream back, with the missed events', () => received.length === 3, 30_000);
  await rename(4);
  await eventually('a live event after the reconnection', () => received.length === 4);

  const reconnection = proxy.seen.filter((r) => r.path.startsWith('/v1/events/stream') && r.answered === 200).at(-1)!;
  assert.equal(reconnection.headers['last-event-id'], idAfterFirst, 'resumed after the last event received');
  assert.ok(proxy.seen.filter((r) => r.path.startsWith('/v1/events/stream')).length > streamsBefore);
  assert.equal(stream.connections, 2);
  assert.equal(opened, 2, 'onOpen on the first opening and on the reconnection');

  const expected = (await contactEvents()).slice(earlier);
  assert.deepEqual(
    received.map((e) => e.id),
    expected.map((e) => e.id),
    'every event once, in commit order',
  );
  assert.deepEqual(
    received.map((e) => e.data.name),
    ['Stream 1', 'Stream 2', 'Stream 3', 'Stream 4'],
  );

  controller.abort();
  await reading; // ends without an error
  proxy.act(() => 'forward');
});

test('a connection that goes silent without closing is given up after the idle timeout and opened again from the last event', async (t) => {
  const contact = (await parley.contacts.upsert({ body: { phone_number: '+15550400003', name: 'Silent 0' } })).data;
  const controller = new AbortController();
  t.after(() => controller.abort());
  let stalls = 0;
  proxy.act((request) => (request.path.startsWith('/v1/events/stream') && stalls++ === 0 ? 'stall-after-event' : 'forward'));
  const stream = new Parley({ baseUrl: proxy.url, apiKey: server.apiKey }).events.stream({
    types: ['contact.updated'],
    signal: controller.signal,
    idleTimeoutMs: 1000,
  });
  const received: ParleyEvent[] = [];
  void (async () => {
    for await (const event of stream) received.push(event);
  })();
  await eventually('the stream open', () => stream.connections === 1);
  await parley.contacts.update({ contactID: contact.id, body: { name: 'Silent 1' } });
  await eventually('the first event', () => received.length === 1);
  const afterFirst = stream.lastEventId;
  // The proxy now passes nothing on: this event waits for the reconnection.
  await parley.contacts.update({ contactID: contact.id, body: { name: 'Silent 2' } });
  await eventually('the event after the reconnection', () => received.length === 2, 30_000);
  assert.equal(stream.connections, 2);
  assert.deepEqual(
    received.map((e) => e.data.name),
    ['Silent 1', 'Silent 2'],
  );
  const reopened = proxy.seen.filter((r) => r.path.startsWith('/v1/events/stream')).at(-1)!;
  assert.equal(reopened.headers['last-event-id'], afterFirst, 'reopened after the last event received');
  controller.abort();
  proxy.act(() => 'forward');
});

test('leaving the loop closes the connection; a refused stream (an unknown type) is thrown', async () => {
  const contact = (await parley.contacts.upsert({ body: { phone_number: '+15550400002', name: 'Leaving 0' } })).data;
  const stream = new Parley({ baseUrl: proxy.url, apiKey: server.apiKey }).events.stream({ types: ['contact.updated'] });
  const first = (async () => {
    for await (const event of stream) return event;
  })();
  await eventually('the stream open', () => stream.connections === 1);
  await parley.contacts.update({ contactID: contact.id, body: { name: 'Leaving 1' } });
  assert.equal((await first)?.data.name, 'Leaving 1');
  const exchange = proxy.seen.filter((r) => r.path.startsWith('/v1/events/stream')).at(-1)!;
  await eventually('the connection closed', () => exchange.closedAt !== undefined);

  const refused = await (async () => {
    for await (const _ of parley.events.stream({ types: ['no.such_type'] })) return 'an event';
    return 'ended';
  })().catch((e: unknown) => e);
  assert.ok(refused instanceof BadRequestError, String(refused));
  assert.match(JSON.stringify(refused.problem), /types/);
});
