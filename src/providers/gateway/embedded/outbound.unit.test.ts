import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import {
  generateWAMessage,
  proto,
  type AnyMessageContent,
  type MiscMessageGenerationOptions,
  type WAMessage,
  type WAMessageKey,
  type WAPresence,
} from 'baileys';
import { uuidv7 } from '../../../lib/ids.ts';
import type { OutboundMessage } from '../../provider.ts';
import { gatewayProvider } from '../module.ts';
import { libraryMessageId, parleyMessageIdOf, pollSecret } from './ids.ts';
import { sendThroughSocket, type OutboundContext } from './outbound.ts';
import { formatSimplified } from './simplified.ts';
import type { MessageSocket } from './socket.ts';
import { FULL_CONTACT_CARD } from '../../../../test/contact-card-fixture.ts';

const TO = '4915112345678';
const JID = `${TO}@s.whatsapp.net`;

type Call =
  | { call: 'sendMessage'; jid: string; content: AnyMessageContent; options?: MiscMessageGenerationOptions }
  | { call: 'readMessages'; keys: WAMessageKey[] }
  | { call: 'sendPresenceUpdate'; type: WAPresence; jid?: string }
  | { call: 'onWhatsApp'; numbers: string[] };

/** A scripted socket: records every call; answers as the service would (or as the test says). */
function recordingSocket(
  script: { onWhatsApp?: (n: string) => Array<{ jid: string; exists: boolean }>; sendMessage?: () => Promise<WAMessage | undefined> } = {},
) {
  const calls: Call[] = [];
  // The calls sending uses; the profile calls are not sending's (test/embedded/profiles.test.ts).
  const socket = {
    ev: { on: () => undefined, off: () => undefined },
    user: { id: '4930111111:3@s.whatsapp.net', name: 'Shop' },
    async sendMessage(jid, content, options) {
      calls.push({ call: 'sendMessage', jid, content, options });
      if (script.sendMessage) return script.sendMessage();
      return proto.WebMessageInfo.fromObject({
        key: { remoteJid: jid, fromMe: true, id: options?.messageId ?? 'X' },
        messageTimestamp: 1,
      }) as WAMessage;
    },
    async readMessages(keys) {
      calls.push({ call: 'readMessages', keys });
    },
    async sendPresenceUpdate(type, jid) {
      calls.push({ call: 'sendPresenceUpdate', type, jid });
    },
    async onWhatsApp(...numbers) {
      calls.push({ call: 'onWhatsApp', numbers });
      // As the library: the digits asked, the account's address answered.
      return numbers.flatMap((n) => (script.onWhatsApp ? script.onWhatsApp(n) : [{ jid: `${n}@s.whatsapp.net`, exists: true }]));
    },
    async requestPairingCode() {
      return 'ABCD1234';
    },
    async logout() {},
    end() {},
  } satisfies MessageSocket;
  return { socket, calls, sends: () => calls.filter((c): c is Extract<Call, { call: 'sendMessage' }> => c.call === 'sendMessage') };
}

/** The first page of an OGG stream of Opus audio with this many channels (RFC 7845: the OpusHead packet). */
function oggOpus(channels: number): Buffer {
  const head = Buffer.concat([Buffer.from('OpusHead'), Buffer.from([1, channels, 0x38, 0x01, 0x80, 0xbb, 0, 0, 0, 0, 0])]);
  const page = Buffer.alloc(27);
  page.write('OggS', 0, 'latin1');
  page[5] = 2; // beginning of stream
  page[26] = 1; // one segment
  return Buffer.concat([page, Buffer.from([head.length]), head, Buffer.alloc(64)]);
}

