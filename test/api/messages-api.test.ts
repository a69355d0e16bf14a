import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { checkAuthCases } from '../auth-cases.ts';
import { createOtherOrganization, freePort, request, startTestServer, type TestServer } from '../harness.ts';
import { eventually } from '../eventually.ts';
import { customerWrites, eventsOf, pairedGatewayChannel, send, waitForStatus } from '../messages-helpers.ts';

let server: TestServer;
let gateway: { id: string };
before(async () => {
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '50' } });
  gateway = await pairedGatewayChannel(server);
  // Many sends go through this one channel: a gateway's default pace (5 a second) would queue them up.
  const paced = await request(server, 'PATCH', `/v1/channels/${gateway.id}`, {
    key: server.apiKey,
    body: { settings: { throughput_per_second: 200 } },
  });
  assert.equal(paced.status, 200, paced.text);
});
after(() => server.close());

describe('Idempotency-Key', () => {
  test('the same key and body return the first answer and send once; another body is 409', async () => {
    const body = { channel_id: gateway.id, to: '4915112342222', type: 'text', content: { body: 'only once' } };
    const first = await send(server, body, server.apiKey, { 'idempotency-key': 'order-42-confirmation' });
    assert.equal(first.status, 201, first.text);
    const again = await send(server, body, server.apiKey, { 'idempotency-key': 'order-42-confirmation' });
    assert.equal(again.status, 201);
    assert.equal(again.body.data.id, first.body.data.id);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    const other = await send(server, { ...body, content: { body: 'different' } }, server.apiKey, {
      'idempotency-key': 'order-42-confirmation',
    });
    assert.equal(other.status, 409);
    const [count] = await queryRows<{ n: number }>(
      server.container.database.db,
      sql`select count(*)::int as n from messages where content->>'body' = 'only once'`,
    );
    assert.equal(count!.n, 1);
  });

  test('concurrent requests with one key make one message', async () => {
    const body = { channel_id: gateway.id, to: '4915112342223', type: 'text', content: { body: 'race' } };
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => send(server, body, server.apiKey, { 'idempotency-key': 'race-key' })),
    );
    assert.ok(
      answers.every((a) => a.status === 201),
      answers.map((a) => `${a.status} ${a.status === 201 ? '' : a.text}`).join(','),
    );
    assert.equal(new Set(answers.map((a) => a.body.data.id)).size, 1);
    const [count] = await queryRows<{ n: number }>(
      server.container.database.db,
      sql`select count(*)::int as n from messages where content->>'body' = 'race'`,
    );
    assert.equal(count!.n, 1);
  });

  test('the same body with its keys in another order replays instead of conflicting', async () => {
    const key = { 'idempotency-key': 'key-order' };
    const first = await send(
      server,
      { channel_id: gateway.id, to: '4915112342225', type: 'text', content: { body: 'any order', preview_url: false } },
      server.apiKey,
      key,
    );
    assert.equal(first.status, 201, first.text);
    const again = await send(
      server,
      { content: { preview_url: false, body: 'any order' }, type: 'text', to: '4915112342225', channel_id: gateway.id },
      server.apiKey,
      key,
    );
    assert.equal(again.status, 201, again.text);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body, 'the first answer again');
  });

  test('keys are per organization', async () => {
    const other = await createOtherOrganization(server, 'idem');
    const res = await send(server, { channel_id: gateway.id, to: '4915112342224', type: 'text', content: { body: 'x' } }, other.apiKey, {
      'idempotency-key': 'order-42-confirmation',
    });
    assert.equal(res.status, 400, "the other organization does not see the first one's answer (nor its channel)");
  });
});

