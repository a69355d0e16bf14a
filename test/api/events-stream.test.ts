/**
 * GET /v1/events/stream: the organization's events live over server-sent events, real HTTP. Ids are
 * GET /v1/events cursors (interchangeable both ways); a resume with Last-Event-ID (or `cursor`) gets
 * exactly the missed events; the type filter; credentials (API key, session cookie with
 * organization_id) checked at the start and again on every heartbeat; another organization's events
 * never appear; a second process on the same PostgreSQL database streams what the first commits;
 * closing the server ends open streams at once.
 */
// stores: both
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { buildContainer } from '../../src/container.ts';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { EVENTS_SEQUENCED_CHANNEL, recordEvent, type EventType } from '../../src/domain/events/outbox.ts';
import { encodeEventCursor } from '../../src/domain/events/replay.ts';
import { buildApp } from '../../src/http/app.ts';
import { createLogger } from '../../src/lib/logger.ts';
import {
  createKeyWith,
  createOtherOrganization,
  freePort,
  loginCookie,
  request,
  startTestServer,
  usingPostgres,
  type TestServer,
} from '../harness.ts';
import { checkAuthCases } from '../auth-cases.ts';
import { eventually } from '../eventually.ts';
import { createGrant, createOAuthClient } from '../oauth-client-fixture.ts';

const HEARTBEAT_MS = 300;

let server: TestServer;
before(async () => {
  // The poll floor is far away: events must reach open streams through the NOTIFY.
  server = await startTestServer({
    worker: true,
    env: { EVENT_STREAM_HEARTBEAT_MS: String(HEARTBEAT_MS), EVENT_STREAM_POLL_MS: '600000', WEBHOOK_POLL_INTERVAL_MS: '50' },
  });
  await createContact();
});
after(() => server.close());

type Message = { id: string; event: string; data: { id: string; type: string; created_at: string; data: Record<string, unknown> } };
type Stream = {
  status: number;
  headers: Headers;
  /** The body of a refusal (JSON). */
  body: any;
  messages: Message[];
  comments: string[];
  retry: number | undefined;
  /** Settles when the server ends the stream (or it is closed here). */
  ended: Promise<void>;
  isEnded(): boolean;
  close(): void;
};

type As = { key?: string; cookie?: string; bearer?: string; headers?: Record<string, string> };

/** Opens a stream and reads it as it comes; a refusal is read whole. */
async function openStream(target: { baseUrl: string }, url: string, as: As): Promise<Stream> {
  const headers: Record<string, string> = { accept: 'text/event-stream', ...as.headers };
  if (as.key) headers['x-api-key'] = as.key;
  if (as.cookie) headers.cookie = as.cookie;
  if (as.bearer) headers.authorization = `Bearer ${as.bearer}`;
  server.registerSensitive('an X-Api-Key', as.key);
  server.registerSensitive('a session cookie', as.cookie?.split('=')[1]);
  const controller = new AbortController();
  const res = await fetch(target.baseUrl + url, { headers, signal: controller.signal });
  const stream: Stream = {
    status: res.status,
    headers: res.headers,
    body: undefined,
    messages: [],
    comments: [],
    retry: undefined,
    ended: Promise.resolve(),
    isEnded: () => ended,
    close: () => controller.abort(),
  };
  let ended = false;
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
    const text = await res.text();
    stream.body = text ? JSON.parse(text) : undefined;
    ended = true;
    return stream;
  }
  stream.ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields: Record<string, string> = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) stream.comments.push(line.slice(1).trim());
            else {
              const at = line.indexOf(':');
              fields[line.slice(0, at)] = line.slice(at + 1).replace(/^ /, '');
            }
          }
          if (fields.retry !== undefined) stream.retry = Number(fields.retry);
          if (fields.data !== undefined) stream.messages.push({ id: fields.id!, event: fields.event!, data: JSON.parse(fields.data) });
        }
      }
    } catch {
      // aborted here
    } finally {
      ended = true;
    }
  })();
  // Connected once the retry hint is in.
  await eventually('the stream to start', () => stream.retry !== undefined || ended);
  return stream;
}