// A loopback server standing in for the web: the media and thumbnails messages name.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const WEBP_STATIC = Buffer.concat([Buffer.from('RIFF\0\0\0\0WEBPVP8 '), Buffer.alloc(64)]);
let server: Server;
let base = '';
const fetched: string[] = [];
before(async () => {
  server = createServer((req, res) => {
    fetched.push(req.url!);
    const url = new URL(req.url!, 'http://x');
    if (url.pathname === '/image.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    if (url.pathname === '/thumb.jpg')
      return res.writeHead(200, { 'content-type': 'image/jpeg' }).end(Buffer.from([0xff, 0xd8, 0xff, 0xd9]));
    if (url.pathname === '/clip.mp4') return res.writeHead(200, { 'content-type': 'video/mp4' }).end(Buffer.alloc(100));
    if (url.pathname === '/voice.ogg') return res.writeHead(200, { 'content-type': 'audio/ogg' }).end(oggOpus(1));
    if (url.pathname === '/stereo.ogg') return res.writeHead(200, { 'content-type': 'audio/ogg' }).end(oggOpus(2));
    if (url.pathname === '/song.mp3') return res.writeHead(200, { 'content-type': 'audio/mpeg' }).end(Buffer.alloc(100));
    if (url.pathname === '/report.pdf') return res.writeHead(200, { 'content-type': 'application/pdf' }).end(Buffer.from('%PDF-1.4'));
    if (url.pathname === '/sticker.webp') return res.writeHead(200, { 'content-type': 'image/webp' }).end(WEBP_STATIC);
    if (url.pathname === '/big-sticker.webp')
      return res.writeHead(200, { 'content-type': 'image/webp' }).end(Buffer.concat([WEBP_STATIC, Buffer.alloc(150 * 1024)]));
    if (url.pathname === '/huge.png')
      return res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(6 * 1024 * 1024) }).end();
    if (url.pathname === '/endless.png') {
      // No declared length: the bytes run past the limit while they are read.
      res.writeHead(200, { 'content-type': 'image/png' });
      const chunk = Buffer.alloc(64 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 6 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('error', () => undefined);
      return pump();
    }
    if (url.pathname === '/gone') return res.writeHead(404).end();
    if (url.pathname === '/busy') return res.writeHead(503).end();
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

const statuses = new Map<string, string>([
  ['wamid.CUSTOMER', 'received'],
  ['3EB0OURS', 'delivered'],
]);
const context = (extra: Partial<OutboundContext> = {}): OutboundContext => ({
  targets: { allowPrivate: true },
  statusOf: async (id) => statuses.get(id),
  ...extra,
});
const msg = (type: string, content: Record<string, unknown>): OutboundMessage => ({ id: uuidv7(), to: TO, type, content });

async function sendOne(type: string, content: Record<string, unknown>, extra: Partial<OutboundContext> = {}) {
  const rec = recordingSocket();
  const message = msg(type, content);
  const result = await sendThroughSocket(rec.socket, message, context(extra));
  return { ...rec, message, result };
}

test('text: plain, and a quoted reply with a minimal key; the library never builds a link preview itself', async () => {
  const plain = await sendOne('text', { body: 'see https://example.invalid/x' });
  assert.equal(plain.result.ok, true);
  const [sent] = plain.sends();
  assert.equal(sent!.jid, JID);
  assert.deepEqual(sent!.content, { text: 'see https://example.invalid/x', linkPreview: null });
  // The id is Parley's own, derived from the message id, and it is the provider message id.
  assert.equal(sent!.options?.messageId, libraryMessageId(plain.message.id));
  assert.deepEqual(plain.result, { ok: true, value: { providerMessageId: libraryMessageId(plain.message.id) } });
  assert.equal(parleyMessageIdOf(libraryMessageId(plain.message.id)), plain.message.id);

  const toCustomer = await sendOne('text', { body: 'yes', reply_to: { id: 'wamid.CUSTOMER' } });
  assert.deepEqual(toCustomer.sends()[0]!.options?.quoted?.key, { remoteJid: JID, id: 'wamid.CUSTOMER', fromMe: false });
  const toOurs = await sendOne('text', { body: 'as I said', reply_to: { id: '3EB0OURS' } });
  assert.deepEqual(toOurs.sends()[0]!.options?.quoted?.key, { remoteJid: JID, id: '3EB0OURS', fromMe: true });
  const unknown = await sendOne('text', { body: 'hm', reply_to: { id: 'ABC', participant: '4917@s.whatsapp.net' } });
  assert.deepEqual(unknown.sends()[0]!.options?.quoted?.key, {
    remoteJid: JID,
    id: 'ABC',
    fromMe: false,
    participant: '4917@s.whatsapp.net',
  });
  assert.ok(unknown.sends()[0]!.options?.quoted?.message, 'the quoted message has content for the library to quote');
});

test('media by URL: fetched here and handed over as bytes, with caption, file name and type', async () => {
  const image = await sendOne('image', { media_url: `${base}/image.png`, caption: 'Look' });
  const imageContent = image.sends()[0]!.content as { image: unknown; caption?: string; mimetype?: string };
  assert.ok(Buffer.isBuffer(imageContent.image), 'the library gets bytes, never a URL to fetch');
  assert.deepEqual(imageContent.image, PNG);
  assert.equal(imageContent.caption, 'Look');
  assert.equal(imageContent.mimetype, 'image/png');

  const video = await sendOne('video', { media_url: `${base}/clip.mp4`, caption: 'Clip', reply_to: { id: 'wamid.CUSTOMER' } });
  const v = video.sends()[0]!;
  assert.equal((v.content as { caption: string }).caption, 'Clip');
  assert.equal((v.content as { mimetype: string }).mimetype, 'video/mp4');
  assert.equal(v.options?.quoted?.key.id, 'wamid.CUSTOMER');

  type Audio = { audio: Buffer; ptt: boolean; mimetype?: string };
  const voice = await sendOne('audio', { media_url: `${base}/voice.ogg` });
  const v1 = voice.sends()[0]!.content as Audio;
  assert.deepEqual([v1.ptt, v1.mimetype], [true, 'audio/ogg; codecs=opus'], 'OGG Opus mono is a voice note, with the codec named');
  assert.deepEqual(v1.audio, oggOpus(1), 'sent as it is');
  const song = await sendOne('audio', { media_url: `${base}/song.mp3` });
  assert.deepEqual([(song.sends()[0]!.content as Audio).ptt, (song.sends()[0]!.content as Audio).mimetype], [false, 'audio/mpeg']);
  // Stereo Opus is converted to mono where a converter runs; without one it goes as an audio file.
  const converted = await sendOne('audio', { media_url: `${base}/stereo.ogg` }, { convertVoice: async () => oggOpus(1) });
  const c1 = converted.sends()[0]!.content as Audio;
  assert.deepEqual([c1.ptt, c1.mimetype, c1.audio], [true, 'audio/ogg; codecs=opus', oggOpus(1)]);
  const unconverted = await sendOne('audio', { media_url: `${base}/stereo.ogg` }, { convertVoice: async () => undefined });
  const u1 = unconverted.sends()[0]!.content as Audio;
  assert.deepEqual([u1.ptt, u1.audio], [false, oggOpus(2)], 'no voice note the phone would not play');

  const doc = await sendOne('document', { media_url: `${base}/report.pdf`, file_name: 'Report.pdf', caption: 'Q2' });
  const d = doc.sends()[0]!.content as { document: Buffer; mimetype: string; fileName: string; caption: string };
  assert.deepEqual([d.document.toString(), d.mimetype, d.fileName, d.caption], ['%PDF-1.4', 'application/pdf', 'Report.pdf', 'Q2']);

  const sticker = await sendOne('sticker', { media_url: `${base}/sticker.webp` });
  const s = sticker.sends()[0]!.content as { sticker: Buffer; isAnimated: boolean; mimetype: string };
  assert.deepEqual([Buffer.isBuffer(s.sticker), s.isAnimated, s.mimetype], [true, false, 'image/webp']);
});

test('media over the type limit, refused or unreachable: nothing is sent', async () => {
  const huge = await sendOne('image', { media_url: `${base}/huge.png` });
  assert.equal(huge.result.ok, false);
  assert.equal(!huge.result.ok && huge.result.error.code, 'media_too_large');
  assert.equal(!huge.result.ok && huge.result.error.retryable, false);
  const endless = await sendOne('image', { media_url: `${base}/endless.png` });
  assert.equal(!endless.result.ok && endless.result.error.code, 'media_too_large');
  const bigSticker = await sendOne('sticker', { media_url: `${base}/big-sticker.webp` });
  assert.equal(!bigSticker.result.ok && bigSticker.result.error.code, 'media_too_large');
  assert.match(!bigSticker.result.ok ? bigSticker.result.error.title : '', /static sticker/);
  const gone = await sendOne('image', { media_url: `${base}/gone` });
  assert.deepEqual(!gone.result.ok && [gone.result.error.code, gone.result.error.retryable], ['media_unreachable', false]);
  const busy = await sendOne('image', { media_url: `${base}/busy` });
  assert.deepEqual(!busy.result.ok && [busy.result.error.code, busy.result.error.retryable], ['media_unreachable', true]);
  // Loopback is not a public address: refused under the production policy, before any request.
  const before = fetched.length;
  const refused = await sendOne('image', { media_url: `${base}/image.png` }, { targets: { allowPrivate: false } });
  assert.deepEqual(!refused.result.ok && [refused.result.error.code, refused.result.error.retryable], ['media_url_refused', false]);
  assert.equal(fetched.length, before);
  for (const r of [huge, endless, bigSticker, gone, busy, refused]) assert.equal(r.sends().length, 0);
});

test('location, contact card, reaction and its removal', async () => {
  const loc = await sendOne('location', { name: 'Shop', address: 'Main St 1', latitude: 52.5, longitude: 13.4 });
  assert.deepEqual(loc.sends()[0]!.content, {
    location: { degreesLatitude: 52.5, degreesLongitude: 13.4, name: 'Shop', address: 'Main St 1' },
  });

  const contact = await sendOne('contact', {
    full_name: 'Ana Souza; Jr',
    phone: '+55 11 91234-5678',
    phone_type: 'WORK',
    organization: 'Acme, Inc',
  });
  const card = contact.sends()[0]!.content as {
    contacts: { displayName: string; contacts: Array<{ displayName: string; vcard: string }> };
  };
  assert.equal(card.contacts.displayName, 'Ana Souza; Jr');
  assert.equal(
    card.contacts.contacts[0]!.vcard,
    [
      'BEGIN:VCARD',
      'VERSION:3.0',
      'FN:Ana Souza\\; Jr',
      'N:Ana Souza\\; Jr;;;;',
      'ORG:Acme\\, Inc',
      'TEL;type=WORK;type=VOICE;waid=5511912345678:+55 11 91234-5678',
      'END:VCARD',
    ].join('\n'),
  );

  const full = await sendOne('contact', FULL_CONTACT_CARD);
  const fullCard = full.sends()[0]!.content as { contacts: { contacts: Array<{ vcard: string }> } };
  assert.equal(
    fullCard.contacts.contacts[0]!.vcard,
    [
      'BEGIN:VCARD',
      'VERSION:3.0',
      'FN:Dr Ana M. Lima Jr',
      'N:Lima;Ana;M.;Dr;Jr',
      'ORG:Acme;Sales',
      'TITLE:Manager',
      'TEL;type=HOME;type=VOICE;waid=5511912345678:+5511912345678',
      'TEL;type=WORK;type=VOICE;waid=5511912345670:+5511912345670',
      'EMAIL;type=WORK:ana@example.com',
      'EMAIL;type=INTERNET:ana.lima@example.org',
      'URL;type=WORK:https://example.com/ana',
      'ADR;type=HOME:;;Rua A 1;São Paulo;SP;01000-000;Brazil',
      'BDAY:1990-04-01',
      'END:VCARD',
    ].join('\n'),
  );

  const react = await sendOne('reaction', { message_id: 'wamid.CUSTOMER', reaction: '👍', from_me: true });
  // Parley knows the message was received: the key says so, whatever from_me claimed.
  assert.deepEqual(react.sends()[0]!.content, { react: { text: '👍', key: { remoteJid: JID, id: 'wamid.CUSTOMER', fromMe: false } } });
  const removal = await sendOne('reaction', { message_id: 'UNKNOWN', reaction: '', from_me: true });
  assert.deepEqual(removal.sends()[0]!.content, { react: { text: '', key: { remoteJid: JID, id: 'UNKNOWN', fromMe: true } } });
});

test('poll: single and multiple answers; with the poll key its secret is derived from its id', async () => {
  const key = Buffer.alloc(32, 7);
  const single = await sendOne('poll', { question: 'Size?', options: ['S', 'M'], multiple_answers: false }, { pollKey: key });
  const poll = (
    single.sends()[0]!.content as { poll: { name: string; values: string[]; selectableCount: number; messageSecret?: Uint8Array } }
  ).poll;
  assert.deepEqual([poll.name, poll.values, poll.selectableCount], ['Size?', ['S', 'M'], 1]);
  assert.deepEqual(poll.messageSecret, pollSecret(key, libraryMessageId(single.message.id)));
  const multiple = await sendOne('poll', { question: 'Toppings?', options: ['A', 'B', 'C'], multiple_answers: true });
  const p2 = (multiple.sends()[0]!.content as { poll: { selectableCount: number; messageSecret?: unknown } }).poll;
  assert.equal(p2.selectableCount, 0);
  assert.equal(p2.messageSecret, undefined);
});

test('link: the text carries the URL; the preview comes from the content, its thumbnail fetched here', async () => {
  const bare = await sendOne('link', { url: 'https://example.invalid/a' });
  assert.deepEqual(bare.sends()[0]!.content, { text: 'https://example.invalid/a', linkPreview: null });
  const rich = await sendOne('link', {
    url: 'https://example.invalid/a',
    body: 'New arrivals',
    title: 'Spring',
    description: 'See them',
    thumbnail_url: `${base}/thumb.jpg`,
  });
  const c = rich.sends()[0]!.content as unknown as { text: string; linkPreview: Record<string, unknown> };
  assert.equal(c.text, 'New arrivals\n\nhttps://example.invalid/a');
  assert.deepEqual(
    { ...c.linkPreview, jpegThumbnail: undefined },
    {
      'canonical-url': 'https://example.invalid/a',
      'matched-text': 'https://example.invalid/a',
      title: 'Spring',
      description: 'See them',
      jpegThumbnail: undefined,
    },
  );
  assert.deepEqual(c.linkPreview.jpegThumbnail, Buffer.from([0xff, 0xd8, 0xff, 0xd9]));
});

test('edit and delete for everyone name the message by key; received messages are refused', async () => {
  const edit = await sendOne('edit_message', { message_id: '3EB0OURS', body: 'fixed' });
  assert.deepEqual(edit.sends()[0]!.content, { text: 'fixed', edit: { remoteJid: JID, id: '3EB0OURS', fromMe: true }, linkPreview: null });
  const del = await sendOne('delete_message', { message_id: '3EB0OURS', for_everyone: true });
  assert.deepEqual(del.sends()[0]!.content, { delete: { remoteJid: JID, id: '3EB0OURS', fromMe: true } });
  for (const [type, content, code] of [
    ['edit_message', { message_id: 'wamid.CUSTOMER', body: 'x' }, 'not_editable'],
    ['delete_message', { message_id: 'wamid.CUSTOMER', for_everyone: true }, 'not_deletable'],
    ['delete_message', { message_id: '3EB0OURS', for_everyone: false }, 'unsupported'],
  ] as const) {
    const r = await sendOne(type, content);
    assert.deepEqual(!r.result.ok && [r.result.error.code, r.result.error.retryable], [code, false], `${type} ${JSON.stringify(content)}`);
    assert.equal(r.sends().length, 0);
  }
});

test('presence and mark as read are calls of their own, with no provider id', async () => {
  const typing = await sendOne('presence', { state: 'typing' });
  assert.deepEqual(typing.calls.at(-1), { call: 'sendPresenceUpdate', type: 'composing', jid: JID });
  assert.deepEqual(typing.result, { ok: true, value: {} });
  for (const [state, type] of [
    ['recording', 'recording'],
    ['paused', 'paused'],
  ] as const) {
    const r = await sendOne('presence', { state });
    assert.deepEqual(r.calls.at(-1), { call: 'sendPresenceUpdate', type, jid: JID });
  }
  for (const state of ['available', 'unavailable'] as const) {
    const r = await sendOne('presence', { state });
    assert.deepEqual(r.calls, [{ call: 'sendPresenceUpdate', type: state, jid: undefined }], 'presence of the account: no recipient asked');
  }
  const read = await sendOne('mark_as_read', { message_id: 'wamid.CUSTOMER' });
  assert.deepEqual(read.calls, [{ call: 'readMessages', keys: [{ remoteJid: JID, id: 'wamid.CUSTOMER', fromMe: false }] }]);
  assert.deepEqual(read.result, { ok: true, value: {} });
});

test('status query and media download are answered from what Parley holds, with no call', async () => {
  const known = await sendOne('message_status_query', { message_id: '3EB0OURS' });
  assert.deepEqual([known.result, known.calls], [{ ok: true, value: {} }, []]);
  const unknown = await sendOne('message_status_query', { message_id: 'NOPE' });
  assert.deepEqual(!unknown.result.ok && [unknown.result.error.code, unknown.result.error.retryable], ['message_not_found', false]);
  const media = await sendOne('message_media_download', { message_id: 'wamid.CUSTOMER' });
  assert.deepEqual([media.result, media.calls], [{ ok: true, value: {} }, []]);
  const byMediaId = await sendOne('message_media_download', { media_id: 'm1' });
  assert.equal(!byMediaId.result.ok && byMediaId.result.error.code, 'unsupported');
});

test('simplified formatting: buttons, lists, links, carousels, products, templates, address and location requests as text', async () => {
  const text = async (type: string, content: Record<string, unknown>) => {
    const r = await sendOne(type, content);
    assert.equal(r.result.ok, true, `${type}: ${JSON.stringify(r.result)}`);
    const c = r.sends()[0]!.content as { text?: string; caption?: string; linkPreview?: unknown };
    if (c.text !== undefined) assert.equal(c.linkPreview, null);
    return c.text ?? c.caption;
  };
  assert.equal(
    await text('buttons', {
      body: 'Pick one',
      header: 'Hi',
      footer: 'Shop',
      buttons: [
        { id: 'a', title: 'Yes' },
        { id: 'b', title: 'No' },
      ],
    }),
    '*Hi*\n\nPick one\n\n1. Yes\n2. No\n\n_Shop_\n\nReply with the number of your choice.',
  );
  assert.equal(
    await text('list', {
      body: 'Menu',
      button_text: 'Open',
      sections: [
        { title: 'Drinks', rows: [{ id: '1', title: 'Tea', description: 'hot' }] },
        {
          title: 'Food',
          rows: [
            { id: '2', title: 'Cake' },
            { id: '3', title: 'Pie' },
          ],
        },
      ],
    }),
    'Menu\n\n_Open_\n\n*Drinks*\n1. Tea (hot)\n\n*Food*\n2. Cake\n3. Pie\n\nReply with the number of your choice.',
  );
  assert.equal(
    await text('cta_url', { body: 'Track it', display_text: 'Track', url: 'https://example.invalid/t' }),
    'Track it\n\nTrack: https://example.invalid/t',
  );
  assert.equal(
    await text('media_carousel', {
      body: 'Deals',
      cards: [
        {
          media_type: 'image',
          media_url: `${base}/image.png`,
          body: 'Shoes',
          buttons: [{ type: 'url', title: 'Buy', url: 'https://example.invalid/s' }],
        },
        { media_type: 'image', media_url: `${base}/image.png`, buttons: [{ type: 'url', title: 'Buy', url: 'https://example.invalid/h' }] },
      ],
    }),
    'Deals\n\n*1.* Shoes\n   Buy: https://example.invalid/s\n\n*2.*\n   Buy: https://example.invalid/h',
  );
  assert.equal(
    await text('product_carousel', {
      body: 'Picks',
      catalog_id: 'c',
      products: [{ product_retailer_id: 'p1' }, { product_retailer_id: 'p2' }],
    }),
    'Picks\n\n1. p1\n2. p2\n\nReply with the number of your choice.',
  );
  assert.equal(await text('single_product', { catalog_id: 'c', product_retailer_id: 'p1', body: 'This one' }), 'This one\n\n*Product*: p1');
  assert.equal(
    await text('multi_product', {
      catalog_id: 'c',
      header: 'Sale',
      body: 'Two',
      sections: [{ title: 'A', product_retailer_ids: ['p1', 'p2'] }],
    }),
    '*Sale*\n\nTwo\n\n*A*\n1. p1\n2. p2\n\nReply with the number of your choice.',
  );
  assert.equal(await text('catalog', { body: 'Our catalog', footer: 'Shop' }), 'Our catalog\n\n_Shop_');
  assert.equal(
    await text('address', { body: 'Where to?', country: 'IN', values: { city: 'Pune' } }),
    'Where to?\n\ncity: Pune\n\nPlease reply with your full address.',
  );
  assert.equal(await text('location_request', { body: 'Where are you?' }), 'Where are you?\n\nPlease share your location (📎 → Location).');
  assert.equal(
    await text('template', {
      template: {
        name: 'order_update',
        language: { code: 'en' },
        components: [
          { type: 'header', parameters: [{ type: 'text', text: 'Order 7' }] },
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Ana' },
              { type: 'text', text: 'shipped' },
            ],
          },
          { type: 'button', sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload: 'Track' }] },
        ],
      },
    }),
    '*Order 7*\n\nAna\nshipped\n\n1. Track',
  );
  assert.equal(await text('template', { template: { name: 'hello_world', language: { code: 'en' } } }), '[hello_world]');
  // A media header goes as the media, with the text as its caption.
  const withImage = await sendOne('buttons', {
    body: 'Like it?',
    header: { type: 'image', media_url: `${base}/image.png` },
    buttons: [{ id: 'y', title: 'Yes' }],
  });
  const c = withImage.sends()[0]!.content as { image: Buffer; caption: string };
  assert.deepEqual([Buffer.isBuffer(c.image), c.caption], [true, 'Like it?\n\n1. Yes\n\nReply with the number of your choice.']);
});