describe('group commit', () => {
  test('concurrent sends share statements, and each gets its own answer: accepted, refused, conversations made once', async () => {
    const database = server.container.database;
    const original = database.queryPrepared;
    let statements = 0;
    database.queryPrepared = (name, query, values) => {
      if (name.startsWith('parley_accept')) statements++;
      return original(name, query, values);
    };
    try {
      const suppressedPhone = '+4915112389999';
      const contact = await request(server, 'POST', '/v1/contacts', { key: server.apiKey, body: { phone_number: suppressedPhone } });
      assert.equal(contact.status, 201, contact.text);
      const suppress = await request(server, 'POST', `/v1/contacts/${contact.body.data.id}/suppressions`, {
        key: server.apiKey,
        body: { channel: 'all', reason: 'opted out' },
      });
      assert.equal(suppress.status, 201, suppress.text);
      statements = 0;
      // Eight numbers never written to before (their conversations are made in this burst), four
      // messages each, and four to the suppressed number, all at once.
      const numbers = Array.from({ length: 8 }, (_, i) => `49151123880${String(i).padStart(2, '0')}`);
      const bodies = [
        ...Array.from({ length: 32 }, (_, i) => ({ to: numbers[i % 8]!, body: `burst ${i}` })),
        ...Array.from({ length: 4 }, (_, i) => ({ to: suppressedPhone, body: `refused ${i}` })),
      ];
      const answers = await Promise.all(
        bodies.map((b) => send(server, { channel_id: gateway.id, to: b.to, type: 'text', content: { body: b.body } })),
      );
      const accepted = answers.slice(0, 32);
      const refused = answers.slice(32);
      assert.ok(
        accepted.every((a) => a.status === 201),
        accepted.map((a) => a.status).join(','),
      );
      assert.ok(
        refused.every((a) => a.status === 422 && a.body.reason === 'suppressed'),
        refused.map((a) => a.text).join('\n'),
      );
      assert.equal(new Set(accepted.map((a) => a.body.data.id)).size, 32);
      assert.ok(statements < bodies.length, `${statements} accepting statements for ${bodies.length} sends: none were shared`);

      const rows = await queryRows<{ id: string; conversation_id: string; to_phone: string; body: string }>(
        database.db,
        sql`select id, conversation_id, to_phone, content->>'body' as body from messages where content->>'body' like 'burst %' or content->>'body' like 'refused %'`,
      );
      assert.equal(rows.length, 32, 'a refused message was written, or an accepted one is missing');
      const conversations = await queryRows<{ id: string; peer_phone: string; last_message_at: Date; last_message_preview: string }>(
        database.db,
        sql`select id, peer_phone, last_message_at, last_message_preview from conversations where channel_id = ${gateway.id} and peer_phone like '49151123880%'`,
      );
      assert.equal(conversations.length, 8, 'one conversation per number');
      for (const answer of accepted) {
        const row = rows.find((r) => r.id === answer.body.data.id)!;
        assert.equal(answer.body.data.conversation_id, row.conversation_id);
        assert.equal(conversations.find((c) => c.id === row.conversation_id)?.peer_phone, row.to_phone);
      }
      // Each conversation shows its latest message.
      for (const conversation of conversations) {
        const latest = accepted
          .filter((a) => a.body.data.conversation_id === conversation.id)
          .sort((a, b) => a.body.data.created_at.localeCompare(b.body.data.created_at))
          .at(-1)!;
        assert.equal(new Date(conversation.last_message_at).toISOString(), latest.body.data.created_at);
      }
    } finally {
      database.queryPrepared = original;
    }
  });
});

describe('channel cache', () => {
  test('a send refused because the channel was not connected is accepted as soon as it is (the refusal is not cached)', async () => {
    const made = await request(server, 'POST', '/v1/channels', {
      key: server.apiKey,
      body: { platform: 'chatapp_unofficial', name: 'Paired later', sandbox: true },
    });
    assert.equal(made.status, 201, made.text);
    const id = made.body.data.id as string;
    const body = { channel_id: id, to: '4915112347777', type: 'text', content: { body: 'once paired' } };
    const refused = await send(server, body);
    assert.equal(refused.status, 409, refused.text);
    // Paired by the worker's jobs (in a scaled-out deployment, another process than the one that refused).
    const connect = await request(server, 'POST', `/v1/channels/${id}/connect`, { key: server.apiKey });
    assert.equal(connect.status, 200, connect.text);
    const scan = await request(server, 'POST', '/sandbox/gateway/scan', { body: { qr: connect.body.data.qr.qr } });
    assert.ok(scan.status < 300, scan.text);
    await eventually('pairing', async () =>
      (await request(server, 'GET', `/v1/channels/${id}`, { key: server.apiKey })).body.data.status === 'connected' ? true : undefined,
    );
    const accepted = await send(server, body);
    assert.equal(accepted.status, 201, `accepted once the channel is connected, not after the cache's 30 s: ${accepted.text}`);
  });
});

