/**
 * Groups, presence and the engine settings of unofficial channels, end to end through the HTTP
 * gateway protocol against the sandbox gateway (docs/gateway-protocol.md, "Groups"): the routes, the
 * protocol's calls and callbacks, the events (group.updated, presence.updated), a group as one
 * conversation, the refusals (unknown group 404, not an admin 403, a participant not on the network
 * or not in the group 400 naming it), and the official platform's 422. The embedded engine's side is
 * test/embedded/groups.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { eventually } from '../eventually.ts';
import { request, startTestServer, type TestServer } from '../harness.ts';
import { eventsOf, officialChannel, pairedGatewayChannel, sendText, waitForStatus } from '../messages-helpers.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '0' } });
});
after(() => server.close());

const api = (method: string, path: string, body?: unknown) => request(server, method, path, { key: server.apiKey, body });
const groupsOf = (channelId: string) => `/v1/channels/${channelId}/groups`;
const groupPath = (channelId: string, groupId: string, rest = '') => `${groupsOf(channelId)}/${encodeURIComponent(groupId)}${rest}`;

/** The group.updated events of a group, in order, once `count` of them were recorded. */
async function groupEvents(groupId: string, count: number) {
  return eventually(`${count} group.updated events of ${groupId}`, async () => {
    const found = (await eventsOf(server, 'group.updated')).map((e) => e.payload).filter((p) => p.group_id === groupId);
    return found.length >= count ? found : undefined;
  });
}

async function sessionOf(channelId: string): Promise<{ id: string; settings: Record<string, unknown>; phone: string }> {
  const channel = (await api('GET', `/v1/channels/${channelId}`)).body.data;
  const [row] = await queryRows<{ settings: Record<string, unknown>; display_phone_number: string }>(
    server.container.database.db,
    sql`select settings, display_phone_number from sandbox_accounts where id = ${channel.settings.session as string}`,
  );
  return { id: channel.settings.session as string, settings: row!.settings, phone: row!.display_phone_number.replace(/\D/g, '') };
}