test('a number not on the service fails for good, asked once; the address the service gives is the one sent to', async () => {
  const rec = recordingSocket({ onWhatsApp: (n) => [{ jid: `${n}@s.whatsapp.net`, exists: !n.startsWith('49000') }] });
  const absent = { ...msg('text', { body: 'hi' }), to: '4900012345' };
  for (let i = 0; i < 2; i++) {
    const r = await sendThroughSocket(rec.socket, absent, context());
    assert.equal(r.ok, false);
    assert.deepEqual(!r.ok && [r.error.code, r.error.retryable, r.error.scope], ['recipient_not_on_network', false, 'message']);
    assert.match(!r.ok ? r.error.title : '', /\+4900012345 is not on the chat app/);
  }
  assert.deepEqual(
    rec.calls.filter((c) => c.call === 'onWhatsApp'),
    [{ call: 'onWhatsApp', numbers: ['4900012345'] }],
    'asked by digits, once: the answer is remembered',
  );
  assert.equal(rec.sends().length, 0);

  // The service answers with its own address for a number (a country's old and new formats).
  const moved = recordingSocket({ onWhatsApp: () => [{ jid: '551191234567@s.whatsapp.net', exists: true }] });
  const r = await sendThroughSocket(
    moved.socket,
    { ...msg('reaction', { message_id: 'X', reaction: '👍', from_me: false }), to: '5511991234567' },
    context(),
  );
  assert.equal(r.ok, true);
  assert.equal(moved.sends()[0]!.jid, '551191234567@s.whatsapp.net');
  assert.equal((moved.sends()[0]!.content as { react: { key: WAMessageKey } }).react.key.remoteJid, '551191234567@s.whatsapp.net');
  await sendThroughSocket(moved.socket, { ...msg('text', { body: 'again' }), to: '5511991234567' }, context());
  assert.equal(moved.calls.filter((c) => c.call === 'onWhatsApp').length, 1);
});