let contactId: string;
async function createContact() {
  const contact = await request(server, 'POST', '/v1/contacts', {
    key: server.apiKey,
    body: { phone_number: '+4915112347001', name: 'Streamed Person' },
  });
  assert.equal(contact.status, 201, contact.text);
  contactId = contact.body.data.id;
  // Its events sequenced: a stream opened from now starts after them.
  await eventually('the contact events sequenced', async () => (await listed(server.apiKey)).length >= 1);
}

/** A contact note through the API: one crm.comment.created event, committed by the request. */
async function addNote(target: TestServer = server, key = target.apiKey): Promise<void> {
  const note = await request(target, 'POST', `/v1/contacts/${contactId}/notes`, { key, body: { body: 'streamed note' } });
  assert.equal(note.status, 201, note.text);
}

/** Events recorded straight into the outbox, one transaction each. */
async function emit(organizationId: string, count: number, type: EventType = 'conversation.updated'): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    ids.push(
      await server.container.database.db.transaction((tx) =>
        recordEvent(tx, organizationId, type as 'conversation.updated', { conversation_id: `c-${i}`, status: 'open' }),
      ),
    );
  }
  return ids;
}

/** Every event of the organization GET /v1/events lists after the cursor, with the cursor after each. */
async function listed(key: string, cursor?: string) {
  const out: Array<{ record: Message['data']; cursorAfter: string }> = [];
  let next = cursor;
  for (;;) {
    const res = await request(server, 'GET', `/v1/events?limit=1${next ? `&cursor=${next}` : ''}`, { key });
    assert.equal(res.status, 200, res.text);
    const [record] = res.body.data as Array<Message['data']>;
    if (!record) return out;
    next = res.body.meta.next_cursor;
    out.push({ record, cursorAfter: next! });
  }
}

async function sequenced(key: string, eventIds: string[]) {
  await eventually('the events to be sequenced', async () => {
    const ids = new Set((await listed(key)).map((e) => e.record.id));
    return eventIds.every((id) => ids.has(id));
  });
}

test('events arrive live in commit order; each id is the GET /v1/events cursor after that event, each data the record it lists', async () => {
  const before = await listed(server.apiKey);
  const stream = await openStream(server, '/v1/events/stream', { key: server.apiKey });
  try {
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get('content-type')!, /^text\/event-stream/);
    assert.equal(stream.headers.get('cache-control'), 'no-store');
    assert.ok(stream.headers.get('x-request-id'));
    assert.equal(stream.retry, 2000);
    await addNote();
    await addNote();
    const ids = await emit(server.organizationId, 3);
    await eventually('five events on the stream', () => stream.messages.length >= 5 || undefined);
    const now = (await listed(server.apiKey)).slice(before.length);
    // Started at "now": none of the events from before the stream opened.
    assert.deepEqual(
      stream.messages.map((m) => m.data),
      now.map((e) => e.record),
    );
    assert.deepEqual(
      stream.messages.map((m) => m.id),
      now.map((e) => e.cursorAfter),
    );
    assert.deepEqual(
      stream.messages.map((m) => m.event),
      ['crm.comment.created', 'crm.comment.created', 'conversation.updated', 'conversation.updated', 'conversation.updated'],
    );
    assert.deepEqual(
      stream.messages.slice(2).map((m) => m.data.id),
      ids,
    );
    // Interchangeable the other way: GET /v1/events after a stream id lists what came after it.
    const page = await request(server, 'GET', `/v1/events?cursor=${stream.messages[1]!.id}`, { key: server.apiKey });
    assert.deepEqual(
      (page.body.data as Array<{ id: string }>).map((e) => e.id),
      ids,
    );
  } finally {
    stream.close();
  }
});