describe('pacing', () => {
  test("a burst drains at the channel's pace: every message is sent, none sooner than the pace allows", async () => {
    const channel = await pairedGatewayChannel(server, 'paced');
    const paced = await request(server, 'PATCH', `/v1/channels/${channel.id}`, {
      key: server.apiKey,
      body: { settings: { throughput_per_second: 10 } },
    });
    assert.equal(paced.status, 200, paced.text);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        send(server, {
          channel_id: channel.id,
          to: `4915112377${String(i).padStart(3, '0')}`,
          type: 'text',
          content: { body: `paced ${i}` },
        }),
      ),
    );
    if (!answers.every((a) => a.status === 201)) {
      // A flake seen under load (2 in 5 full runs): the channel went back to pairing after it showed connected. Say how.
      const history = await request(server, 'GET', `/v1/channels/${channel.id}/status`, { key: server.apiKey });
      assert.fail(`sends refused: ${answers.find((a) => a.status !== 201)!.text}; channel status history: ${history.text}`);
    }
    const ids = answers.map((a) => a.body.data.id as string);
    // When each send was let through: its attempt is recorded right after its pacing slot, before the call.
    const sentAt = await eventually(
      'all 40 to be sent',
      async () => {
        const rows = await queryRows<{ status: string; at: Date }>(
          server.container.database.db,
          sql`select status, last_attempt_at as at from messages where channel_id = ${channel.id}`,
        );
        assert.ok(
          rows.every((r) => r.status !== 'failed'),
          JSON.stringify(rows),
        );
        return rows.length === ids.length && rows.every((r) => r.status !== 'queued')
          ? rows.map((r) => new Date(r.at).getTime()).sort((a, b) => a - b)
          : undefined;
      },
      90_000,
    );
    // 10 a second with one second's burst: the last of 40 goes out 3 s after the first. (The times are
    // recorded a moment after each slot, so a busy machine can bunch them a little: the bounds allow it.)
    const span = sentAt.at(-1)! - sentAt[0]!;
    assert.ok(span >= 2500, `40 messages at 10/s were sent within ${span} ms`);
    // And at no point much faster: any 21 consecutive sends span about a second (burst of 10, then 10/s).
    for (let i = 0; i + 20 < sentAt.length; i++)
      assert.ok(sentAt[i + 20]! - sentAt[i]! >= 700, `sends ${i}..${i + 20} within ${sentAt[i + 20]! - sentAt[i]!} ms`);
  });
});

