// The SDK's client against a real test server: typed calls by group and by operationId, a message sent and
// its status read, pagination, errors mapped to their classes, retries honouring Retry-After, and the
// Idempotency-Key it adds to every POST, the same on a retry.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  InternalServerError,
  NotFoundError,
  PagePromise,
  Parley,
  ParleyError,
  RateLimitError,
} from '@parley/sdk';
import { eventually } from '../../../test/eventually.ts';
import { startTestServer, type TestServer } from '../../../test/harness.ts';
import { customerWrites } from '../../../test/messages-helpers.ts';
import { startProxy, type Proxy } from './proxy.ts';

let server: TestServer;
let parley: Parley;
let proxy: Proxy;
before(async () => {
  server = await startTestServer({ worker: true });
  parley = new Parley({ baseUrl: server.baseUrl, apiKey: server.apiKey });
  proxy = await startProxy(server.baseUrl);
});
after(async () => {
  await proxy?.close();
  await server?.close();
});

/** A client that goes through the proxy. */
const viaProxy = (options: { maxRetries?: number } = {}) => new Parley({ baseUrl: proxy.url, apiKey: server.apiKey, ...options });

async function sandboxChannel(name: string) {
  const created = await parley.channels.create({ body: { platform: 'chatapp_official', name } });
  assert.equal(created.data.status, 'connected');
  return created.data;
}

test('grouped typed methods: a channel created, read and listed; a message sent to a customer who wrote first, and its status read', async () => {
  const channel = await sandboxChannel('SDK typed');
  const read = await parley.channels.get({ channelID: channel.id });
  assert.equal(read.data.name, 'SDK typed');
  const listed = await parley.channels.list({ limit: 50 });
  assert.ok(listed.data.some((c) => c.id === channel.id));

  await customerWrites(server, channel.id, '15550001111');
  const sent = await parley.messages.send({
    body: { channel_id: channel.id, to: '15550001111', type: 'text', content: { body: 'Hello from the SDK' } },
  });
  assert.equal(sent.data.status, 'queued');
  assert.deepEqual(sent.data.content, { body: 'Hello from the SDK' });
  const delivered = await eventually('the message read by the sandbox customer', async () => {
    const status = await parley.messages.getStatus({ messageID: sent.data.id });
    return status.data.status === 'read' ? status.data : undefined;
  });
  assert.equal(delivered.message_id ?? sent.data.id, sent.data.id);
  const got = await parley.messages.get({ messageID: sent.data.id });
  assert.equal(got.data.to, '15550001111');
});

test('parley.request reaches any operation by its operationId, those left out of the groups too', async () => {
  const health = await parley.request('getHealth');
  assert.equal(health.status, 'ok');
  // auth is left out of the groups (the dashboard's flows) but stays reachable.
  assert.equal((parley as unknown as Record<string, unknown>).auth, undefined);
  const signup = await parley.request('getSignup');
  assert.equal(typeof signup.data.open, 'boolean');
  const page = parley.request('listChannels', { limit: 1 });
  assert.ok(page instanceof PagePromise);
});

test('pagination: awaited, the first page; iterated, every item of every page', async () => {
  const names = ['Ada', 'Grace', 'Edsger', 'Barbara', 'Donald'];
  const ids: string[] = [];
  for (const [i, name] of names.entries()) {
    const made = await parley.contacts.upsert({ body: { phone_number: `+1555020000${i}`, name } });
    await parley.contacts.addTags({ contactID: made.data.id, body: { tag: 'sdk-paging' } });
    ids.push(made.data.id);
  }
  const first = await parley.contacts.list({ tag: 'sdk-paging', limit: 2 });
  assert.equal(first.data.length, 2);
  assert.ok(first.meta.next_cursor, 'a next page');

  const before = proxy.seen.length;
  const seen: string[] = [];
  for await (const contact of viaProxy().contacts.list({ tag: 'sdk-paging', limit: 2 })) seen.push(contact.id);
  assert.deepEqual([...seen].sort(), [...ids].sort());
  const requests = proxy.seen.slice(before);
  assert.equal(requests.length, 3, 'three pages of 2, 2 and 1');
  assert.match(String(requests[0]!.headers['user-agent']), /^parley-sdk-ts\/\d+\.\d+\.\d+$/);
  assert.equal(requests[0]!.headers['x-api-key'], server.apiKey);
  assert.equal(new URL(requests[0]!.path, proxy.url).searchParams.get('cursor'), null);
  assert.equal(new URL(requests[1]!.path, proxy.url).searchParams.get('cursor'), first.meta.next_cursor);

  const pages = [];
  for await (const page of parley.contacts.list({ tag: 'sdk-paging', limit: 2 }).pages()) pages.push(page.data.length);
  assert.deepEqual(pages, [2, 2, 1]);
});