test("the library's errors: connection faults and timeouts are retried, bad requests are final, a logged-out session is the channel's", async () => {
  const boom = (message: string, statusCode: number, data?: unknown) =>
    Object.assign(new Error(message), { isBoom: true, output: { statusCode, payload: {} }, data });
  const cases: Array<[Error, string, boolean, boolean]> = [
    [boom('Connection Closed', 428), '428', true, false],
    [boom('Connection was lost', 408), 'timeout', true, false],
    [boom('Stream Errored (conflict)', 440), '440', true, false],
    [boom('Invalid poll values', 400, { field: 'values' }), '400', false, false],
    [boom('Intentional Logout', 401), '401', false, true],
    // A query the service refused (assertNodeErrorFree: status 500, its code as data): a group the account is not in, final.
    [boom('item-not-found', 500, 404), '404', false, false],
    [boom('not-authorized', 500, 401), '401', false, false],
    [boom('service-unavailable', 500, 503), '503', true, false],
    [new Error('Connection Closed'), 'connection_closed', true, false],
    [new TypeError("Cannot read properties of undefined (reading 'id')"), 'library_error', false, false],
  ];
  for (const [err, code, retryable, channelFault] of cases) {
    const rec = recordingSocket({ sendMessage: () => Promise.reject(err) });
    const r = await sendThroughSocket(rec.socket, msg('text', { body: 'x' }), context());
    assert.equal(r.ok, false);
    assert.deepEqual(
      !r.ok && [r.error.code, r.error.retryable, r.error.channelFault ?? false],
      [code, retryable, channelFault],
      err.message,
    );
  }
  const detailed = recordingSocket({ sendMessage: () => Promise.reject(boom('Invalid poll values', 400, { field: 'values' })) });
  const d = await sendThroughSocket(detailed.socket, msg('text', { body: 'x' }), context());
  assert.equal(!d.ok && d.error.message, '{"field":"values"}');

  const hung = recordingSocket({ sendMessage: () => new Promise(() => undefined) });
  const t = await sendThroughSocket(hung.socket, msg('text', { body: 'x' }), context({ timeoutMs: 50 }));
  assert.deepEqual(!t.ok && [t.error.code, t.error.retryable], ['timeout', true]);

  const nothing = recordingSocket({ sendMessage: async () => undefined });
  const n = await sendThroughSocket(nothing.socket, msg('text', { body: 'x' }), context());
  assert.deepEqual(!n.ok && [n.error.code, n.error.retryable], ['no_message_id', false]);
});