test('a group made, changed, its members managed, its link read and reset, its picture set, then left; each change a group.updated event', async () => {
  const channel = await pairedGatewayChannel(server, 'Groups');
  const self = (await sessionOf(channel.id)).phone;

  const made = await api('POST', groupsOf(channel.id), { subject: 'Order 10023', participants: ['+49 151 1234 0101', '+4915112340102'] });
  assert.equal(made.status, 201, made.text);
  const group = made.body.data;
  assert.match(group.id, /^\d+@g\.us$/);
  assert.equal(group.channel_id, channel.id);
  assert.equal(group.subject, 'Order 10023');
  assert.equal(group.role, 'superadmin');
  assert.deepEqual(
    group.participants.map((p: { phone: string; role: string }) => [p.phone, p.role]),
    [
      [`+${self}`, 'superadmin'],
      ['+4915112340101', 'member'],
      ['+4915112340102', 'member'],
    ],
  );
  const [joined] = await groupEvents(group.id, 1);
  assert.equal(joined!.change, 'group_join');
  assert.equal(joined!.subject, 'Order 10023');
  assert.equal(joined!.channel_id, channel.id);

  const listed = await api('GET', groupsOf(channel.id));
  assert.equal(listed.status, 200, listed.text);
  assert.deepEqual(
    listed.body.data.map((g: { id: string }) => g.id),
    [group.id],
  );
  assert.equal((await api('GET', groupPath(channel.id, group.id))).body.data.size, 3);

  const changed = await api('PATCH', groupPath(channel.id, group.id), {
    subject: 'Order 10023 (shipped)',
    description: 'Questions about the delivery',
    announcement: true,
    ephemeral_seconds: 604800,
  });
  assert.equal(changed.status, 200, changed.text);
  assert.deepEqual(
    [changed.body.data.subject, changed.body.data.description, changed.body.data.announcement, changed.body.data.ephemeral_seconds],
    ['Order 10023 (shipped)', 'Questions about the delivery', true, 604800],
  );
  const settingsEvent = (await groupEvents(group.id, 2))[1]!;
  assert.equal(settingsEvent.change, 'group_settings_update');
  assert.equal(settingsEvent.subject, 'Order 10023 (shipped)');
  assert.deepEqual(settingsEvent.settings, { announcement: true, ephemeral_seconds: 604800 });
  assert.equal(settingsEvent.author, self);

  // Each participant answered on its own: one added, one whose privacy settings refuse being added.
  const added = await api('POST', groupPath(channel.id, group.id, '/participants'), {
    action: 'add',
    participants: ['+4915112340103', '+4915112340403'],
  });
  assert.equal(added.status, 200, added.text);
  assert.deepEqual(added.body.data[0], { phone: '+4915112340103', ok: true, error: null });
  assert.equal(added.body.data[1].ok, false);
  assert.equal(added.body.data[1].error.code, 'participant_403');
  const addEvent = (await groupEvents(group.id, 3))[2]!;
  assert.equal(addEvent.change, 'group_add_participants');
  assert.deepEqual(addEvent.added_participants, [{ wa_id: '4915112340103' }]);

  const promoted = await api('POST', groupPath(channel.id, group.id, '/participants'), {
    action: 'promote',
    participants: ['+4915112340101'],
  });
  assert.equal(promoted.status, 200, promoted.text);
  assert.equal((await groupEvents(group.id, 4))[3]!.change, 'group_promote_participants');
  const now = (await api('GET', groupPath(channel.id, group.id))).body.data;
  assert.equal(now.participants.find((p: { phone: string }) => p.phone === '+4915112340101').role, 'admin');

  const invite = await api('GET', groupPath(channel.id, group.id, '/invite'));
  assert.equal(invite.status, 200, invite.text);
  assert.equal(invite.body.data.url, `https://chat.whatsapp.com/${invite.body.data.code}`);
  const reset = await api('POST', groupPath(channel.id, group.id, '/invite/revoke'));
  assert.equal(reset.status, 200, reset.text);
  assert.notEqual(reset.body.data.code, invite.body.data.code, 'a new link');
  assert.equal((await api('GET', groupPath(channel.id, group.id, '/invite'))).body.data.code, reset.body.data.code);

  const picture = await api('PUT', groupPath(channel.id, group.id, '/picture'), { url: 'https://cdn.example.com/order-10023.jpg' });
  assert.equal(picture.status, 204, picture.text);
  const [stored] = await queryRows<{ picture_url: string | null }>(
    server.container.database.db,
    sql`select picture_url from sandbox_groups where id = ${group.id}`,
  );
  assert.equal(stored!.picture_url, 'https://cdn.example.com/order-10023.jpg', 'the gateway got the URL');
  assert.equal((await api('DELETE', groupPath(channel.id, group.id, '/picture'))).status, 204);

  const left = await api('POST', groupPath(channel.id, group.id, '/leave'));
  assert.equal(left.status, 204, left.text);
  const leaveEvent = (await groupEvents(group.id, 5))[4]!;
  assert.equal(leaveEvent.change, 'group_leave');
  assert.deepEqual(leaveEvent.removed_participants, [{ wa_id: self }]);
  const gone = await api('GET', groupPath(channel.id, group.id));
  assert.equal(gone.status, 404, gone.text);
  assert.equal(gone.body.detail, `group ${group.id} not found: the channel's number is not in it`);
  assert.deepEqual((await api('GET', groupsOf(channel.id))).body.data, []);
});