test('a resume with Last-Event-ID (or cursor) gets exactly the missed events, then live ones, none twice', async () => {
  const first = await openStream(server, '/v1/events/stream', { key: server.apiKey });
  const early = await emit(server.organizationId, 2);
  await eventually('two events', () => first.messages.length >= 2 || undefined);
  first.close();
  const lastId = first.messages[1]!.id;
  const missed = await emit(server.organizationId, 3);
  await sequenced(server.apiKey, missed);

  const resumed = await openStream(server, '/v1/events/stream', { key: server.apiKey, headers: { 'last-event-id': lastId } });
  const byQuery = await openStream(server, `/v1/events/stream?cursor=${lastId}`, { key: server.apiKey });
  // The header wins over the parameter: EventSource reconnects with the URL it started with.
  const both = await openStream(server, `/v1/events/stream?cursor=${first.messages[0]!.id}`, {
    key: server.apiKey,
    headers: { 'last-event-id': lastId },
  });
  try {
    const live = await emit(server.organizationId, 2);
    for (const stream of [resumed, byQuery, both]) {
      await eventually('the missed and the live events', () => stream.messages.length >= 5 || undefined);
      assert.deepEqual(
        stream.messages.map((m) => m.data.id),
        [...missed, ...live],
      );
    }
    assert.deepEqual(
      first.messages.map((m) => m.data.id),
      early,
    );
    // From a GET /v1/events cursor too: its next_cursor before the missed ones.
    const all = await listed(server.apiKey);
    const cursorBefore = all[all.findIndex((e) => e.record.id === missed[0]) - 1]!.cursorAfter;
    const fromList = await openStream(server, `/v1/events/stream?cursor=${cursorBefore}`, { key: server.apiKey });
    await eventually('the replayed events', () => fromList.messages.length >= 5 || undefined);
    assert.deepEqual(
      fromList.messages.map((m) => m.data.id),
      [...missed, ...live],
    );
    fromList.close();
  } finally {
    for (const s of [resumed, byQuery, both]) s.close();
  }
});

test('types: only the events of those types; an unknown type or a bad cursor is a 400 naming the field, before any stream', async () => {
  const stream = await openStream(server, '/v1/events/stream?types=crm.comment.created,template.status_update', { key: server.apiKey });
  try {
    await emit(server.organizationId, 2);
    await addNote();
    await emit(server.organizationId, 1);
    await addNote();
    await eventually('two notes', () => stream.messages.length >= 2 || undefined);
    const sentinel = await emit(server.organizationId, 1, 'template.status_update');
    await eventually('the sentinel', () => stream.messages.some((m) => m.data.id === sentinel[0]) || undefined);
    assert.deepEqual(
      stream.messages.map((m) => m.event),
      ['crm.comment.created', 'crm.comment.created', 'template.status_update'],
    );
  } finally {
    stream.close();
  }
  const head = await fetch(`${server.baseUrl}/v1/events/stream`, { method: 'HEAD', headers: { 'x-api-key': server.apiKey } });
  assert.equal(head.status, 200);
  assert.match(head.headers.get('content-type')!, /^text\/event-stream/);
  assert.equal(await head.text(), '', 'a HEAD request gets the headers and its answer ends');
  const unknownType = await openStream(server, '/v1/events/stream?types=crm.comment.created,message.nope', { key: server.apiKey });
  assert.equal(unknownType.status, 400);
  assert.equal(unknownType.headers.get('content-type'), 'application/problem+json; charset=utf-8');
  assert.deepEqual(
    unknownType.body.errors.map((e: { pointer: string; location: string }) => [e.location, e.pointer]),
    [['query', '/types']],
  );
  assert.match(unknownType.body.errors[0].message, /message\.nope/);
  const badQuery = await openStream(server, '/v1/events/stream?cursor=not-a-cursor', { key: server.apiKey });
  assert.equal(badQuery.status, 400);
  assert.deepEqual(
    badQuery.body.errors.map((e: { pointer: string; location: string }) => [e.location, e.pointer]),
    [['query', '/cursor']],
  );
  const badHeader = await openStream(server, '/v1/events/stream', { key: server.apiKey, headers: { 'last-event-id': 'eyJwIjotMX0' } });
  assert.equal(badHeader.status, 400);
  assert.deepEqual(
    badHeader.body.errors.map((e: { pointer: string; location: string }) => [e.location, e.pointer]),
    [['headers', '/last-event-id']],
  );
});

