/**
 * Business labels and status posts of unofficial channels, end to end through the HTTP gateway protocol
 * against the sandbox gateway (docs/gateway-protocol.md, "Labels" and "Status"): the routes, the
 * protocol's calls and callbacks, Parley's copy of the labels kept in step with the phone's changes,
 * the events (label.updated, label.assigned, label.unassigned, status.received) once per change, the
 * status_messages setting honoured, the refusals naming the field, and the official platform's 422.
 * The embedded engine's side is test/embedded/labels.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { eventually } from '../eventually.ts';
import { request, startTestServer, type TestServer } from '../harness.ts';
import { eventsOf, officialChannel, pairedGatewayChannel as pairedChannel } from '../messages-helpers.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '0' } });
});
after(() => server.close());

const api = (method: string, path: string, body?: unknown) => request(server, method, path, { key: server.apiKey, body });
const labelsOf = (channelId: string) => `/v1/channels/${channelId}/labels`;

/** A paired sandbox gateway channel, with its gateway session's id. */
async function pairedGatewayChannel(srv: TestServer, name: string): Promise<{ id: string; session: string }> {
  const { id } = await pairedChannel(srv, name);
  const channel = (await api('GET', `/v1/channels/${id}`)).body.data;
  return { id, session: channel.settings.session as string };
}

/** The payloads of one event type for a channel, once there are `count` of them. */
async function channelEvents(type: string, channelId: string, count: number) {
  return eventually(`${count} ${type} events`, async () => {
    const found = (await eventsOf(server, type)).map((e) => e.payload).filter((p) => p.channel_id === channelId);
    return found.length >= count ? found : undefined;
  });
}

/** Nothing left for the sandbox to call back: every label callback was delivered and applied. */
async function settled() {
  await eventually('the sandbox callbacks delivered', async () => {
    const [row] = await queryRows<{ n: number }>(
      server.container.database.db,
      sql`select count(*)::int as n from pgboss.job where name in ('sandbox.callback', 'provider.inbound') and state < 'completed'`,
    );
    return row!.n === 0 ? true : undefined;
  });
}

test('labels made, renamed, put on a contact and a group and taken off, deleted; the gateway told, each change one event', async () => {
  const channel = await pairedGatewayChannel(server, 'Labels');

  const made = await api('POST', labelsOf(channel.id), { name: 'Paid', color: 5 });
  assert.equal(made.status, 201, made.text);
  assert.deepEqual(
    { ...made.body.data, updated_at: undefined },
    {
      id: '1',
      channel_id: channel.id,
      name: 'Paid',
      color: 5,
      chats: [],
      updated_at: undefined,
    },
  );
  const second = await api('POST', labelsOf(channel.id), { name: 'New customer' });
  assert.equal(second.status, 201, second.text);
  assert.equal(second.body.data.id, '2');
  assert.equal(second.body.data.color, 1, 'a color of its own when none is given');

  const taken = await api('POST', labelsOf(channel.id), { name: 'paid' });
  assert.equal(taken.status, 400, taken.text);
  assert.equal(taken.body.errors[0].pointer, '/name');

  const renamed = await api('PATCH', `${labelsOf(channel.id)}/1`, { name: 'Paid in full' });
  assert.equal(renamed.status, 200, renamed.text);
  assert.equal(renamed.body.data.name, 'Paid in full');
  assert.equal(renamed.body.data.color, 5);

  const onContact = await api('POST', `${labelsOf(channel.id)}/1/chats`, { chat: '+49 151 1234 0601' });
  assert.equal(onContact.status, 200, onContact.text);
  const onGroup = await api('POST', `${labelsOf(channel.id)}/1/chats`, { chat: '120363025246125888@g.us' });
  assert.deepEqual(onGroup.body.data.chats, ['+4915112340601', '120363025246125888@g.us']);

  const [sandboxRow] = await queryRows<{ name: string; chats: string[] }>(
    server.container.database.db,
    sql`select name, chats from sandbox_labels where id = '1' and account_id = ${channel.session}`,
  );
  assert.deepEqual(sandboxRow, { name: 'Paid in full', chats: ['4915112340601', '120363025246125888@g.us'] }, 'the gateway holds them');

  const onChat = await api('GET', `${labelsOf(channel.id)}?chat=${encodeURIComponent('+4915112340601')}`);
  assert.deepEqual(
    onChat.body.data.map((l: { id: string }) => l.id),
    ['1'],
  );

  const off = await api('DELETE', `${labelsOf(channel.id)}/1/chats/${encodeURIComponent('+4915112340601')}`);
  assert.equal(off.status, 200, off.text);
  assert.deepEqual(off.body.data.chats, ['120363025246125888@g.us']);

  // The gateway's callbacks (the echo of each change) change nothing more: one event per change.
  await settled();
  const updated = await channelEvents('label.updated', channel.id, 3);
  assert.deepEqual(
    updated.map((e) => [e.label_id, e.name, e.deleted]),
    [
      ['1', 'Paid', false],
      ['2', 'New customer', false],
      ['1', 'Paid in full', false],
    ],
  );
  const assigned = await channelEvents('label.assigned', channel.id, 2);
  assert.deepEqual(
    assigned.map((e) => e.chat_id),
    ['+4915112340601', '120363025246125888@g.us'],
  );
  assert.deepEqual(
    (await channelEvents('label.unassigned', channel.id, 1)).map((e) => e.chat_id),
    ['+4915112340601'],
  );

  const removed = await api('DELETE', `${labelsOf(channel.id)}/1`);
  assert.equal(removed.status, 204, removed.text);
  const listed = await api('GET', labelsOf(channel.id));
  assert.deepEqual(
    listed.body.data.map((l: { name: string }) => l.name),
    ['New customer'],
  );
  const deleted = (await channelEvents('label.updated', channel.id, 4))[3]!;
  assert.deepEqual([deleted.label_id, deleted.deleted], ['1', true]);
  assert.equal((await api('GET', `${labelsOf(channel.id)}/1`)).status, 404);
  await settled();
  assert.equal((await eventsOf(server, 'label.updated')).filter((e) => e.payload.channel_id === channel.id).length, 4);
});