test('refusals: not an admin 403, a participant not on the network or not in the group 400 naming it, an unknown group 404, bad input 400', async () => {
  const channel = await pairedGatewayChannel(server, 'Member');
  const seeded = await api('POST', '/sandbox/groups', { channel_id: channel.id, subject: 'Neighbours', participants: ['+4915112340201'] });
  assert.equal(seeded.status, 201, seeded.text);
  const groupId = seeded.body.group_id as string;
  assert.equal((await groupEvents(groupId, 1))[0]!.change, 'group_join', 'added by someone else: the number is now in it');
  const group = (await api('GET', groupPath(channel.id, groupId))).body.data;
  assert.equal(group.role, 'member');

  const settings = await api('PATCH', groupPath(channel.id, groupId), { announcement: true });
  assert.equal(settings.status, 403, settings.text);
  assert.match(settings.body.detail, new RegExp(`not an admin of group ${groupId}: only admins may change the group settings`));
  // An unlocked group lets members change its subject.
  assert.equal((await api('PATCH', groupPath(channel.id, groupId), { subject: 'Neighbours 2' })).status, 200);
  for (const [method, rest, body] of [
    ['POST', '/participants', { action: 'add', participants: ['+4915112340202'] }],
    ['POST', '/participants', { action: 'remove', participants: ['+4915112340201'] }],
    ['GET', '/invite', undefined],
    ['POST', '/invite/revoke', undefined],
  ] as const) {
    const res = await api(method, groupPath(channel.id, groupId, rest), body);
    assert.equal(res.status, 403, `${method} ${rest}: ${res.text}`);
    assert.match(res.body.detail, /not an admin/);
  }
  const locked = (await api('POST', '/sandbox/groups', { channel_id: channel.id, subject: 'Locked', locked: true })).body.group_id;
  const subject = await api('PATCH', groupPath(channel.id, locked, ''), { subject: 'Mine now' });
  assert.equal(subject.status, 403, subject.text);

  const mine = (await api('POST', groupsOf(channel.id), { subject: 'Mine', participants: ['+4915112340203'] })).body.data;
  const notOnNetwork = await api('POST', groupPath(channel.id, mine.id, '/participants'), {
    action: 'add',
    participants: ['+4915112340204', '+4915112340002'],
  });
  assert.equal(notOnNetwork.status, 400, notOnNetwork.text);
  assert.deepEqual(notOnNetwork.body.errors, [{ pointer: '/participants/1', location: 'body', message: 'not on the chat network' }]);
  assert.match(notOnNetwork.body.detail, /\+4915112340002/);
  const notIn = await api('POST', groupPath(channel.id, mine.id, '/participants'), { action: 'remove', participants: ['+4915112349999'] });
  assert.equal(notIn.status, 400, notIn.text);
  assert.deepEqual(notIn.body.errors, [{ pointer: '/participants/0', location: 'body', message: 'not in the group' }]);
  const createBad = await api('POST', groupsOf(channel.id), { subject: 'X', participants: ['+4915112340002'] });
  assert.equal(createBad.status, 400, createBad.text);
  assert.equal(createBad.body.errors[0].pointer, '/participants/0');
  const notPhone = await api('POST', groupsOf(channel.id), { subject: 'X', participants: ['call me'] });
  assert.equal(notPhone.status, 400, notPhone.text);
  assert.equal(notPhone.body.errors[0].pointer, '/participants/0');

  const unknown = await api('GET', groupPath(channel.id, '120363000000000999@g.us'));
  assert.equal(unknown.status, 404, unknown.text);
  assert.match(unknown.body.detail, /group 120363000000000999@g\.us not found/);
  for (const [method, rest, body] of [
    ['PATCH', '', { subject: 'x' }],
    ['POST', '/participants', { action: 'add', participants: ['+4915112340205'] }],
    ['POST', '/leave', undefined],
    ['GET', '/invite', undefined],
  ] as const) {
    const res = await api(method, groupPath(channel.id, '120363000000000999@g.us', rest), body);
    assert.equal(res.status, 404, `${method} ${rest}: ${res.text}`);
  }
  const malformed = await api('GET', groupPath(channel.id, 'not-a-group'));
  assert.equal(malformed.status, 400, malformed.text);
  assert.equal(malformed.body.errors[0].pointer, '/groupID');
  const nothing = await api('PATCH', groupPath(channel.id, mine.id), {});
  assert.equal(nothing.status, 400, nothing.text);
  const ephemeral = await api('PATCH', groupPath(channel.id, mine.id), { ephemeral_seconds: 5 });
  assert.equal(ephemeral.status, 400, ephemeral.text);
  assert.equal(ephemeral.body.errors[0].pointer, '/ephemeral_seconds');
  const long = await api('POST', groupsOf(channel.id), { subject: 'x'.repeat(101), participants: ['+4915112340206'] });
  assert.equal(long.status, 400, long.text);
  const unknownChannel = await api('GET', groupsOf('0196b1f2-0a00-7000-8000-0000000000ff'));
  assert.equal(unknownChannel.status, 404, unknownChannel.text);
  const badPicture = await api('PUT', groupPath(channel.id, mine.id, '/picture'), { url: 'ftp://example.com/a.jpg' });
  assert.equal(badPicture.status, 400, badPicture.text);
});

