/**
 * Groups, presence and the channel settings on the embedded engine, driven through the API against a
 * scripted socket that plays the service with the library's own shapes (GroupMetadata, the events its
 * group notices become, presence.update, call offers): the library's group calls made, the session's
 * group cache serving lists, the refusals named before the service is asked (not in the group, not an
 * admin, a participant not on the network), group and presence events as group.updated and
 * presence.updated, a group as one conversation, and always online, read receipts and the kept chats
 * honoured as the settings change, without a reconnect.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { proto, type GroupMetadata, type WAMessage } from 'baileys';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { eventually } from '../eventually.ts';
import { request } from '../harness.ts';
import { jpegBytes } from '../media-helpers.ts';
import { eventsOf } from '../messages-helpers.ts';
import { startEmbeddedServer, waitForStatus } from './helpers.ts';
import type { ScriptedSocket } from './scripted-socket.ts';

const MEMBER = '4915144440001';
const MEMBER_LID = '80221344440001';
const OWNER = '4915144440009';
/** A group someone else made, the account a member of it, its members named by privacy id (as the service does in such groups). */
const THEIRS = '120363044440000001@g.us';
const theirs = (self: string): GroupMetadata => ({
  id: THEIRS,
  subject: 'Neighbours',
  owner: `${OWNER}@s.whatsapp.net`,
  addressingMode: 'lid' as GroupMetadata['addressingMode'],
  creation: 1_717_000_000,
  participants: [
    { id: `${OWNER}@s.whatsapp.net`, admin: 'superadmin' },
    { id: `${self}@s.whatsapp.net`, admin: null },
    { id: `${MEMBER_LID}@lid`, admin: null },
  ],
});