test('credentials: none or an unknown one is 401, one without webhooks:read is 403; another organization never sees these events', async () => {
  const none = await openStream(server, '/v1/events/stream', {});
  assert.equal(none.status, 401);
  const unknown = await openStream(server, '/v1/events/stream', { key: 'prl_nobody_0000000000000000' });
  assert.equal(unknown.status, 401);
  const limited = await createKeyWith(server, ['messages:read']);
  const forbidden = await openStream(server, '/v1/events/stream', { key: limited });
  assert.equal(forbidden.status, 403);
  assert.equal(forbidden.body.permission, 'webhooks:read');

  const other = await createOtherOrganization(server, 'stream-other');
  const otherCookie = await loginCookie(server, other.email, other.password);
  const byKey = await openStream(server, '/v1/events/stream', { key: other.apiKey });
  const bySession = await openStream(server, '/v1/events/stream', { cookie: otherCookie });
  const mine = await openStream(server, '/v1/events/stream', { key: server.apiKey });
  try {
    const ours = await emit(server.organizationId, 3);
    await addNote();
    await eventually('our events on our stream', () => mine.messages.length >= 4 || undefined);
    const theirs = await emit(other.organizationId, 1);
    for (const stream of [byKey, bySession]) {
      await eventually("the other organization's own event", () => stream.messages.length >= 1 || undefined);
      assert.deepEqual(
        stream.messages.map((m) => m.data.id),
        theirs,
      );
    }
    assert.equal(
      mine.messages.some((m) => m.data.id === theirs[0]),
      false,
    );
    assert.deepEqual(
      mine.messages.slice(0, 3).map((m) => m.data.id),
      ours,
    );
    // A resume from a cursor of ours on their stream shows only theirs: a cursor is a position, never a key to another organization.
    const resumed = await openStream(server, `/v1/events/stream?cursor=${mine.messages[0]!.id}`, { key: other.apiKey });
    await eventually('their event again', () => resumed.messages.length >= 1 || undefined);
    const more = await emit(other.organizationId, 1);
    await eventually('their next event', () => resumed.messages.length >= 2 || undefined);
    assert.deepEqual(
      resumed.messages.map((m) => m.data.id),
      [...theirs, ...more],
    );
    resumed.close();
  } finally {
    for (const s of [byKey, bySession, mine]) s.close();
  }
});

test('the auth cases every route passes (refused before any stream starts)', async () => {
  await checkAuthCases(server, [{ method: 'GET', path: '/v1/events/stream', permission: 'webhooks:read' }]);
});

test('an OAuth access token with webhooks:read streams; revoking its grant ends the stream within a heartbeat', async () => {
  const cookie = await loginCookie(server);
  const session = await request(server, 'GET', '/v1/auth/session', { cookie });
  const client = await createOAuthClient(server, { scopes: ['webhooks:read'] });
  const grant = await createGrant(server, { client, userId: session.body.data.user.id, organizationIds: [server.organizationId] });
  const stream = await openStream(server, '/v1/events/stream', { bearer: grant.accessToken });
  try {
    assert.equal(stream.status, 200);
    const ids = await emit(server.organizationId, 1);
    await eventually('the event by bearer', () => stream.messages[0]?.data.id === ids[0] || undefined);
    const revoked = await request(server, 'DELETE', `/v1/auth/authorizations/${grant.id}`, { cookie });
    assert.equal(revoked.status, 204, revoked.text);
    await eventually('the bearer stream to end', () => stream.isEnded() || undefined, { timeoutMs: HEARTBEAT_MS * 10 });
  } finally {
    stream.close();
  }
  const noScope = await createOAuthClient(server, { scopes: ['messages:read'] });
  const narrow = await createGrant(server, {
    client: noScope,
    userId: session.body.data.user.id,
    organizationIds: [server.organizationId],
  });
  const refused = await openStream(server, '/v1/events/stream', { bearer: narrow.accessToken });
  assert.equal(refused.status, 403);
});