test('joining by invite link: joined, waiting for approval, or an unknown code naming /code', async () => {
  const channel = await pairedGatewayChannel(server, 'Joiner');
  const open = await api('POST', '/sandbox/groups', { channel_id: channel.id, subject: 'Open house', member: false });
  assert.equal(open.status, 201, open.text);
  const joined = await api('POST', `${groupsOf(channel.id)}/join`, { code: `https://chat.whatsapp.com/${open.body.invite_code}` });
  assert.equal(joined.status, 200, joined.text);
  assert.equal(joined.body.data.status, 'joined');
  assert.equal(joined.body.data.group_id, open.body.group_id);
  assert.equal(joined.body.data.group.subject, 'Open house');
  assert.equal(joined.body.data.group.role, 'member');
  assert.equal((await groupEvents(open.body.group_id, 1))[0]!.change, 'group_join');

  const vetted = await api('POST', '/sandbox/groups', { channel_id: channel.id, subject: 'Vetted', member: false, join_approval: true });
  const pending = await api('POST', `${groupsOf(channel.id)}/join`, { code: vetted.body.invite_code });
  assert.equal(pending.status, 200, pending.text);
  assert.deepEqual(pending.body.data, { status: 'pending_approval', group_id: null, group: null });

  const unknown = await api('POST', `${groupsOf(channel.id)}/join`, { code: 'NoSuchCode123' });
  assert.equal(unknown.status, 400, unknown.text);
  assert.deepEqual(unknown.body.errors, [{ pointer: '/code', location: 'body', message: 'no group has this invite code' }]);
  const notACode = await api('POST', `${groupsOf(channel.id)}/join`, { code: 'https://example.com/x y' });
  assert.equal(notACode.status, 400, notACode.text);
  assert.equal(notACode.body.errors[0].pointer, '/code');
});

test('a group is one conversation keyed by its id, each message with its sender; groups are ignored unless the channel keeps them', async () => {
  const channel = await pairedGatewayChannel(server, 'Group chat');
  const groupId = (
    await api('POST', '/sandbox/groups', { channel_id: channel.id, subject: 'Team', participants: ['+4915112340301', '+4915112340302'] })
  ).body.group_id as string;
  const write = (from: string, body: string) =>
    api('POST', '/sandbox/inbound', { channel_id: channel.id, from, type: 'text', content: { body }, group: groupId });

  // Ignored: the session does not keep group messages (its default).
  const ignored = await write('+4915112340301', 'not kept');
  assert.equal(ignored.status, 202, ignored.text);
  assert.equal(ignored.body.delivered, false);

  const patched = await api('PATCH', `/v1/channels/${channel.id}`, { settings: { group_messages: true } });
  assert.equal(patched.status, 200, patched.text);
  assert.equal((await sessionOf(channel.id)).settings.group_messages, true, 'the gateway was told');

  const ids: string[] = [];
  for (const [from, body] of [
    ['+4915112340301', 'Hello team'],
    ['+4915112340302', 'Hi!'],
  ] as const) {
    const res = await write(from, body);
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.delivered, true);
    ids.push(res.body.provider_message_id);
  }
  const stored = await eventually('both group messages stored', async () => {
    const rows = await queryRows<{ conversation_id: string; from_phone: string; contact_id: string; content: Record<string, unknown> }>(
      server.container.database.db,
      sql`select conversation_id, from_phone, contact_id, content from messages where provider_message_id in (${ids[0]!}, ${ids[1]!}) order by created_at`,
    );
    return rows.length === 2 ? rows : undefined;
  });
  assert.equal(stored[0]!.conversation_id, stored[1]!.conversation_id, 'one conversation for the group');
  assert.deepEqual(
    stored.map((m) => [m.from_phone, (m.content.group as { participant: string }).participant]),
    [
      ['4915112340301', '4915112340301'],
      ['4915112340302', '4915112340302'],
    ],
  );
  assert.notEqual(stored[0]!.contact_id, stored[1]!.contact_id, 'each message names its sender as its contact');
  const conversation = (await api('GET', `/v1/conversations/${stored[0]!.conversation_id}`)).body.data;
  assert.equal(conversation.contact_id, null, 'a group has no one contact');

  // An answer to the group goes into the same conversation.
  const sent = await sendText(server, channel.id, groupId, 'Noted');
  await waitForStatus(server, sent, 'sent');
  assert.equal((await api('GET', `/v1/messages/${sent}`)).body.data.conversation_id, stored[0]!.conversation_id);
});