describe('embedded engine: groups, presence and settings', () => {
  let ctx: Awaited<ReturnType<typeof startEmbeddedServer>>;
  let images: Server;
  let imageBase: string;
  const logo = jpegBytes();
  before(async () => {
    ctx = await startEmbeddedServer({
      lidPhones: new Map([[`${MEMBER_LID}@lid`, `${MEMBER}@s.whatsapp.net`]]),
      notOnNetwork: new Set(['4915144440002']),
      privateAdds: new Set(['4915144440403']),
      invites: new Map(),
      groups: new Map(),
    });
    images = createServer((req, res) => {
      if (req.url === '/logo.jpg') res.writeHead(200, { 'content-type': 'image/jpeg' }).end(logo);
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('not a picture');
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
  });
  after(async () => {
    images.close();
    await ctx.server.close();
  });

  const api = (method: string, path: string, body?: unknown) => request(ctx.server, method, path, { key: ctx.server.apiKey, body });
  const callsOf = (socket: ScriptedSocket, method: string) => socket.calls.filter((c) => c.method === method).map((c) => c.args);

  /** A paired channel on the embedded engine with these settings; its socket. */
  async function paired(phone: string, settings: Record<string, unknown> = {}) {
    const created = await api('POST', '/v1/channels', { platform: 'chatapp_unofficial', name: `Phone ${phone}`, settings });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id as string;
    assert.equal((await api('POST', `/v1/channels/${id}/connect`)).status, 200);
    await ctx.scripted.latest(id)!.scan(phone, 'Shop');
    await waitForStatus(ctx.server, id, 'connected');
    return { id, socket: ctx.scripted.latest(id)! };
  }

  async function groupEvents(channelId: string, count: number) {
    return eventually(`${count} group.updated events`, async () => {
      const found = (await eventsOf(ctx.server, 'group.updated')).map((e) => e.payload).filter((p) => p.channel_id === channelId);
      return found.length >= count ? found : undefined;
    });
  }

  test("the library's group calls: listed (then from the cache), made, changed, members managed, link read and reset, picture set, left", async () => {
    const channel = await paired('4915144440100');
    const { socket } = channel;
    ctx.scripted.options.groups!.set(THEIRS, theirs('4915144440100'));

    const listed = await api('GET', `/v1/channels/${channel.id}/groups`);
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(
      listed.body.data.map((g: { id: string }) => g.id),
      [THEIRS],
    );
    const neighbours = listed.body.data[0];
    assert.equal(neighbours.role, 'member');
    assert.equal(neighbours.owner, `+${OWNER}`);
    assert.equal(neighbours.created_at, new Date(1_717_000_000_000).toISOString());
    assert.deepEqual(
      neighbours.participants.at(-1),
      { phone: `+${MEMBER}`, lid: MEMBER_LID, role: 'member' },
      'a privacy id with the phone the store maps it to',
    );
    assert.equal((await api('GET', `/v1/channels/${channel.id}/groups`)).status, 200);
    assert.equal(callsOf(socket, 'groupFetchAllParticipating').length, 1, 'the second list came from the session’s cache');
    assert.equal(callsOf(socket, 'groupMetadata').length, 0, 'the listing’s own groups.update refreshed nothing');

    const made = await api('POST', `/v1/channels/${channel.id}/groups`, {
      subject: 'Order 10023',
      participants: ['+4915144440101'],
      description: 'Delivery questions',
    });
    assert.equal(made.status, 201, made.text);
    const group = made.body.data;
    assert.deepEqual(callsOf(socket, 'groupCreate'), [['Order 10023', ['4915144440101@s.whatsapp.net']]]);
    assert.deepEqual(callsOf(socket, 'groupUpdateDescription'), [[group.id, 'Delivery questions']]);
    assert.equal(group.description, 'Delivery questions');
    assert.equal(group.role, 'superadmin');
    const [joined] = await groupEvents(channel.id, 1);
    assert.deepEqual([joined!.group_id, joined!.change, joined!.subject], [group.id, 'group_join', 'Order 10023']);

    const changed = await api('PATCH', `/v1/channels/${channel.id}/groups/${group.id}`, {
      subject: 'Order 10023 (shipped)',
      announcement: true,
      locked: true,
      members_can_add: true,
      join_approval: true,
      ephemeral_seconds: 86400,
    });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(callsOf(socket, 'groupUpdateSubject'), [[group.id, 'Order 10023 (shipped)']]);
    assert.deepEqual(callsOf(socket, 'groupSettingUpdate'), [
      [group.id, 'announcement'],
      [group.id, 'locked'],
    ]);
    assert.deepEqual(callsOf(socket, 'groupMemberAddMode'), [[group.id, 'all_member_add']]);
    assert.deepEqual(callsOf(socket, 'groupJoinApprovalMode'), [[group.id, 'on']]);
    assert.deepEqual(callsOf(socket, 'groupToggleEphemeral'), [[group.id, 86400]]);
    assert.deepEqual(
      [
        changed.body.data.subject,
        changed.body.data.announcement,
        changed.body.data.locked,
        changed.body.data.members_can_add,
        changed.body.data.ephemeral_seconds,
      ],
      ['Order 10023 (shipped)', true, true, true, 86400],
    );
    // The service's notices of the changes (groups.update with what changed): group_settings_update each, by the number itself.
    const notices = (await groupEvents(channel.id, 7)).slice(1);
    assert.deepEqual(
      notices.slice(0, 2).map((n) => [n.change, n.description ?? n.subject, n.author]),
      [
        ['group_settings_update', 'Delivery questions', '4915144440100'],
        ['group_settings_update', 'Order 10023 (shipped)', '4915144440100'],
      ],
    );
    assert.deepEqual(
      notices.slice(2).map((n) => n.settings),
      [{ announcement: true }, { locked: true }, { members_can_add: true }, { join_approval: true }],
    );

    const added = await api('POST', `/v1/channels/${channel.id}/groups/${group.id}/participants`, {
      action: 'add',
      participants: ['+4915144440102', '+4915144440403'],
    });
    assert.equal(added.status, 200, added.text);
    assert.deepEqual(added.body.data[0], { phone: '+4915144440102', ok: true, error: null });
    assert.deepEqual(added.body.data[1].error.code, 'participant_403');
    const addEvent = (await groupEvents(channel.id, 8))[7]!;
    assert.equal(addEvent.change, 'group_add_participants');
    assert.deepEqual(addEvent.added_participants, [{ wa_id: '4915144440102' }]);
    const notOnNetwork = await api('POST', `/v1/channels/${channel.id}/groups/${group.id}/participants`, {
      action: 'add',
      participants: ['+4915144440002'],
    });
    assert.equal(notOnNetwork.status, 400, notOnNetwork.text);
    assert.deepEqual(notOnNetwork.body.errors, [{ pointer: '/participants/0', location: 'body', message: 'not on the chat network' }]);
    const notIn = await api('POST', `/v1/channels/${channel.id}/groups/${group.id}/participants`, {
      action: 'demote',
      participants: ['+4915144449999'],
    });
    assert.equal(notIn.status, 400, notIn.text);
    assert.equal(notIn.body.errors[0].message, 'not in the group');
    const before = callsOf(socket, 'groupParticipantsUpdate').length;
    const promoted = await api('POST', `/v1/channels/${channel.id}/groups/${group.id}/participants`, {
      action: 'promote',
      participants: ['+4915144440101'],
    });
    assert.equal(promoted.status, 200, promoted.text);
    assert.deepEqual(callsOf(socket, 'groupParticipantsUpdate').slice(before), [[group.id, ['4915144440101@s.whatsapp.net'], 'promote']]);
    assert.equal((await groupEvents(channel.id, 9))[8]!.change, 'group_promote_participants');

    const invite = await api('GET', `/v1/channels/${channel.id}/groups/${group.id}/invite`);
    assert.equal(invite.status, 200, invite.text);
    const reset = await api('POST', `/v1/channels/${channel.id}/groups/${group.id}/invite/revoke`);
    assert.notEqual(reset.body.data.code, invite.body.data.code);
    assert.equal(reset.body.data.url, `https://chat.whatsapp.com/${reset.body.data.code}`);

    const picture = await api('PUT', `/v1/channels/${channel.id}/groups/${group.id}/picture`, { url: `${imageBase}/logo.jpg` });
    assert.equal(picture.status, 204, picture.text);
    const [[pictureJid, bytes]] = callsOf(socket, 'updateProfilePicture') as [[string, Buffer]];
    assert.equal(pictureJid, group.id);
    assert.ok(Buffer.isBuffer(bytes) && bytes.equals(logo), 'the fetched bytes, handed to the library');
    const notImage = await api('PUT', `/v1/channels/${channel.id}/groups/${group.id}/picture`, { url: `${imageBase}/notes.txt` });
    assert.equal(notImage.status, 400, notImage.text);
    assert.equal(notImage.body.errors[0].pointer, '/url');
    assert.equal((await api('DELETE', `/v1/channels/${channel.id}/groups/${group.id}/picture`)).status, 204);
    assert.deepEqual(callsOf(socket, 'removeProfilePicture'), [[group.id]]);

    assert.equal((await api('POST', `/v1/channels/${channel.id}/groups/${group.id}/leave`)).status, 204);
    assert.deepEqual(callsOf(socket, 'groupLeave'), [[group.id]]);
    const left = (await groupEvents(channel.id, 10))[9]!;
    assert.equal(left.change, 'group_leave');
    const gone = await api('GET', `/v1/channels/${channel.id}/groups/${group.id}`);
    assert.equal(gone.status, 404, gone.text);
    assert.match(gone.body.detail, new RegExp(`group ${group.id} not found`));
    assert.deepEqual(
      (await api('GET', `/v1/channels/${channel.id}/groups`)).body.data.map((g: { id: string }) => g.id),
      [THEIRS],
      'the listing no longer has the group left',
    );
  });

  test('refused before the service is asked: not an admin (403), a group the number is not in (404); joining by invite code', async () => {
    const channel = await paired('4915144440200');
    const { socket } = channel;
    ctx.scripted.options.groups!.set(THEIRS, theirs('4915144440200'));
    const settings = await api('PATCH', `/v1/channels/${channel.id}/groups/${THEIRS}`, { announcement: true });
    assert.equal(settings.status, 403, settings.text);
    assert.equal(settings.body.detail, `the channel's number is not an admin of group ${THEIRS}: only admins may change who may send`);
    assert.deepEqual(callsOf(socket, 'groupSettingUpdate'), [], 'the service was not asked');
    const remove = await api('POST', `/v1/channels/${channel.id}/groups/${THEIRS}/participants`, {
      action: 'remove',
      participants: [`+${MEMBER}`],
    });
    assert.equal(remove.status, 403, remove.text);
    assert.equal((await api('GET', `/v1/channels/${channel.id}/groups/${THEIRS}/invite`)).status, 403);
    // An unlocked group lets members change its subject.
    const subject = await api('PATCH', `/v1/channels/${channel.id}/groups/${THEIRS}`, { subject: 'Ours' });
    assert.equal(subject.status, 200, subject.text);
    assert.equal(subject.body.data.subject, 'Ours');

    const unknown = await api('GET', `/v1/channels/${channel.id}/groups/120363099999999999@g.us`);
    assert.equal(unknown.status, 404, unknown.text);
    assert.equal(unknown.body.detail, "group 120363099999999999@g.us not found: the channel's number is not in it");

    const open: GroupMetadata = {
      id: '120363044440000002@g.us',
      subject: 'Open house',
      owner: `${OWNER}@s.whatsapp.net`,
      participants: [{ id: `${OWNER}@s.whatsapp.net`, admin: 'superadmin' }],
    };
    ctx.scripted.options.invites!.set('OpenHouseCode01', open);
    const joined = await api('POST', `/v1/channels/${channel.id}/groups/join`, { code: 'https://chat.whatsapp.com/OpenHouseCode01' });
    assert.equal(joined.status, 200, joined.text);
    assert.deepEqual(callsOf(socket, 'groupAcceptInvite'), [['OpenHouseCode01']]);
    assert.equal(joined.body.data.status, 'joined');
    assert.equal(joined.body.data.group.subject, 'Open house');
    const bad = await api('POST', `/v1/channels/${channel.id}/groups/join`, { code: 'NoSuchCode0001' });
    assert.equal(bad.status, 400, bad.text);
    assert.deepEqual(bad.body.errors, [{ pointer: '/code', location: 'body', message: 'no group has this invite code' }]);
  });

  test('group and status messages: one conversation per chat, each message with its sender, kept as the settings change without a reconnect', async () => {
    const channel = await paired('4915144440300');
    const { socket } = channel;
    const GROUP = '120363044440000003@g.us';
    const arrive = (remoteJid: string, participant: string, id: string, text: string) =>
      socket.emit('messages.upsert', {
        type: 'notify',
        messages: [
          proto.WebMessageInfo.fromObject({
            key: { remoteJid, participant: `${participant}@s.whatsapp.net`, fromMe: false, id },
            message: { conversation: text },
            messageTimestamp: Math.floor(Date.now() / 1000),
            pushName: 'Member',
          }) as WAMessage,
        ],
      });
    const stored = (ids: string[]) =>
      queryRows<{ provider_message_id: string; conversation_id: string; from_phone: string; content: Record<string, unknown> }>(
        ctx.server.container.database.db,
        sql`select provider_message_id, conversation_id, from_phone, content from messages
              where channel_id = ${channel.id} and provider_message_id in (${sql.join(
                ids.map((i) => sql`${i}`),
                sql`, `,
              )}) order by created_at`,
      );

    arrive(GROUP, '4915144440301', '3A00000000000000A001', 'not kept yet');
    // Events are handled in order: once a later one-to-one message is stored, the group message was seen (and dropped).
    socket.receiveText('4915144440304', 'in between', '3A00000000000000A000');
    await eventually('the one-to-one message stored', async () =>
      (await stored(['3A00000000000000A000'])).length === 1 ? true : undefined,
    );
    // The holder has read the change when the PATCH answers: from then on group messages and status posts are kept.
    assert.equal(
      (await api('PATCH', `/v1/channels/${channel.id}`, { settings: { group_messages: true, status_messages: true } })).status,
      200,
    );
    arrive(GROUP, '4915144440301', '3A00000000000000A002', 'Hello group');
    arrive(GROUP, '4915144440302', '3A00000000000000A003', 'Hi');
    arrive('status@broadcast', '4915144440303', '3A00000000000000A004', 'My story');
    const rows = await eventually('the messages stored', async () => {
      const found = await stored(['3A00000000000000A002', '3A00000000000000A003', '3A00000000000000A004']);
      return found.length === 3 ? found : undefined;
    });
    assert.equal((await stored(['3A00000000000000A001'])).length, 0, 'ignored while the channel did not keep group messages');
    const [first, second, story] = rows;
    assert.equal(first!.conversation_id, second!.conversation_id, 'one conversation for the group');
    assert.deepEqual(first!.content, { body: 'Hello group', group: { id: GROUP, participant: '4915144440301' } });
    assert.equal(second!.from_phone, '4915144440302');
    const [conversation] = await queryRows<{ peer_phone: string; contact_id: string | null }>(
      ctx.server.container.database.db,
      sql`select peer_phone, contact_id from conversations where id = ${first!.conversation_id}`,
    );
    assert.deepEqual(conversation, { peer_phone: GROUP, contact_id: null });
    const [stories] = await queryRows<{ peer_phone: string }>(
      ctx.server.container.database.db,
      sql`select peer_phone from conversations where id = ${story!.conversation_id}`,
    );
    assert.equal(stories!.peer_phone, 'status@broadcast');
    assert.deepEqual(story!.content, { body: 'My story', status_post: true });
  });

  test('always online and read receipts, changed without a reconnect; presence subscribed and reported', async () => {
    const channel = await paired('4915144440400', { always_online: true });
    const { socket } = channel;
    assert.equal(socket.input.markOnlineOnConnect, true, 'the library shows the account online as it connects');
    assert.deepEqual(callsOf(socket, 'sendPresenceUpdate').at(-1), ['available', undefined]);

    assert.equal(
      (await api('PATCH', `/v1/channels/${channel.id}`, { settings: { always_online: false, read_receipts: true } })).status,
      200,
    );
    await eventually('shown offline', async () => (callsOf(socket, 'sendPresenceUpdate').at(-1)?.[0] === 'unavailable' ? true : undefined));
    const message = socket.receiveText('4915144440402', 'Are you there?', '3A00000000000000B001');
    await eventually('read receipt sent', async () =>
      callsOf(socket, 'readMessages').some((c) => (c[0] as Array<{ id: string }>)[0]?.id === '3A00000000000000B001') ? true : undefined,
    );
    assert.deepEqual(callsOf(socket, 'readMessages').at(-1), [[message.key]]);
    const subscribed = await api('POST', `/v1/channels/${channel.id}/presence/subscribe`, { phone: `+${MEMBER}` });
    assert.equal(subscribed.status, 200, subscribed.text);
    assert.deepEqual(callsOf(socket, 'presenceSubscribe'), [[`${MEMBER}@s.whatsapp.net`]]);
    socket.emit('presence.update', { id: `${MEMBER_LID}@lid`, presences: { [`${MEMBER_LID}@lid`]: { lastKnownPresence: 'composing' } } });
    socket.emit('presence.update', {
      id: `${MEMBER}@s.whatsapp.net`,
      presences: { [`${MEMBER}@s.whatsapp.net`]: { lastKnownPresence: 'unavailable', lastSeen: 1_717_000_000 } },
    });
    const presences = await eventually('presence.updated twice', async () => {
      const found = (await eventsOf(ctx.server, 'presence.updated')).map((e) => e.payload).filter((p) => p.channel_id === channel.id);
      return found.length >= 2 ? found : undefined;
    });
    assert.deepEqual(
      presences.map((p) => [p.phone, p.lid, p.presence, p.last_seen]),
      [
        [MEMBER, MEMBER_LID, 'composing', null],
        [MEMBER, null, 'unavailable', new Date(1_717_000_000_000).toISOString()],
      ],
    );
  });
});