test("the phone's own label changes reach Parley: a label made and put on a chat there is listed, with its events", async () => {
  const channel = await pairedGatewayChannel(server, 'Phone labels');
  const door = (body: Record<string, unknown>) => api('POST', '/sandbox/labels', { channel_id: channel.id, ...body });
  assert.equal((await door({ label_id: '7', name: 'VIP', color: 3 })).status, 202);
  assert.equal((await door({ label_id: '7', chat: '4915112340611', action: 'add' })).status, 202);
  const listed = await eventually('the phone’s label listed', async () => {
    const res = await api('GET', labelsOf(channel.id));
    return res.body.data[0]?.chats.length === 1 ? res.body.data : undefined;
  });
  assert.deepEqual(
    listed.map((l: { id: string; name: string; color: number; chats: string[] }) => [l.id, l.name, l.color, l.chats]),
    [['7', 'VIP', 3, ['+4915112340611']]],
  );
  assert.equal((await channelEvents('label.assigned', channel.id, 1))[0]!.label_id, '7');
  // Parley's next label is numbered after the phone's.
  assert.equal((await api('POST', labelsOf(channel.id), { name: 'Later' })).body.data.id, '8');

  assert.equal((await door({ label_id: '7', deleted: true })).status, 202);
  await eventually('the phone’s label gone', async () => {
    const res = await api('GET', labelsOf(channel.id));
    return res.body.data.every((l: { id: string }) => l.id !== '7') ? true : undefined;
  });
});

test('bad input is a 400 naming the field; unknown labels 404; official channels 422; a channel without its phone 409', async () => {
  const channel = await pairedGatewayChannel(server, 'Label refusals');
  const cases: Array<[string, string, unknown, string]> = [
    ['POST', labelsOf(channel.id), { name: '' }, '/name'],
    ['POST', labelsOf(channel.id), { name: 'x', color: 20 }, '/color'],
    ['POST', labelsOf(channel.id), { name: 'x', shade: 1 }, ''],
    ['POST', `/v1/channels/${channel.id}/status`, { type: 'text', text: 'hi', recipients: ['not a phone'] }, '/recipients/0'],
    [
      'POST',
      `/v1/channels/${channel.id}/status`,
      { type: 'text', text: 'hi', background_color: 'red', recipients: ['+4915112340601'] },
      '/background_color',
    ],
    ['POST', `/v1/channels/${channel.id}/status`, { type: 'image', recipients: ['+4915112340601'] }, '/url'],
    ['POST', `/v1/channels/${channel.id}/status`, { type: 'gif', recipients: ['+4915112340601'] }, '/type'],
  ];
  for (const [method, path, body, pointer] of cases) {
    const res = await api(method, path, body);
    assert.equal(res.status, 400, `${method} ${path} ${JSON.stringify(body)}: ${res.text}`);
    if (pointer)
      assert.ok(
        res.body.errors.some((e: { pointer: string }) => e.pointer === pointer),
        `${pointer} in ${res.text}`,
      );
  }
  const label = (await api('POST', labelsOf(channel.id), { name: 'Ok' })).body.data;
  const notAChat = await api('POST', `${labelsOf(channel.id)}/${label.id}/chats`, { chat: 'someone' });
  assert.equal(notAChat.status, 400, notAChat.text);
  assert.equal(notAChat.body.errors[0].pointer, '/chat');
  const offNetwork = await api('POST', `${labelsOf(channel.id)}/${label.id}/chats`, { chat: '+4915112340002' });
  assert.equal(offNetwork.status, 400, offNetwork.text);
  assert.equal(offNetwork.body.errors[0].pointer, '/chat');
  const badFilter = await api('GET', `${labelsOf(channel.id)}?chat=someone`);
  assert.equal(badFilter.status, 400, badFilter.text);
  assert.deepEqual([badFilter.body.errors[0].pointer, badFilter.body.errors[0].location], ['/chat', 'query']);
  const badPath = await api('DELETE', `${labelsOf(channel.id)}/${label.id}/chats/someone`);
  assert.equal(badPath.status, 400, badPath.text);
  assert.equal(badPath.body.errors[0].pointer, '/chat');
  assert.equal((await api('PATCH', `${labelsOf(channel.id)}/99`, { name: 'x' })).status, 404);
  assert.equal((await api('POST', `${labelsOf(channel.id)}/99/chats`, { chat: '+4915112340601' })).status, 404);
  await api('POST', labelsOf(channel.id), { name: 'Other' });
  const clash = await api('PATCH', `${labelsOf(channel.id)}/${label.id}`, { name: 'other' });
  assert.equal(clash.status, 400, clash.text);
  assert.equal(clash.body.errors[0].pointer, '/name');
  const nothing = await api('PATCH', `${labelsOf(channel.id)}/${label.id}`, {});
  assert.equal(nothing.status, 400, nothing.text);

  const official = await officialChannel(server, 'Official labels');
  for (const [method, path, body] of [
    ['GET', labelsOf(official.id), undefined],
    ['POST', labelsOf(official.id), { name: 'x' }],
    ['POST', `/v1/channels/${official.id}/status`, { type: 'text', text: 'x', recipients: ['+4915112340601'] }],
  ] as const) {
    const res = await api(method, path, body);
    assert.equal(res.status, 422, `${method} ${path}: ${res.text}`);
    assert.match(res.body.detail, /not supported on chatapp_official channels/);
  }
  const unpaired = (await api('POST', '/v1/channels', { platform: 'chatapp_unofficial', name: 'Unpaired', sandbox: true })).body.data;
  assert.equal((await api('GET', labelsOf(unpaired.id))).status, 200, 'the kept labels list without the phone');
  const res = await api('POST', labelsOf(unpaired.id), { name: 'x' });
  assert.equal(res.status, 409, res.text);
  assert.match(res.body.detail, /channel is disconnected/);
});