test('a send to a group the number is not in fails naming the group; an announcement group takes admins’ messages only', async () => {
  const channel = await pairedGatewayChannel(server, 'Group sends');
  const notIn = await sendText(server, channel.id, '120363000000000999@g.us', 'anyone there?');
  const failed = await waitForStatus(server, notIn, 'failed');
  assert.equal(failed.error.code, 'group_not_found', JSON.stringify(failed.error));
  assert.match(failed.error.title + (failed.error.message ?? ''), /120363000000000999@g\.us/);
  const [held] = await queryRows<{ n: number }>(
    server.container.database.db,
    sql`select count(*)::int as n from sandbox_messages where recipient = '120363000000000999@g.us'`,
  );
  assert.equal(held!.n, 0, 'nothing was sent');

  // A group someone else made, the session's number a plain member, then only admins may send.
  const self = (await sessionOf(channel.id)).phone as string;
  const groupId = (await api('POST', '/sandbox/groups', { channel_id: channel.id, subject: 'News', participants: ['+4915112340311'] })).body
    .group_id as string;
  await queryRows(
    server.container.database.db,
    sql`update sandbox_groups set announcement = true, participants = ${JSON.stringify([
      { phone: '4915112340311', role: 'superadmin' },
      { phone: self, role: 'member' },
    ])}::jsonb where id = ${groupId}`,
  );
  const refused = await sendText(server, channel.id, groupId, 'may I?');
  const notAdmin = await waitForStatus(server, refused, 'failed');
  assert.equal(notAdmin.error.code, 'not_admin', JSON.stringify(notAdmin.error));
});

test('presence: a subscription brings the contact’s presence as presence.updated; the settings go to the gateway and read receipts are sent', async () => {
  const channel = await pairedGatewayChannel(server, 'Presence', { always_online: true, reject_calls: true });
  const session = await sessionOf(channel.id);
  // Calls are Parley's to reject (reject_calls): the gateway is not told.
  assert.deepEqual(session.settings, {
    always_online: true,
    read_receipts: false,
    group_messages: false,
    status_messages: false,
  });

  const subscribed = await api('POST', `/v1/channels/${channel.id}/presence/subscribe`, { phone: '+49 151 1234 0401' });
  assert.equal(subscribed.status, 200, subscribed.text);
  assert.deepEqual(subscribed.body.data, { phone: '+4915112340401', subscribed: true });
  const presence = await eventually('presence.updated', async () => {
    const found = (await eventsOf(server, 'presence.updated')).map((e) => e.payload).find((p) => p.channel_id === channel.id);
    return found;
  });
  assert.deepEqual(
    { ...presence, occurred_at: 'x' },
    {
      channel_id: channel.id,
      organization_id: server.organizationId,
      phone: '4915112340401',
      lid: null,
      chat_id: null,
      presence: 'available',
      last_seen: null,
      occurred_at: 'x',
    },
  );
  const bad = await api('POST', `/v1/channels/${channel.id}/presence/subscribe`, { phone: 'nobody' });
  assert.equal(bad.status, 400, bad.text);
  assert.deepEqual(bad.body.errors, [
    { pointer: '/phone', location: 'body', message: 'not a valid phone number (write it with its country code)' },
  ]);

  // Read receipts: the gateway marks what it delivers read once the channel asks it to.
  assert.equal((await api('PATCH', `/v1/channels/${channel.id}`, { settings: { read_receipts: true } })).status, 200);
  assert.equal((await sessionOf(channel.id)).settings.read_receipts, true);
  const inbound = await api('POST', '/sandbox/inbound', {
    channel_id: channel.id,
    from: '+4915112340402',
    type: 'text',
    content: { body: 'seen?' },
  });
  const [row] = await queryRows<{ status: string }>(
    server.container.database.db,
    sql`select status from sandbox_messages where id = ${inbound.body.provider_message_id as string}`,
  );
  assert.equal(row!.status, 'read');
  const invalid = await api('PATCH', `/v1/channels/${channel.id}`, { settings: { always_online: 'yes' } });
  assert.equal(invalid.status, 400, invalid.text);
  assert.equal(invalid.body.errors[0].pointer, '/settings/always_online');
});

test('official channels have no groups (422 naming the operation); a channel without its phone is 409', async () => {
  const official = await officialChannel(server, 'Official groups');
  for (const [method, path, body] of [
    ['GET', groupsOf(official.id), undefined],
    ['POST', groupsOf(official.id), { subject: 'x', participants: ['+4915112340501'] }],
    ['GET', groupPath(official.id, '120363000000000001@g.us'), undefined],
    ['POST', `/v1/channels/${official.id}/presence/subscribe`, { phone: '+4915112340501' }],
  ] as const) {
    const res = await api(method, path, body);
    assert.equal(res.status, 422, `${method} ${path}: ${res.text}`);
    assert.match(res.body.detail, /not supported on chatapp_official channels/);
  }
  const unpaired = (await api('POST', '/v1/channels', { platform: 'chatapp_unofficial', name: 'Unpaired', sandbox: true })).body.data;
  const res = await api('GET', groupsOf(unpaired.id));
  assert.equal(res.status, 409, res.text);
  assert.match(res.body.detail, /channel is disconnected/);
});