describe('listing', () => {
  test('cursor pages stay stable while new messages arrive, and filters apply', async () => {
    const to = '4915112343333';
    const ids: string[] = [];
    for (let i = 0; i < 7; i++)
      ids.push((await send(server, { channel_id: gateway.id, to, type: 'text', content: { body: `p${i}` } })).body.data.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let page = 0;
    do {
      const res: { body: { data: Array<{ id: string }>; meta: { next_cursor: string | null } } } = await request(
        server,
        'GET',
        `/v1/messages?to=%2B${to}&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { key: server.apiKey },
      );
      seen.push(...res.body.data.map((m) => m.id));
      cursor = res.body.meta.next_cursor;
      // New messages arrive between pages; they sort before the cursor and never shift it.
      await send(server, { channel_id: gateway.id, to, type: 'text', content: { body: `late ${page}` } });
      page++;
    } while (cursor && page < 20);
    assert.deepEqual(seen, [...ids].reverse());

    const outbound = await request(server, 'GET', `/v1/messages?direction=outbound&channel_id=${gateway.id}&limit=200`, {
      key: server.apiKey,
    });
    assert.ok(
      outbound.body.data.every((m: { direction: string; channel_id: string }) => m.direction === 'outbound' && m.channel_id === gateway.id),
    );
    const future = await request(
      server,
      'GET',
      `/v1/messages?created_after=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
      { key: server.apiKey },
    );
    assert.deepEqual(future.body.data, []);
    const bad = await request(server, 'GET', '/v1/messages?created_after=yesterday', { key: server.apiKey });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors[0].pointer, '/created_after');
    assert.equal((await request(server, 'GET', '/v1/messages?limit=500', { key: server.apiKey })).status, 400);
  });
});

describe('conversations', () => {
  test('PATCH changes status and assignee and records conversation.updated', async () => {
    const to = '4915112344444';
    const sent = await send(server, { channel_id: gateway.id, to, type: 'text', content: { body: 'hi' } });
    const id = sent.body.data.conversation_id;
    const list = await request(server, 'GET', `/v1/conversations?channel_id=${gateway.id}`, { key: server.apiKey });
    assert.ok(list.body.data.some((c: { id: string }) => c.id === id));
    const session = await request(server, 'POST', '/v1/auth/login', {
      body: { email: 'owner@example.com', password: 'correct horse battery staple' },
    });
    const closed = await request(server, 'PATCH', `/v1/conversations/${id}`, {
      key: server.apiKey,
      body: { status: 'closed', assignee_user_id: session.body.data.id },
    });
    assert.equal(closed.status, 200, closed.text);
    assert.equal(closed.body.data.status, 'resolved', 'closed is accepted as the old name of resolved');
    assert.equal(closed.body.data.assignee_user_id, session.body.data.id);
    const badAssignee = await request(server, 'PATCH', `/v1/conversations/${id}`, {
      key: server.apiKey,
      body: { assignee_user_id: '00000000-0000-7000-8000-000000000000' },
    });
    assert.equal(badAssignee.status, 400);
    const updates = (await eventsOf(server, 'conversation.updated')).filter((e) => e.payload.conversation_id === id);
    assert.deepEqual(
      updates.map((e) => e.payload.status),
      ['resolved'],
    );
    await customerWrites(server, gateway.id, to);
    const reopened = await request(server, 'GET', `/v1/conversations/${id}`, { key: server.apiKey });
    assert.equal(reopened.body.data.status, 'open', 'a customer message reopens it');
  });

  test('a change whose event cannot be written is not committed either', async () => {
    const sent = await send(server, { channel_id: gateway.id, to: '4915112344445', type: 'text', content: { body: 'hi' } });
    const id = sent.body.data.conversation_id as string;
    const db = server.container.database.db;
    // This test's own database: a trigger refuses the conversation's event, as a failing outbox write would.
    await db.execute(
      sql.raw(`create function refuse_conversation_event() returns trigger language plpgsql as $$
      begin
        if new.type = 'conversation.updated' and new.payload->>'conversation_id' = '${id}' then raise exception 'event refused by the test'; end if;
        return new;
      end $$`),
    );
    await db.execute(
      sql`create trigger refuse_conversation_event before insert on events for each row execute function refuse_conversation_event()`,
    );
    try {
      const closed = await request(server, 'PATCH', `/v1/conversations/${id}`, { key: server.apiKey, body: { status: 'closed' } });
      assert.equal(closed.status, 500, closed.text);
      const now = await request(server, 'GET', `/v1/conversations/${id}`, { key: server.apiKey });
      assert.equal(now.body.data.status, 'open', 'the change went with its event');
    } finally {
      await db.execute(sql`drop trigger refuse_conversation_event on events`);
      await db.execute(sql`drop function refuse_conversation_event()`);
    }
  });
});

describe('media limits (checked by the worker)', () => {
  let media: Server;
  let base: string;
  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    media = createServer((req, res) => {
      const sizes: Record<string, [string, number]> = {
        '/big.png': ['image/png', 6 * 1024 * 1024],
        '/small.png': ['image/png', 2048],
        '/photo.gif': ['image/gif', 2048],
        '/sticker.webp': ['image/webp', 150 * 1024],
      };
      const entry = sizes[req.url ?? ''];
      if (!entry) return void res.writeHead(404).end();
      const [type, size] = entry;
      res.writeHead(206, { 'content-type': type, 'content-range': `bytes 0-63/${size}`, 'content-length': '64' });
      const head = Buffer.alloc(64);
      if (type === 'image/webp') head.write('RIFF\0\0\0\0WEBPVP8 ', 'latin1');
      res.end(head);
    });
    await new Promise<void>((r) => media.listen(port, '127.0.0.1', r));
  });
  after(() => new Promise<void>((r) => media.close(() => r())));

  test('too large, wrong format, unreachable: the message fails with a clear code; within limits it is sent', async () => {
    const cases: Array<[string, string, string | null]> = [
      ['image', '/big.png', 'media_too_large'],
      ['image', '/photo.gif', 'media_type_unsupported'],
      ['image', '/missing.png', 'media_unreachable'],
      ['sticker', '/sticker.webp', 'media_too_large'],
      ['image', '/small.png', null],
    ];
    for (const [type, path, code] of cases) {
      const res = await send(server, { channel_id: gateway.id, to: '4915112345556', type, content: { media_url: base + path } });
      assert.equal(res.status, 201, res.text);
      if (code) {
        const failed = await waitForStatus(server, res.body.data.id, 'failed');
        assert.equal(failed.error.code, code, `${path}`);
        assert.ok(failed.error.title.length > 10);
      } else {
        await waitForStatus(server, res.body.data.id, 'read');
      }
    }
  });
});