test('every mapped content is one the library builds a message from (its own generateWAMessage, uploads faked)', async () => {
  const built: Record<string, string | undefined> = {};
  const cases: Array<[string, Record<string, unknown>]> = [
    ['text', { body: 'hi', reply_to: { id: 'wamid.CUSTOMER' } }],
    ['image', { media_url: `${base}/image.png`, caption: 'c' }],
    ['document', { media_url: `${base}/report.pdf`, file_name: 'r.pdf' }],
    ['audio', { media_url: `${base}/voice.ogg` }],
    ['location', { name: 'n', address: 'a', latitude: 1, longitude: 2 }],
    ['contact', { full_name: 'Ana', phone: '+4915112345678' }],
    ['reaction', { message_id: 'wamid.CUSTOMER', reaction: '👍', from_me: false }],
    ['poll', { question: 'Q?', options: ['a', 'b'], multiple_answers: false }],
    ['link', { url: 'https://example.invalid/', title: 'T' }],
    ['edit_message', { message_id: '3EB0OURS', body: 'new' }],
    ['delete_message', { message_id: '3EB0OURS', for_everyone: true }],
    ['buttons', { body: 'b', buttons: [{ id: 'a', title: 'A' }] }],
  ];
  for (const [type, content] of cases) {
    const r = await sendOne(type, content);
    const sent = r.sends()[0]!;
    const message = await generateWAMessage(sent.jid, sent.content, {
      userJid: '4930111111:3@s.whatsapp.net',
      upload: async () => ({ mediaUrl: 'https://mmg.whatsapp.net/x', directPath: '/x' }),
      ...sent.options,
    });
    assert.equal(message.key.id, libraryMessageId(r.message.id));
    built[type] = Object.keys(message.message ?? {}).find((k) => k !== 'messageContextInfo');
  }
  assert.deepEqual(built, {
    text: 'extendedTextMessage',
    image: 'imageMessage',
    document: 'documentMessage',
    audio: 'audioMessage',
    location: 'locationMessage',
    contact: 'contactMessage',
    reaction: 'reactionMessage',
    poll: 'pollCreationMessageV3',
    link: 'extendedTextMessage',
    edit_message: 'protocolMessage',
    delete_message: 'protocolMessage',
    buttons: 'extendedTextMessage',
  });
});

