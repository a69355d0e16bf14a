/**
 * Contacts, profiles and calls on the embedded engine, through the same routes as the HTTP gateway's
 * (test/api/channel-profiles.test.ts, channel-calls.test.ts), on the scripted socket: the library's calls
 * are made with what it takes (jids, its privacy categories) and its answers read in the shapes it gives
 * (its status protocol's parser, its business profile, its Boom refusals, its image processing of a new
 * picture); calls come as its `call` events and its missed-call stub, and a reject names the address the
 * call rang from.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { proto, WAMessageStubType, type WAMessage } from 'baileys';
import { eventually } from '../eventually.ts';
import { request } from '../harness.ts';
import { eventsOf } from '../messages-helpers.ts';
import { pairedChannel, startEmbeddedServer } from './helpers.ts';
import { derivedLid, type ScriptedSocket } from './scripted-socket.ts';

const BUSINESS = '4915155550001';
const HIDDEN = '4915155550002';
const PLAIN = '4915155550003';
const ABSENT = '4915155550009';
const CALLER = '4915155550004';
const CALLER_LID = '188877766655544';

describe('embedded engine: profiles, blocking, privacy, privacy ids and calls', () => {
  let ctx: Awaited<ReturnType<typeof startEmbeddedServer>>;
  let channel: { id: string; socket: ScriptedSocket };
  const api = (method: string, path: string, body?: unknown) =>
    request(ctx.server, method, `/v1/channels/${channel.id}${path}`, { key: ctx.server.apiKey, ...(body === undefined ? {} : { body }) });
  const calls = (method: string) => channel.socket.calls.filter((c) => c.method === method).map((c) => c.args);

  before(async () => {
    ctx = await startEmbeddedServer({
      notOnNetwork: new Set([ABSENT]),
      lidPhones: new Map([[`${CALLER_LID}@lid`, `${CALLER}@s.whatsapp.net`]]),
      profiles: new Map([
        [
          BUSINESS,
          {
            about: 'Fresh bread daily',
            aboutSetAt: new Date('2025-05-01T08:00:00Z'),
            picture: 'https://pps.whatsapp.net/v/t61.24694-24/bakery.jpg?oe=ABC',
            // As the library builds it from the service's node: hours' attrs are strings.
            business: {
              wid: `${BUSINESS}@s.whatsapp.net`,
              description: 'Bakery in Kreuzberg',
              email: 'hello@example.com',
              website: ['https://example.com'],
              category: 'Bakery',
              address: 'Oranienstraße 1',
              business_hours: {
                timezone: 'Europe/Berlin',
                business_config: [{ day_of_week: 'mon', mode: 'specific_hours', open_time: '480' as never, close_time: '1080' as never }],
              },
            },
          },
        ],
        // Its About text and picture are for its contacts: the service answers 401 for both (the status node's code).
        [HIDDEN, { picture: 'hidden' }],
      ]),
      env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' },
    });
    channel = await pairedChannel(ctx, '4915100000701');
  });
  after(() => ctx.server.close());

  describe("a number's profile", () => {
    test("a business: About text and its time (the library's status parser), picture, business profile, privacy id, push name seen", async () => {
      channel.socket.emit('messages.upsert', {
        type: 'notify',
        messages: [
          proto.WebMessageInfo.fromObject({
            key: { remoteJid: `${BUSINESS}@s.whatsapp.net`, fromMe: false, id: '3A1111111111111111' },
            message: { conversation: 'hello' },
            messageTimestamp: Math.floor(Date.now() / 1000),
            pushName: 'Kiez Bakery',
          }) as WAMessage,
        ],
      });
      const profile = await eventually('the push name seen', async () => {
        const res = await api('GET', `/profiles/${BUSINESS}`);
        assert.equal(res.status, 200, res.text);
        return res.body.data.name ? res.body.data : undefined;
      });
      assert.deepEqual(profile, {
        phone: `+${BUSINESS}`,
        lid: derivedLid(BUSINESS),
        name: 'Kiez Bakery',
        about: 'Fresh bread daily',
        about_set_at: '2025-05-01T08:00:00.000Z',
        picture_url: 'https://pps.whatsapp.net/v/t61.24694-24/bakery.jpg?oe=ABC',
        business: {
          description: 'Bakery in Kreuzberg',
          category: 'Bakery',
          email: 'hello@example.com',
          website: ['https://example.com'],
          address: 'Oranienstraße 1',
          hours: { timezone: 'Europe/Berlin', days: [{ day: 'mon', mode: 'specific_hours', open_minute: 480, close_minute: 1080 }] },
        },
      });
      assert.deepEqual(calls('profilePictureUrl').at(-1), [`${BUSINESS}@s.whatsapp.net`, 'image']);
      assert.deepEqual(calls('fetchStatus').at(-1), [`${BUSINESS}@s.whatsapp.net`]);
    });

    test("what a number hides (the library's 401s) is null; a number without an account is 404 naming it", async () => {
      const hidden = (await api('GET', `/profiles/${HIDDEN}`)).body.data;
      assert.deepEqual([hidden.about, hidden.picture_url, hidden.business, hidden.name], [null, null, null, null]);
      const plain = (await api('GET', `/profiles/${PLAIN}`)).body.data;
      assert.deepEqual([plain.about, plain.picture_url], [null, null]);
      const absent = await api('GET', `/profiles/${ABSENT}`);
      assert.equal(absent.status, 404, absent.text);
      assert.deepEqual(absent.body.errors[0].pointer, '/phone');
    });
  });

  test("the own profile: name and About text changed with the library's calls, a picture through its image processing, removed", async () => {
    const first = (await api('GET', '/profile')).body.data;
    assert.deepEqual(first, {
      phone: '+4915100000701',
      lid: null,
      name: 'Shop',
      about: 'Hey there! I am using WhatsApp.',
      picture_url: null,
    });
    const changed = await api('PATCH', '/profile', { name: 'Kiez Shop', about: 'Open 9 to 6' });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.data.name, 'Kiez Shop');
    assert.equal(changed.body.data.about, 'Open 9 to 6');
    assert.deepEqual(calls('updateProfileName').at(-1), ['Kiez Shop']);
    assert.deepEqual(calls('updateProfileStatus').at(-1), ['Open 9 to 6']);
    // The library's creds hold the new name (its app-state change came back).
    assert.equal(channel.socket.auth.creds.me?.name, 'Kiez Shop');

    const picture = await api('PUT', '/profile/picture', { url: `${ctx.server.baseUrl}/sandbox/gateway/pictures/logo.png` });
    assert.equal(picture.status, 200, picture.text);
    assert.match(picture.body.data.picture_url, /^https:\/\/pps\.whatsapp\.net\//);
    assert.deepEqual(calls('updateProfilePicture').at(-1), ['4915100000701:7@s.whatsapp.net']);
    // What the library sends: its image library made a JPEG of the PNG.
    assert.deepEqual([...channel.socket.account.picture!.subarray(0, 3)], [0xff, 0xd8, 0xff]);
    const removed = await api('DELETE', '/profile/picture');
    assert.equal(removed.body.data.picture_url, null);
    assert.deepEqual(calls('removeProfilePicture').at(-1), ['4915100000701:7@s.whatsapp.net']);
  });

  test('blocking: by the phone jid (the library resolves its privacy id); the list the service gives (privacy ids) with the numbers the store maps', async () => {
    const blocked = await api('POST', '/blocklist', { phone: `+${CALLER}` });
    assert.equal(blocked.status, 200, blocked.text);
    assert.deepEqual(blocked.body.data, { phone: `+${CALLER}`, lid: CALLER_LID });
    assert.deepEqual(calls('updateBlockStatus').at(-1), [`${CALLER}@s.whatsapp.net`, 'block']);
    await api('POST', '/blocklist', { phone: PLAIN });
    const list = (await api('GET', '/blocklist')).body.data;
    // The store maps the caller's privacy id to the number; the other's it does not know.
    assert.deepEqual(list, [
      { phone: `+${CALLER}`, lid: CALLER_LID },
      { phone: null, lid: derivedLid(PLAIN) },
    ]);
    const unblocked = await api('DELETE', `/blocklist/${PLAIN}`);
    assert.equal(unblocked.status, 200, unblocked.text);
    assert.deepEqual(calls('updateBlockStatus').at(-1), [`${PLAIN}@s.whatsapp.net`, 'unblock']);
    assert.equal((await api('POST', '/blocklist', { phone: ABSENT })).status, 404);
    await api('DELETE', `/blocklist/${CALLER}`);
  });

  test("privacy settings: the library's categories read by Parley's names; each change its own update call", async () => {
    const settings = (await api('GET', '/privacy')).body.data;
    assert.equal(settings.about, 'contacts');
    assert.equal(settings.read_receipts, 'all');
    const changed = await api('PATCH', '/privacy', { last_seen: 'none', about: 'all', groups_add: 'contacts', messages: 'contacts' });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(
      [changed.body.data.last_seen, changed.body.data.about, changed.body.data.groups_add, changed.body.data.messages],
      ['none', 'all', 'contacts', 'contacts'],
    );
    assert.deepEqual(calls('updateLastSeenPrivacy').at(-1), ['none']);
    assert.deepEqual(calls('updateStatusPrivacy').at(-1), ['all']);
    assert.deepEqual(calls('updateGroupsAddPrivacy').at(-1), ['contacts']);
    assert.deepEqual(calls('updateMessagesPrivacy').at(-1), ['contacts']);
    assert.equal(channel.socket.account.privacy.last, 'none');
  });

  test("privacy ids: a number's from the library (its store or the service), a privacy id's number from the store only", async () => {
    assert.deepEqual((await api('POST', '/lids/lookup', { phone: PLAIN })).body.data, { phone: `+${PLAIN}`, lid: derivedLid(PLAIN) });
    assert.deepEqual((await api('POST', '/lids/lookup', { lid: CALLER_LID })).body.data, { phone: `+${CALLER}`, lid: CALLER_LID });
    const unknown = await api('POST', '/lids/lookup', { lid: '177700000000001' });
    assert.equal(unknown.status, 404, unknown.text);
    assert.equal(unknown.body.errors[0].pointer, '/lid');
  });

  describe('calls', () => {
    const callRecord = (callId: string, status: string) =>
      eventually(`call ${callId} ${status}`, async () => {
        const list = (
          await request(ctx.server, 'GET', `/v1/messages?channel_id=${channel.id}&direction=inbound`, { key: ctx.server.apiKey })
        ).body.data as Array<Record<string, any>>;
        const found = list.filter((m) => m.type === 'call' && m.content.call_id === callId);
        assert.ok(found.length <= 1, 'one record per call');
        return found[0]?.content.status === status ? found[0] : undefined;
      });

    test('a call from a privacy id rings: its record names the phone the store maps; a reject names the address it rang from', async () => {
      channel.socket.callEvent({ id: 'CALLA1', from: `${CALLER_LID}@lid`, status: 'offer' });
      const ringing = await callRecord('CALLA1', 'ringing');
      assert.equal(ringing.from_phone, CALLER);
      assert.equal(ringing.content.from_lid, CALLER_LID);
      const res = await api('POST', '/calls/CALLA1/reject', { message: 'Please write instead.' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(calls('rejectCall').at(-1), ['CALLA1', `${CALLER_LID}@lid`]);
      assert.equal(res.body.data.call.content.status, 'rejected');
      assert.equal(res.body.data.message.to, CALLER);
      // The library then reports the call's end: it changes nothing.
      channel.socket.callEvent({ id: 'CALLA1', from: `${CALLER_LID}@lid`, status: 'terminate' });
      channel.socket.callEvent({ id: 'CALLA2', from: `${CALLER}@s.whatsapp.net`, status: 'offer', video: true });
      await callRecord('CALLA2', 'ringing');
      assert.equal((await callRecord('CALLA1', 'rejected')).content.rejected_by, 'parley');
    });

    test("a call that rings out: the library's timeout event and its missed-call stub make one missed call", async () => {
      const offer = channel.socket.callEvent({ id: 'CALLB1', from: `${CALLER}@s.whatsapp.net`, status: 'offer' });
      await callRecord('CALLB1', 'ringing');
      channel.socket.callEvent({ id: 'CALLB1', from: `${CALLER}@s.whatsapp.net`, status: 'timeout' });
      // What the library upserts on a timeout (messages-recv.js): the stub under the call's id.
      channel.socket.emit('messages.upsert', {
        type: 'notify',
        messages: [
          proto.WebMessageInfo.fromObject({
            key: { remoteJid: offer.chatId, id: offer.id, fromMe: false },
            messageTimestamp: Math.floor(offer.date.getTime() / 1000),
            messageStubType: WAMessageStubType.CALL_MISSED_VOICE,
          }) as WAMessage,
        ],
      });
      const missed = await callRecord('CALLB1', 'missed');
      const events = (await eventsOf(ctx.server, 'call.missed')).filter((e) => e.payload.call_id === 'CALLB1');
      assert.equal(events.length, 1);
      assert.equal(events[0]!.payload.message_id, missed.id);
      // Only the stub (the session was away while it rang): the missed call still shows.
      channel.socket.emit('messages.upsert', {
        type: 'notify',
        messages: [
          proto.WebMessageInfo.fromObject({
            key: { remoteJid: `${CALLER}@s.whatsapp.net`, id: 'CALLB2', fromMe: false },
            messageTimestamp: Math.floor(Date.now() / 1000),
            messageStubType: WAMessageStubType.CALL_MISSED_VIDEO,
          }) as WAMessage,
        ],
      });
      assert.equal((await callRecord('CALLB2', 'missed')).content.video, true);
    });

    test('with reject_calls on, the engine rejects a call as it rings and sends the setting’s message', async () => {
      const set = await request(ctx.server, 'PATCH', `/v1/channels/${channel.id}`, {
        key: ctx.server.apiKey,
        body: { settings: { reject_calls: true, reject_calls_message: 'No calls, sorry.' } },
      });
      assert.equal(set.status, 200, set.text);
      channel.socket.callEvent({ id: 'CALLC1', from: `${CALLER}@s.whatsapp.net`, callerPn: `${CALLER}@s.whatsapp.net`, status: 'offer' });
      const rejected = await callRecord('CALLC1', 'rejected');
      assert.equal(rejected.content.rejected_by, 'parley');
      assert.deepEqual(calls('rejectCall').at(-1), ['CALLC1', `${CALLER}@s.whatsapp.net`]);
      await eventually('the message to the caller sent', () => {
        const sent = calls('sendMessage').find(
          ([jid, content]) => jid === `${CALLER}@s.whatsapp.net` && (content as { text?: string }).text === 'No calls, sorry.',
        );
        return sent;
      });
    });
  });
});