test('errors: 404, 400 naming the field, 401, each a class of its own with the problem body and the request id', async () => {
  const missing = await parley.messages.get({ messageID: '0196b1f2-0a00-7000-8000-0000000000f1' }).catch((e: unknown) => e);
  assert.ok(missing instanceof NotFoundError, String(missing));
  assert.ok(missing instanceof ParleyError);
  assert.equal(missing.status, 404);
  assert.equal(missing.problem?.status, 404);
  assert.equal(missing.code, 'not_found');
  assert.match(missing.requestId ?? '', /^[0-9a-f-]{36}$/);

  const channel = await sandboxChannel('SDK errors');
  const invalid = await parley.messages
    .send({ body: { channel_id: channel.id, to: '15550001111', type: 'text' } as never })
    .catch((e: unknown) => e);
  assert.ok(invalid instanceof BadRequestError, String(invalid));
  assert.ok(
    invalid.fields.some((f) => f.pointer === '/content' && f.location === 'body'),
    JSON.stringify(invalid.problem),
  );
  assert.match(invalid.message, /^400 /);

  // The contacts routes answer {error, code}: the same classes.
  const badContact = await parley.contacts.upsert({ body: { phone_number: 'not a phone' } }).catch((e: unknown) => e);
  assert.ok(badContact instanceof BadRequestError, String(badContact));
  assert.ok(badContact.code, JSON.stringify(badContact.problem));

  const stranger = new Parley({ baseUrl: server.baseUrl, apiKey: 'prl_not_a_key_at_all_000000000000' });
  const refused = await stranger.channels.list().catch((e: unknown) => e);
  assert.ok(refused instanceof AuthenticationError, String(refused));
  assert.equal(refused.status, 401);
});

test('organizationId is sent as X-Organization-Id: an API key naming another organization is a 400 naming it', async () => {
  const elsewhere = new Parley({ baseUrl: server.baseUrl, apiKey: server.apiKey, organizationId: '0196b1f2-0a00-7000-8000-0000000000a9' });
  const refused = await elsewhere.channels.list().catch((e: unknown) => e);
  assert.ok(refused instanceof BadRequestError, String(refused));
  assert.match(JSON.stringify(refused.problem), /X-Organization-Id/i);
  const same = new Parley({ baseUrl: server.baseUrl, apiKey: server.apiKey, organizationId: server.organizationId });
  assert.ok(Array.isArray((await same.channels.list()).data));
});

test('a 429 is retried after the Retry-After the proxy sent, then answered; with no retries left it is a RateLimitError', async () => {
  let first = true;
  proxy.act(() => {
    if (!first) return 'forward';
    first = false;
    return { status: 429, headers: { 'retry-after': '1' } };
  });
  const before = proxy.seen.length;
  const started = performance.now();
  const page = await viaProxy().channels.list({ limit: 3 });
  const waited = performance.now() - started;
  assert.ok(Array.isArray(page.data));
  const requests = proxy.seen.slice(before);
  assert.deepEqual(
    requests.map((r) => r.answered),
    [429, 200],
  );
  assert.ok(requests[1]!.at - requests[0]!.at >= 1000, `the retry came ${requests[1]!.at - requests[0]!.at} ms after the 429`);
  assert.ok(waited >= 1000, `waited ${waited} ms`);

  proxy.act(() => ({ status: 429, headers: { 'retry-after': '7' } }));
  const limited = await viaProxy({ maxRetries: 0 })
    .channels.list()
    .catch((e: unknown) => e);
  assert.ok(limited instanceof RateLimitError, String(limited));
  assert.equal(limited.retryAfter, 7);
  proxy.act(() => 'forward');
});