test('a session streams its organization, or another it is a member of by organization_id; not one it is not a member of', async () => {
  const cookie = await loginCookie(server);
  const own = await openStream(server, '/v1/events/stream', { cookie });
  const named = await openStream(server, `/v1/events/stream?organization_id=${server.organizationId}`, { cookie });
  try {
    assert.equal(own.status, 200);
    assert.equal(named.status, 200);
    const ids = await emit(server.organizationId, 1);
    for (const s of [own, named]) await eventually('the event by session', () => s.messages[0]?.data.id === ids[0] || undefined);
  } finally {
    own.close();
    named.close();
  }
  const stranger = await createOtherOrganization(server, 'stream-stranger');
  const notMember = await openStream(server, `/v1/events/stream?organization_id=${stranger.organizationId}`, { cookie });
  assert.equal(notMember.status, 403);
  const malformed = await openStream(server, '/v1/events/stream?organization_id=nope', { cookie });
  assert.equal(malformed.status, 400);
  assert.deepEqual(
    malformed.body.errors.map((e: { pointer: string; location: string }) => [e.location, e.pointer]),
    [['query', '/organization_id']],
  );
  const contradicting = await openStream(server, `/v1/events/stream?organization_id=${stranger.organizationId}`, {
    cookie,
    headers: { 'x-organization-id': server.organizationId },
  });
  assert.equal(contradicting.status, 400);
  // A key reaches its own organization only, whichever way another is named: that organization is refused (400), the key is not.
  const keyElsewhere = await openStream(server, `/v1/events/stream?organization_id=${stranger.organizationId}`, { key: server.apiKey });
  assert.equal(keyElsewhere.status, 400);
  assert.deepEqual(
    keyElsewhere.body.errors.map((e: { pointer: string; location: string }) => [e.location, e.pointer]),
    [['query', '/organization_id']],
  );
});

test('a stream ends within a heartbeat once its session is revoked or its key deleted; until then keep-alive comments come', async () => {
  const cookie = await loginCookie(server);
  const session = await request(server, 'GET', '/v1/auth/session', { cookie });
  const bySession = await openStream(server, '/v1/events/stream', { cookie });
  const key = await createKeyWith(server, ['webhooks:read']);
  const keys = await request(server, 'GET', '/v1/api-keys', { key: server.apiKey });
  const keyId = (keys.body.data as Array<{ id: string; permissions: string[] }>).find(
    (k) => k.permissions.length === 1 && k.permissions[0] === 'webhooks:read',
  )!.id;
  const byKey = await openStream(server, '/v1/events/stream', { key });
  try {
    await eventually(
      'keep-alive comments',
      () => (bySession.comments.includes('keepalive') && byKey.comments.includes('keepalive')) || undefined,
    );
    assert.equal(bySession.isEnded() || byKey.isEnded(), false);
    const revoked = await request(server, 'DELETE', `/v1/auth/sessions/${session.body.data.session.id}`, {
      cookie: await loginCookie(server),
    });
    assert.equal(revoked.status, 204, revoked.text);
    await eventually('the session stream to end', () => bySession.isEnded() || undefined, { timeoutMs: HEARTBEAT_MS * 10 });
    assert.equal(byKey.isEnded(), false, 'the key stream goes on');
    const deleted = await request(server, 'DELETE', `/v1/api-keys/${keyId}`, { key: server.apiKey });
    assert.equal(deleted.status, 204, deleted.text);
    await eventually('the key stream to end', () => byKey.isEnded() || undefined, { timeoutMs: HEARTBEAT_MS * 10 });
  } finally {
    bySession.close();
    byKey.close();
  }
});