describe('isolation and auth', () => {
  test("another organization's messages and conversations are not found", async () => {
    const sent = await send(server, { channel_id: gateway.id, to: '4915112347770', type: 'text', content: { body: 'private' } });
    const other = await createOtherOrganization(server, 'msg');
    const get = await request(server, 'GET', `/v1/messages/${sent.body.data.id}`, { key: other.apiKey });
    assert.equal(get.status, 404);
    assert.equal(get.body.detail, 'message not found');
    assert.equal((await request(server, 'GET', `/v1/messages/${sent.body.data.id}/status`, { key: other.apiKey })).status, 404);
    assert.equal((await request(server, 'GET', `/v1/conversations/${sent.body.data.conversation_id}`, { key: other.apiKey })).status, 404);
    assert.equal(
      (
        await request(server, 'PATCH', `/v1/conversations/${sent.body.data.conversation_id}`, {
          key: other.apiKey,
          body: { status: 'closed' },
        })
      ).status,
      404,
    );
    const list = await request(server, 'GET', '/v1/messages?limit=200', { key: other.apiKey });
    assert.deepEqual(list.body.data, []);
    const sendOnMine = await send(
      server,
      { channel_id: gateway.id, to: '4915112347770', type: 'text', content: { body: 'x' } },
      other.apiKey,
    );
    assert.equal(sendOnMine.status, 400);
    const unknown = await request(server, 'GET', '/v1/messages/00000000-0000-7000-8000-000000000000', { key: server.apiKey });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.detail, 'message not found');
  });

  test('auth cases for the message and conversation routes', async () => {
    await checkAuthCases(server, [
      {
        method: 'POST',
        path: '/v1/messages',
        permission: 'messages:send',
        body: { channel_id: gateway.id, to: '4915112347771', type: 'text', content: { body: 'x' } },
      },
      { method: 'GET', path: '/v1/messages', permission: 'messages:read' },
      { method: 'GET', path: '/v1/messages/00000000-0000-7000-8000-000000000000', permission: 'messages:read' },
      { method: 'GET', path: '/v1/conversations', permission: 'messages:read' },
    ]);
  });
});
