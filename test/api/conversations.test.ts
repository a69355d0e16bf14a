/**
 * The inbox's conversations: unread counts kept as customers write in, marking read, the embedded
 * contact, channel and assignee, the list's filters and search, and its order and cursor.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { checkAuthCases } from '../auth-cases.ts';
import {
  createKeyWith,
  createOtherOrganization,
  loginCookie,
  request,
  startTestServer,
  type ApiResponse,
  type TestServer,
} from '../harness.ts';
import { customerWrites, eventsOf, officialChannel, pairedGatewayChannel, send } from '../messages-helpers.ts';
import { inviteNewMember } from '../org-helpers.ts';

type Conversation = {
  id: string;
  status: string;
  peer_phone: string;
  unread_count: number;
  last_read_at: string | null;
  last_message_at: string | null;
  last_message_preview: string | null;
  assignee_user_id: string | null;
  created_at: string;
  contact: { id: string; name: string | null; phone: string | null } | null;
  channel: { id: string; name: string; platform: string } | null;
  assignee: { id: string; name: string } | null;
};

let server: TestServer;
let gateway: { id: string };
let official: { id: string };
let ownerCookie: string;
let ownerId: string;
let member: { userId: string; cookie: string };

before(async () => {
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '50' } });
  gateway = await pairedGatewayChannel(server, 'Front desk');
  official = await officialChannel(server, 'Support line');
  const paced = await request(server, 'PATCH', `/v1/channels/${gateway.id}`, {
    key: server.apiKey,
    body: { settings: { throughput_per_second: 200 } },
  });
  assert.equal(paced.status, 200, paced.text);
  ownerCookie = await loginCookie(server);
  ownerId = (await request(server, 'GET', '/v1/auth/session', { cookie: ownerCookie })).body.data.user.id;
  member = await inviteNewMember(server, { key: server.apiKey }, server.organizationId, 'member', 'agent');
});
after(() => server.close());

async function conversation(id: string): Promise<Conversation> {
  const res = await request(server, 'GET', `/v1/conversations/${id}`, { key: server.apiKey });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

async function conversationOf(messageId: string): Promise<Conversation> {
  const res = await request(server, 'GET', `/v1/messages/${messageId}`, { key: server.apiKey });
  assert.equal(res.status, 200, res.text);
  return conversation(res.body.data.conversation_id);
}

/** Every page of the list for `query`, `limit` at a time: the rows in order. */
async function allPages(
  query: string,
  limit: number,
  as: { key?: string; cookie?: string } = { key: server.apiKey },
): Promise<Conversation[]> {
  const rows: Conversation[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const res: ApiResponse = await request(
      server,
      'GET',
      `/v1/conversations?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
      as,
    );
    assert.equal(res.status, 200, res.text);
    assert.ok(res.body.data.length <= limit);
    rows.push(...res.body.data);
    cursor = res.body.meta.next_cursor;
    if (!cursor) return rows;
  }
  throw new Error('the pages did not end');
}

async function idsOf(query: string, as: { key?: string; cookie?: string } = { key: server.apiKey }): Promise<string[]> {
  const res = await request(server, 'GET', `/v1/conversations?${query}&limit=200`, as);
  assert.equal(res.status, 200, res.text);
  return (res.body.data as Conversation[]).map((c) => c.id);
}

function fieldErrors(res: { body: { errors?: Array<{ pointer: string; location?: string }> } }) {
  return (res.body.errors ?? []).map((e) => [e.location, e.pointer]);
}

describe('unread count and read', () => {
  test('inbound messages count as unread until someone marks the conversation read; replies do not change it', async () => {
    const phone = '4915112300001';
    const first = await customerWrites(server, gateway.id, phone, 'text', { body: 'first question' }, { name: 'Dora Unread' });
    let c = await conversationOf(first);
    assert.equal(c.unread_count, 1);
    assert.equal(c.last_read_at, null);
    await customerWrites(server, gateway.id, phone, 'text', { body: 'second question' });
    c = await conversation(c.id);
    assert.equal(c.unread_count, 2, 'each inbound message counts');
    assert.equal(c.last_message_preview, 'second question');
    assert.deepEqual(c.contact, { id: c.contact!.id, name: 'Dora Unread', phone: `+${phone}` }, 'the contact, embedded');
    assert.deepEqual(c.channel, { id: gateway.id, name: 'Front desk', platform: 'chatapp_unofficial' }, 'the channel, embedded');
    assert.equal(c.assignee, null);

    const reply = await send(server, { channel_id: gateway.id, to: phone, type: 'text', content: { body: 'on it' } });
    assert.equal(reply.status, 201, reply.text);
    assert.equal((await conversation(c.id)).unread_count, 2, 'a reply is not a read');

    const eventsBefore = (await eventsOf(server, 'conversation.updated')).filter((e) => e.payload.conversation_id === c.id).length;
    const read = await request(server, 'POST', `/v1/conversations/${c.id}/read`, { key: server.apiKey });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.data.unread_count, 0);
    assert.ok(read.body.data.last_read_at, 'last_read_at is set');
    assert.deepEqual(read.body.data.contact, c.contact, 'the answer is the whole record');
    const updates = (await eventsOf(server, 'conversation.updated')).filter((e) => e.payload.conversation_id === c.id);
    assert.equal(updates.length, eventsBefore + 1);
    assert.deepEqual(updates.at(-1)!.payload, {
      conversation_id: c.id,
      status: 'open',
      assignee_user_id: null,
      unread_count: 0,
      last_message_preview: 'on it',
      last_message_at: read.body.data.last_message_at,
      archived: false,
      pinned: false,
      muted_until: null,
      marked_unread: false,
      priority: 'none',
      snoozed_until: null,
      team_id: null,
    });

    const again = await request(server, 'POST', `/v1/conversations/${c.id}/read`, { key: server.apiKey });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.data.last_read_at, read.body.data.last_read_at, 'nothing unread: nothing changes');
    assert.equal(
      (await eventsOf(server, 'conversation.updated')).filter((e) => e.payload.conversation_id === c.id).length,
      eventsBefore + 1,
      'and no event',
    );

    await customerWrites(server, gateway.id, phone, 'text', { body: 'third question' });
    assert.equal((await conversation(c.id)).unread_count, 1, 'counting starts again');
  });

  test('a customer message reopens a closed conversation; its event carries the new unread count', async () => {
    const phone = '4915112300002';
    const c = await conversationOf(await customerWrites(server, gateway.id, phone, 'text', { body: 'hi' }));
    assert.equal(
      (await request(server, 'PATCH', `/v1/conversations/${c.id}`, { key: server.apiKey, body: { status: 'closed' } })).status,
      200,
    );
    await customerWrites(server, gateway.id, phone, 'text', { body: 'me again' });
    const updates = (await eventsOf(server, 'conversation.updated')).filter((e) => e.payload.conversation_id === c.id);
    assert.deepEqual(
      updates.map((e) => [e.payload.status, e.payload.unread_count, e.payload.last_message_preview]),
      [
        ['resolved', 1, 'hi'],
        ['open', 2, 'me again'],
      ],
    );
  });

  test('read: unknown and malformed ids are 404; it needs messages:send', async () => {
    for (const id of ['00000000-0000-7000-8000-000000000000', 'not-a-uuid']) {
      const res = await request(server, 'POST', `/v1/conversations/${id}/read`, { key: server.apiKey });
      assert.equal(res.status, 404, res.text);
      assert.equal(res.body.detail, 'conversation not found');
    }
    const c = await conversationOf(await customerWrites(server, gateway.id, '4915112300003'));
    const reader = await createKeyWith(server, ['messages:read']);
    const refused = await request(server, 'POST', `/v1/conversations/${c.id}/read`, { key: reader });
    assert.equal(refused.status, 403, refused.text);
    assert.equal((await conversation(c.id)).unread_count, 1, 'the refused read changed nothing');
    await checkAuthCases(server, [{ method: 'POST', path: `/v1/conversations/${c.id}/read`, permission: 'messages:send' }]);
  });
});

describe('embedded records', () => {
  test('a deleted contact or channel leaves null in its place; the conversation stays', async () => {
    const doomed = await pairedGatewayChannel(server, 'Doomed');
    const c = await conversationOf(await customerWrites(server, doomed.id, '4915112300005', 'text', { body: 'bye' }, { name: 'Ed Gone' }));
    assert.equal(c.contact?.name, 'Ed Gone');
    assert.equal((await request(server, 'DELETE', `/v1/contacts/${c.contact!.id}`, { key: server.apiKey })).status, 204);
    assert.equal((await conversation(c.id)).contact, null);
    const deleted = await request(server, 'DELETE', `/v1/channels/${doomed.id}`, { key: server.apiKey });
    assert.ok(deleted.status < 300, deleted.text);
    const after = await conversation(c.id);
    assert.equal(after.channel, null);
    assert.equal(after.last_message_preview, 'bye');
    assert.ok((await idsOf('q=bye')).includes(c.id), 'still listed and found');
  });

  test("another organization's list, filters and search find none of these conversations", async () => {
    const other = await createOtherOrganization(server, 'inbox');
    const mine = new Set(await idsOf('q=question'));
    assert.ok(mine.size > 0);
    for (const query of ['q=question', `assignee=${ownerId}`, 'unread=true', `channel_id=${gateway.id}`, 'assignee=none']) {
      const theirs = await idsOf(query, { key: other.apiKey });
      assert.deepEqual(theirs, [], query);
    }
  });
});

describe('assignment', () => {
  test('the assignee is embedded; conversation.updated on assign carries the inbox row', async () => {
    const c = await conversationOf(await customerWrites(server, gateway.id, '4915112300004', 'text', { body: 'who helps me?' }));
    const assigned = await request(server, 'PATCH', `/v1/conversations/${c.id}`, {
      key: server.apiKey,
      body: { assignee_user_id: member.userId },
    });
    assert.equal(assigned.status, 200, assigned.text);
    assert.deepEqual(assigned.body.data.assignee, { id: member.userId, name: 'agent person' });
    assert.equal((await conversation(c.id)).assignee?.name, 'agent person');
    const [update] = (await eventsOf(server, 'conversation.updated')).filter((e) => e.payload.conversation_id === c.id);
    assert.deepEqual(update!.payload, {
      conversation_id: c.id,
      status: 'open',
      assignee_user_id: member.userId,
      unread_count: 1,
      last_message_preview: 'who helps me?',
      last_message_at: c.last_message_at,
      archived: false,
      pinned: false,
      muted_until: null,
      marked_unread: false,
      priority: 'none',
      snoozed_until: null,
      team_id: null,
    });
    const unassigned = await request(server, 'PATCH', `/v1/conversations/${c.id}`, {
      key: server.apiKey,
      body: { assignee_user_id: null },
    });
    assert.equal(unassigned.body.data.assignee, null);
  });
});

describe('filters and search', () => {
  // A: gateway, unread, the owner's; B: gateway, read, closed, the member's; C: official, unread, nobody's; D: only a reply sent, nobody's.
  const mine = { a: '', b: '', c: '', d: '' };
  before(async () => {
    mine.a = (
      await conversationOf(
        await customerWrites(server, gateway.id, '4915112300011', 'text', { body: 'Where is my parcel?' }, { name: 'Berta Brandt' }),
      )
    ).id;
    mine.b = (
      await conversationOf(
        await customerWrites(server, gateway.id, '4915112300012', 'text', { body: 'Invoice please' }, { name: 'Carl Clay' }),
      )
    ).id;
    mine.c = (await conversationOf(await customerWrites(server, official.id, '4915112300013', 'text', { body: 'hello there' }))).id;
    const sent = await send(server, {
      channel_id: gateway.id,
      to: '4915112300014',
      type: 'text',
      content: { body: 'Your order 100%_done' },
    });
    assert.equal(sent.status, 201, sent.text);
    mine.d = sent.body.data.conversation_id;
    const patch = async (id: string, body: Record<string, unknown>) =>
      assert.equal((await request(server, 'PATCH', `/v1/conversations/${id}`, { key: server.apiKey, body })).status, 200);
    await patch(mine.a, { assignee_user_id: ownerId });
    await patch(mine.b, { assignee_user_id: member.userId, status: 'closed' });
    assert.equal((await request(server, 'POST', `/v1/conversations/${mine.b}/read`, { key: server.apiKey })).status, 200);
  });

  /**
   * The list's rows among this test's four conversations, by letter, alphabetically (the order is the
   * next describe's: an inbound message's time is the provider's, whole seconds on the official one).
   */
  async function which(query: string, as?: { key?: string; cookie?: string }): Promise<string> {
    const letters = new Map(Object.entries(mine).map(([letter, id]) => [id, letter]));
    return (await idsOf(query, as))
      .map((id) => letters.get(id))
      .filter(Boolean)
      .sort()
      .join('');
  }

  test('assignee: me (a signed-in user), none, a user id', async () => {
    assert.equal(await which('assignee=me', { cookie: ownerCookie }), 'a');
    assert.equal(await which('assignee=me', { cookie: member.cookie }), 'b');
    assert.equal(await which(`assignee=${member.userId}`), 'b');
    assert.equal(await which(`assignee=${ownerId}`, { cookie: member.cookie }), 'a');
    assert.equal(await which('assignee=none'), 'cd');
    assert.equal(await which('assignee=00000000-0000-7000-8000-000000000000'), '', 'nobody by that id');
  });

  test('assignee=me with an API key, and an assignee that is none of the forms, are 400 naming the field', async () => {
    const me = await request(server, 'GET', '/v1/conversations?assignee=me', { key: server.apiKey });
    assert.equal(me.status, 400, me.text);
    assert.deepEqual(fieldErrors(me), [['query', '/assignee']]);
    assert.match(me.text, /API key/);
    for (const bad of ['someone', 'ME', '']) {
      const res = await request(server, 'GET', `/v1/conversations?assignee=${bad}`, { key: server.apiKey });
      assert.equal(res.status, 400, `${bad}: ${res.text}`);
      assert.deepEqual(fieldErrors(res), [['query', '/assignee']]);
      assert.equal(res.body.errors[0].message, 'must be me, none, unassigned or a user id');
    }
  });

  test('unread, status, channel, and filters combined', async () => {
    assert.equal(await which('unread=true'), 'ac');
    assert.equal(await which('unread=false'), 'bd');
    assert.equal(await which('status=closed'), 'b');
    assert.equal(await which('status=open'), 'acd');
    assert.equal(await which(`channel_id=${official.id}`), 'c');
    assert.equal(await which(`channel_id=${gateway.id}&unread=true&assignee=none`), '');
    assert.equal(await which(`channel_id=${gateway.id}&unread=true`), 'a');
    const bad = await request(server, 'GET', '/v1/conversations?unread=yes', { key: server.apiKey });
    assert.equal(bad.status, 400, bad.text);
    assert.deepEqual(fieldErrors(bad), [['query', '/unread']]);
  });

  test('q finds the contact name, the number in any format and the last preview, case-insensitively and trimmed', async () => {
    assert.equal(await which('q=berta'), 'a');
    assert.equal(await which('q=BRANDT'), 'a');
    assert.equal(await which(`q=${encodeURIComponent('  Carl ')}`), 'b');
    assert.equal(await which(`q=${encodeURIComponent('+49 151 1230 0013')}`), 'c');
    assert.equal(await which('q=4915112300014'), 'd');
    assert.equal(await which(`q=${encodeURIComponent('0049 151 1230 0012')}`), 'b');
    assert.equal(await which('q=PARCEL'), 'a');
    assert.equal(await which('q=invoice&status=closed'), 'b');
    assert.equal(await which('q=invoice&status=open'), '');
    assert.equal(await which(`q=${encodeURIComponent('100%_done')}`), 'd', 'wildcards are plain text');
    assert.equal(await which(`q=${encodeURIComponent('0%_d')}`), 'd');
    assert.equal(await which(`q=${encodeURIComponent('1%2')}`), '', '% matches only itself');
    assert.equal(await which('q=%20%20'), 'abcd', 'blank is no search');
  });

  test('q longer than 100 characters is 400 naming the field', async () => {
    const res = await request(server, 'GET', `/v1/conversations?q=${'x'.repeat(101)}`, { key: server.apiKey });
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(fieldErrors(res), [['query', '/q']]);
    assert.equal((await request(server, 'GET', `/v1/conversations?q=${'x'.repeat(100)}`, { key: server.apiKey })).status, 200);
  });
});

describe('order and cursor', () => {
  test('most recent activity first; pages under filters have no duplicates and no gaps, ties and conversations without messages included', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 9; i++) {
      const sent = await send(server, { channel_id: gateway.id, to: `49151123002${i}0`, type: 'text', content: { body: `pager ${i}` } });
      assert.equal(sent.status, 201, sent.text);
      ids.push(sent.body.data.conversation_id);
    }
    const db = server.container.database.db;
    // Three share one activity time (the id decides), one has no message yet (its creation time counts).
    await db.execute(
      sql`update conversations set last_message_at = '2026-01-01T00:00:00.000Z' where id in (${ids[1]}, ${ids[4]}, ${ids[6]})`,
    );
    await db.execute(sql`update conversations set last_message_at = null, created_at = '2026-01-01T00:00:00.000Z' where id = ${ids[7]}`);
    await db.execute(sql`update conversations set assignee_user_id = ${member.userId} where id in (${ids[2]}, ${ids[5]})`);

    const whole = await allPages('q=pager', 200);
    assert.equal(whole.length, 9);
    const activityOf = (c: Conversation) => Date.parse(c.last_message_at ?? c.created_at);
    for (let i = 1; i < whole.length; i++) {
      const [prev, next] = [whole[i - 1]!, whole[i]!];
      assert.ok(
        activityOf(prev) > activityOf(next) || (activityOf(prev) === activityOf(next) && prev.id > next.id),
        `${i}: ordered by activity, then id`,
      );
    }
    assert.deepEqual(
      whole
        .slice(-4)
        .map((c) => c.id)
        .sort(),
      [ids[1], ids[4], ids[6], ids[7]].sort(),
      'the four of 2026-01-01 come last',
    );

    for (const limit of [1, 2, 4]) {
      const paged = await allPages('q=pager', limit);
      assert.deepEqual(
        paged.map((c) => c.id),
        whole.map((c) => c.id),
        `limit ${limit}: the same rows in the same order`,
      );
    }
    const unassigned = await allPages('q=pager&assignee=none&status=open', 2);
    assert.deepEqual(
      unassigned.map((c) => c.id),
      whole.filter((c) => c.id !== ids[2] && c.id !== ids[5]).map((c) => c.id),
      'filtered pages: every match once, in order',
    );

    // A customer writing in moves their conversation to the top.
    await customerWrites(server, gateway.id, '4915112300270', 'text', { body: 'pager news' });
    const top = (await request(server, 'GET', '/v1/conversations?q=pager&limit=1', { key: server.apiKey })).body.data[0] as Conversation;
    assert.equal(top.id, ids[7]);
    assert.equal(top.unread_count, 1);
  });

  test('the cursor is opaque: a forged or mangled one is 400 naming it', async () => {
    const first = await request(server, 'GET', '/v1/conversations?limit=1', { key: server.apiKey });
    const cursor = first.body.meta.next_cursor as string;
    assert.ok(cursor);
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as { t: string; id: string };
    for (const forged of [
      Buffer.from(JSON.stringify({ ...key, t: "2026-01-01' or 1=1" })).toString('base64url'),
      Buffer.from(JSON.stringify({ ...key, id: 'x' })).toString('base64url'),
      Buffer.from('not json').toString('base64url'),
    ]) {
      const res = await request(server, 'GET', `/v1/conversations?cursor=${encodeURIComponent(forged)}`, { key: server.apiKey });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(fieldErrors(res), [['query', '/cursor']]);
    }
  });
});

describe('a member leaving', () => {
  test('what was assigned to them or owned by them is released, each with its event; what others hold stays', async () => {
    const leaver = await inviteNewMember(server, { key: server.apiKey }, server.organizationId, 'member', 'leaver');
    const c = await conversationOf(await customerWrites(server, gateway.id, '4915112300099', 'text', { body: 'hello?' }));
    const api = async (method: string, path: string, body: unknown) => {
      const res = await request(server, method, path, { key: server.apiKey, body });
      assert.ok(res.status < 300, res.text);
      return res.body.data as { id: string };
    };
    await api('PATCH', `/v1/conversations/${c.id}`, { assignee_user_id: leaver.userId });
    const company = await api('POST', '/v1/companies', { name: 'Left Behind GmbH', owner_user_id: leaver.userId });
    const kept = await api('POST', '/v1/companies', { name: 'Still Owned AG', owner_user_id: ownerId });
    const deal = await api('POST', '/v1/deals', { name: 'Orphan deal', owner_user_id: leaver.userId });
    const task = await api('POST', '/v1/tasks', { title: 'Call back', assignee_user_id: leaver.userId });

    const removed = await request(server, 'DELETE', `/v1/organizations/${server.organizationId}/members/${leaver.userId}`, {
      cookie: ownerCookie,
    });
    assert.equal(removed.status, 204, removed.text);

    assert.equal((await conversation(c.id)).assignee, null, 'the conversation is unassigned');
    const read = async (path: string) => (await request(server, 'GET', path, { key: server.apiKey })).body.data;
    assert.equal((await read(`/v1/companies/${company.id}`)).owner_user_id, null);
    assert.equal((await read(`/v1/companies/${kept.id}`)).owner_user_id, ownerId, 'another member’s company stays theirs');
    assert.equal((await read(`/v1/deals/${deal.id}`)).owner_user_id, null);
    assert.equal((await read(`/v1/tasks/${task.id}`)).assignee_user_id, null);

    const updated = (await eventsOf(server, 'conversation.updated')).filter((e) => e.payload.conversation_id === c.id);
    assert.equal(updated.at(-1)!.payload.assignee_user_id, null);
    const records = (await eventsOf(server, 'crm.record.updated')).map((e) => e.payload.record_id);
    for (const id of [company.id, deal.id, task.id]) assert.ok(records.includes(id), `crm.record.updated for ${id}`);
    assert.ok(!records.includes(kept.id));
  });
});