test('a client that does not read is dropped once 1 MiB waits for it, rather than buffered without end', async () => {
  const socket = connect(Number(new URL(server.baseUrl).port), '127.0.0.1');
  server.registerSensitive('an X-Api-Key', server.apiKey);
  let received = 0;
  let ended = false;
  socket.on('data', (chunk) => {
    received += chunk.length;
    // Connected: stop reading (the kernel's buffers fill, then the server's).
    if (chunk.toString().includes('retry:')) socket.pause();
  });
  socket.on('close', () => (ended = true));
  socket.on('error', () => undefined);
  socket.write(`GET /v1/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: ${server.apiKey}\r\n\r\n`);
  await eventually('the stream to start', () => socket.isPaused() || undefined);
  // About 24 MiB of events, far past what the socket buffers and the stream's bound hold.
  const big = 'x'.repeat(64 * 1024);
  await server.container.database.db.transaction(async (tx) => {
    for (let i = 0; i < 384; i++)
      await recordEvent(tx, server.organizationId, 'conversation.updated', { conversation_id: big, status: `s${i}` });
  });
  // More events while those still wait for the client.
  await eventually('the server to drop the slow client', async () => {
    if (server.logs.some((l) => l.includes('does not keep up'))) return true;
    await emit(server.organizationId, 1);
    return false;
  });
  socket.resume();
  await eventually('the connection to end', () => ended || undefined);
  assert.ok(received < 384 * big.length, `received ${received} bytes: the stream was cut short`);
});

test('a client that stops reading while its backlog is sent is dropped at the next heartbeat', async () => {
  // The backlog from the start: the previous test's 24 MiB of events.
  const socket = connect(Number(new URL(server.baseUrl).port), '127.0.0.1');
  let ended = false;
  socket.on('data', (chunk) => {
    if (chunk.toString().includes('retry:')) socket.pause();
  });
  socket.on('close', () => (ended = true));
  socket.on('error', () => undefined);
  const logged = server.logs.length;
  socket.write(`GET /v1/events/stream?cursor=${encodeEventCursor(0)} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: ${server.apiKey}\r\n\r\n`);
  await eventually(
    'the server to drop the stalled client',
    () => server.logs.slice(logged).some((l) => l.includes('does not keep up')) || undefined,
    { timeoutMs: HEARTBEAT_MS * 20 },
  );
  socket.resume();
  await eventually('the connection to end', () => ended || undefined);
});

test('open streams are capped per credential and per organization: past a cap 429 with Retry-After, and a closed one makes room', async () => {
  const capped = await startTestServer({
    env: { EVENT_STREAM_MAX_PER_CREDENTIAL: '2', EVENT_STREAM_MAX_PER_ORGANIZATION: '3', EVENT_STREAM_HEARTBEAT_MS: String(HEARTBEAT_MS) },
  });
  const open: Stream[] = [];
  const stream = async (as: As) => {
    const opened = await openStream(capped, '/v1/events/stream', as);
    if (opened.status === 200) open.push(opened);
    return opened;
  };
  const isCapRefusal = (refused: Stream, variable: string) => {
    assert.equal(refused.status, 429, JSON.stringify(refused.body));
    assert.match(refused.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1, 'Retry-After');
    assert.equal(refused.body.code, 'rate_limited');
    assert.match(refused.body.detail, new RegExp(variable));
  };
  try {
    const second = await createKeyWith(capped, ['webhooks:read']);
    const cookie = await loginCookie(capped);
    assert.deepEqual([(await stream({ key: capped.apiKey })).status, (await stream({ key: capped.apiKey })).status], [200, 200]);
    isCapRefusal(await stream({ key: capped.apiKey }), 'EVENT_STREAM_MAX_PER_CREDENTIAL');
    // Another credential of the organization: one more place, then the organization's cap.
    assert.equal((await stream({ key: second })).status, 200);
    isCapRefusal(await stream({ key: second }), 'EVENT_STREAM_MAX_PER_ORGANIZATION');
    isCapRefusal(await stream({ cookie }), 'EVENT_STREAM_MAX_PER_ORGANIZATION');
    // Another organization is not held back by this one's streams.
    const stranger = await createOtherOrganization(capped, 'stream-cap');
    assert.equal((await stream({ key: stranger.apiKey })).status, 200);
    // A stream the client closes gives its place back.
    open.shift()!.close();
    await eventually('the closed stream to give its place back', async () => (await stream({ key: capped.apiKey })).status === 200);
  } finally {
    for (const s of open) s.close();
    await capped.close();
  }
});