test("the engine's support matrix row is true: each type goes as the row says (native, as text, or answered by Parley with no call)", async () => {
  const samples: Record<string, Record<string, unknown>> = {
    text: { body: 'hi' },
    image: { media_url: `${base}/image.png` },
    video: { media_url: `${base}/clip.mp4` },
    audio: { media_url: `${base}/song.mp3` },
    document: { media_url: `${base}/report.pdf`, file_name: 'r.pdf' },
    sticker: { media_url: `${base}/sticker.webp` },
    location: { name: 'n', address: 'a', latitude: 1, longitude: 2 },
    location_request: { body: 'Where are you?' },
    contact: { full_name: 'Ana', phone: '+4915112345678' },
    reaction: { message_id: 'wamid.CUSTOMER', reaction: '👍' },
    mark_as_read: { message_id: 'wamid.CUSTOMER' },
    address: { body: 'Where to?', country: 'IN' },
    single_product: { catalog_id: 'c', product_retailer_id: 'p1', body: 'This one' },
    multi_product: { catalog_id: 'c', header: 'Sale', body: 'Two', sections: [{ title: 'A', product_retailer_ids: ['p1'] }] },
    catalog: { body: 'Our catalog' },
    template: { template: { name: 'hello_world', language: { code: 'en' } } },
    buttons: { body: 'Pick', buttons: [{ id: 'a', title: 'Yes' }] },
    list: { body: 'Menu', button_text: 'Open', sections: [{ title: 'S', rows: [{ id: '1', title: 'Tea' }] }] },
    cta_url: { body: 'Track it', display_text: 'Track', url: 'https://example.invalid/t' },
    media_carousel: { body: 'Deals', cards: [{ media_type: 'image', media_url: `${base}/image.png`, buttons: [] }] },
    product_carousel: { body: 'Picks', catalog_id: 'c', products: [{ product_retailer_id: 'p1' }] },
    link: { url: 'https://example.invalid/', title: 'T' },
    poll: { question: 'Q?', options: ['a', 'b'] },
    presence: { state: 'typing' },
    edit_message: { message_id: '3EB0OURS', body: 'new' },
    delete_message: { message_id: '3EB0OURS', for_everyone: true },
    message_status_query: { message_id: '3EB0OURS' },
    message_media_download: { message_id: 'wamid.CUSTOMER' },
  };
  const row = gatewayProvider.engines.rows.embedded!;
  const simplified = new Set<string>(row.simplified_types);
  const parley = new Set<string>(row.parley_types);
  for (const type of gatewayProvider.capabilities.message_types) {
    const content = samples[type];
    assert.ok(content, `a sample of ${type}`);
    const r = await sendOne(type, content);
    assert.equal(r.result.ok, true, `${type}: ${JSON.stringify(r.result)}`);
    const calls = r.calls.filter((c) => c.call !== 'onWhatsApp');
    if (parley.has(type)) {
      assert.deepEqual(r.calls, [], `${type} is answered by Parley: no call on the socket`);
      continue;
    }
    assert.ok(calls.length > 0, `${type} goes to the chat network`);
    const sent = r.sends()[0]?.content as Record<string, unknown> | undefined;
    if (simplified.has(type)) {
      assert.equal(sent?.text ?? sent?.caption, formatSimplified(type, content).text, `${type} is sent as text`);
      continue;
    }
    // Native: a call of its own, or content of the library's kind for it (only text and links go as text).
    if (sent && 'text' in sent) assert.ok(['text', 'link', 'edit_message'].includes(type), `${type} is native, yet sent as text`);
  }
});