test('a 503 is retried for a read and for a POST whose key the service honours, not for one open without a credential', async () => {
  let served = 0;
  proxy.act((request) =>
    request.method === 'GET' && served++ === 0
      ? { status: 503, headers: { 'retry-after': '0' } }
      : request.method === 'POST'
        ? { status: 503, headers: { 'retry-after': '0' } }
        : 'forward',
  );
  const before = proxy.seen.length;
  const health = await viaProxy().health.get();
  assert.equal(health.status, 'ok');
  assert.equal(proxy.seen.length - before, 2);

  const refused = await viaProxy()
    .channels.create({ body: { platform: 'chatapp_official', name: 'never' } })
    .catch((e: unknown) => e);
  assert.ok(refused instanceof InternalServerError && refused.status === 503, String(refused));
  assert.equal(proxy.seen.length - before, 2 + 3, 'the POST went three times (two retries), under one key');
  assert.equal(new Set(proxy.seen.slice(before + 2).map((r) => r.headers['idempotency-key'])).size, 1);

  const open = await viaProxy()
    .oauth.startDeviceAuthorization({ body: { client_id: 'parley-cli' } })
    .catch((e: unknown) => e);
  assert.ok(open instanceof InternalServerError && open.status === 503, String(open));
  assert.equal(proxy.seen.length - before, 2 + 3 + 1, 'the open POST went once');
  proxy.act(() => 'forward');
});

test('every POST carries an Idempotency-Key; a send whose answer was lost is retried with the same key and answered with the same message', async () => {
  const channel = await sandboxChannel('SDK idempotency');
  await customerWrites(server, channel.id, '15550002222');
  const before = proxy.seen.length;
  proxy.act((request, i) => (request.method === 'POST' && i === before ? 'lose-answer' : 'forward'));
  const sent = await viaProxy().messages.send({
    body: { channel_id: channel.id, to: '15550002222', type: 'text', content: { body: 'Sent once' } },
  });
  proxy.act(() => 'forward');
  const posts = proxy.seen.slice(before).filter((r) => r.method === 'POST');
  assert.equal(posts.length, 2, 'the lost answer was retried');
  const key = posts[0]!.headers['idempotency-key'];
  assert.match(String(key), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(posts[1]!.headers['idempotency-key'], key, 'the same key on the retry');
  assert.equal(posts[0]!.answered, 201, 'the first attempt was carried out');
  assert.equal(posts[1]!.answerHeaders?.['idempotent-replayed'], 'true');
  const all = await parley.messages.list({ channel_id: channel.id, direction: 'outbound' });
  assert.deepEqual(
    all.data.map((m) => m.id),
    [sent.data.id],
    'one message, the one answered',
  );

  // A key the caller chose is sent as given.
  const chosen = await viaProxy().messages.send({
    idempotencyKey: 'order-1234:confirmation',
    body: { channel_id: channel.id, to: '15550002222', type: 'text', content: { body: 'Chosen key' } },
  });
  assert.equal(proxy.seen.at(-1)!.headers['idempotency-key'], 'order-1234:confirmation');
  const again = await parley.messages.send({
    idempotencyKey: 'order-1234:confirmation',
    body: { channel_id: channel.id, to: '15550002222', type: 'text', content: { body: 'Chosen key' } },
  });
  assert.equal(again.data.id, chosen.data.id);
});

test('a lost answer to a POST whose key the service honours is retried and answered the same; one it does not honour is not retried', async () => {
  // Every authenticated POST honours Idempotency-Key (docs/api.md#idempotency): the channel is made once.
  let before = proxy.seen.length;
  proxy.act((request, i) => (request.method === 'POST' && i === before ? 'lose-answer' : 'forward'));
  const created = await viaProxy().channels.create({ body: { platform: 'chatapp_official', name: 'SDK lost once' } });
  proxy.act(() => 'forward');
  const posts = proxy.seen.slice(before).filter((r) => r.method === 'POST');
  assert.equal(posts.length, 2, 'the lost answer was retried');
  assert.equal(posts[1]!.headers['idempotency-key'], posts[0]!.headers['idempotency-key']);
  assert.equal(posts[1]!.answerHeaders?.['idempotent-replayed'], 'true');
  const named = [];
  for await (const channel of parley.channels.list({ limit: 200 })) if (channel.name === 'SDK lost once') named.push(channel.id);
  assert.deepEqual(named, [created.data.id], 'one channel, the one answered');

  // The device flow's start is open without a credential, where the service keeps no keys: not repeated.
  before = proxy.seen.length;
  proxy.act(() => 'lose-answer');
  const lost = await viaProxy()
    .oauth.startDeviceAuthorization({ body: { client_id: 'parley-cli' } })
    .catch((e: unknown) => e);
  proxy.act(() => 'forward');
  assert.ok(lost instanceof ConnectionError, String(lost));
  assert.equal(proxy.seen.length - before, 1);
  assert.ok(proxy.seen.at(-1)!.headers['idempotency-key'], 'the key is sent all the same');
});