test('status posts: text, image and video to chosen contacts through the gateway; contacts’ posts as status.received only when kept', async () => {
  const channel = await pairedGatewayChannel(server, 'Status');
  const text = await api('POST', `/v1/channels/${channel.id}/status`, {
    type: 'text',
    text: 'Open on Sunday',
    background_color: '#112233',
    font: 2,
    recipients: ['+49 151 1234 0701', '+4915112340702', '+4915112340701'],
  });
  assert.equal(text.status, 201, text.text);
  assert.deepEqual(text.body.data.recipients, ['+4915112340701', '+4915112340702']);
  const image = await api('POST', `/v1/channels/${channel.id}/status`, {
    type: 'image',
    url: 'https://cdn.example.com/june.jpg',
    caption: 'June',
    recipients: ['+4915112340701'],
  });
  assert.equal(image.status, 201, image.text);
  const video = await api('POST', `/v1/channels/${channel.id}/status`, {
    type: 'video',
    url: 'https://cdn.example.com/june.mp4',
    recipients: ['+4915112340701'],
  });
  assert.equal(video.status, 201, video.text);
  const posts = await queryRows<{ id: string; type: string; body: Record<string, unknown> }>(
    server.container.database.db,
    sql`select id, type, body from sandbox_messages where account_id = ${channel.session} and recipient = 'status@broadcast' order by created_at, id`,
  );
  const byId = new Map(posts.map((p) => [p.id, p]));
  assert.deepEqual(byId.get(text.body.data.id)!.body, {
    text: 'Open on Sunday',
    background_color: '#112233',
    font: 2,
    recipients: ['4915112340701', '4915112340702'],
  });
  assert.deepEqual(byId.get(image.body.data.id)!.body, {
    url: 'https://cdn.example.com/june.jpg',
    caption: 'June',
    recipients: ['4915112340701'],
  });
  assert.equal(byId.get(video.body.data.id)!.type, 'video');

  // A contact's post is dropped while the channel ignores status broadcasts (the default)...
  const ignored = await api('POST', '/sandbox/inbound', {
    channel_id: channel.id,
    from: '4915112340703',
    type: 'text',
    content: { body: 'my story' },
    status: true,
  });
  assert.equal(ignored.status, 202, ignored.text);
  assert.equal(ignored.body.delivered, false);
  // ...and delivered, as a message and a status.received event, once it keeps them.
  assert.equal((await api('PATCH', `/v1/channels/${channel.id}`, { settings: { status_messages: true } })).status, 200);
  const kept = await api('POST', '/sandbox/inbound', {
    channel_id: channel.id,
    from: '4915112340703',
    type: 'text',
    content: { body: 'my story' },
    status: true,
  });
  assert.equal(kept.status, 202, kept.text);
  assert.equal(kept.body.delivered, true);
  const [received] = await channelEvents('status.received', channel.id, 1);
  assert.equal(received!.from_phone, '+4915112340703');
  assert.equal(received!.type, 'text');
  const message = await api('GET', `/v1/messages/${received!.message_id as string}`);
  assert.equal(message.status, 200, message.text);
  assert.equal(message.body.data.content.status_post, true);
  assert.equal(message.body.data.content.body, 'my story');
  await settled();
  assert.equal((await eventsOf(server, 'status.received')).filter((e) => e.payload.channel_id === channel.id).length, 1);
});