test('closing the server ends its open streams at once instead of waiting on them', async () => {
  const own = await startTestServer({ env: { EVENT_STREAM_HEARTBEAT_MS: '60000' } });
  const streams = await Promise.all([1, 2, 3].map(() => openStream(own, '/v1/events/stream', { key: own.apiKey })));
  assert.ok(streams.every((s) => s.status === 200 && !s.isEnded()));
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const closed = await Promise.race([
    own.close().then(() => true),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), 10_000))),
  ]);
  clearTimeout(timer);
  assert.ok(closed, 'the server is still closing after 10 s: it waits on its open streams');
  const took = Date.now() - started;
  await Promise.all(streams.map((s) => s.ended));
  assert.ok(took < 5000, `closing took ${took} ms`);
});

test('two processes on one PostgreSQL database: an event committed through A reaches a stream open on B', {
  skip: usingPostgres ? false : 'needs a PostgreSQL server (TEST_DATABASE_URL): PGlite serves one process',
}, async () => {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-test-b-'));
  const config = loadConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    BASE_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    DATABASE_URL: server.databaseUrl!,
    ROLES: 'api',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '0',
    EVENT_STREAM_POLL_MS: '600000',
  });
  const container = await buildContainer(config, { logger: createLogger({ level: 'warn' }) });
  const app = await buildApp(container);
  await app.listen({ port, host: '127.0.0.1' });
  const b = { baseUrl: config.baseUrl };
  try {
    const stream = await openStream(b, '/v1/events/stream', { key: server.apiKey });
    const more = await Promise.all(
      [1, 2, 3].map(() => openStream(b, '/v1/events/stream?types=crm.comment.created', { key: server.apiKey })),
    );
    assert.equal(stream.status, 200);
    // One LISTEN connection per process, however many streams it serves: A's (earlier tests opened streams there) and B's.
    const [listening] = await queryRows<{ n: number }>(
      server.container.database.db,
      sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and query = ${`listen "${EVENTS_SEQUENCED_CHANNEL}"`}`,
    );
    assert.equal(listening!.n, 2);
    await addNote(server);
    await addNote(server);
    await eventually('the events committed through A, on B', () => stream.messages.length >= 2 || undefined);
    assert.deepEqual(
      stream.messages.map((m) => m.event),
      ['crm.comment.created', 'crm.comment.created'],
    );
    // The same records A lists, with the same cursors.
    const next = await request(server, 'GET', `/v1/events?cursor=${stream.messages[0]!.id}`, { key: server.apiKey });
    assert.deepEqual(next.body.data, [stream.messages[1]!.data]);
    assert.equal(next.body.meta.next_cursor, stream.messages[1]!.id);
    for (const s of more) await eventually('the notes on every stream of B', () => s.messages.length >= 2 || undefined);
    for (const s of [stream, ...more]) s.close();
  } finally {
    await app.close();
    await container.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
