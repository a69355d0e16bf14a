import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { aesEncryptGCM, hmacSign, proto, WAMessageStubType, type WAMessage, type WAMessageKey } from 'baileys';
import type { InboundEvent } from '../../provider.ts';
import { libraryMessageId, pollSecret } from './ids.ts';
import { normalizeSocketEvent, parseVcard, type InboundContext, type SocketEvent } from './inbound.ts';
import { loadLibrary } from './library.ts';

// normalizeSocketEvent uses the chat library, which the engine loads before it opens a socket.
await loadLibrary();

const REF = 'channel-1';
const SELF = { phone: '4930111111', lid: '99887766' };
const CUSTOMER = '4915112345678';
const CUSTOMER_LID = '123456789012345';
const ctx = (extra: Partial<InboundContext> = {}): InboundContext => ({ self: SELF, groups: false, ...extra });
const T = 1_750_000_000;

/** A message as the library delivers it: built with its protobuf types; the key's addressing fields are the library's additions. */
function wa(message: proto.IMessage, key: Partial<WAMessageKey> = {}, extra: Partial<proto.IWebMessageInfo> = {}): WAMessage {
  const m = proto.WebMessageInfo.fromObject({
    key: { remoteJid: `${CUSTOMER_LID}@lid`, fromMe: false, id: key.id ?? 'MSG1', participant: key.participant ?? undefined },
    message,
    messageTimestamp: T,
    pushName: 'Ana',
    ...extra,
  }) as WAMessage;
  Object.assign(m.key, { remoteJidAlt: `${CUSTOMER}@s.whatsapp.net`, addressingMode: 'lid', ...key });
  return m;
}
const upsert = (...messages: WAMessage[]): SocketEvent => ({ event: 'messages.upsert', data: { messages, type: 'notify' } });
const one = (m: WAMessage, c = ctx()) => normalizeSocketEvent(REF, upsert(m), c);
const inbound = (m: WAMessage, c = ctx()) => {
  const events = one(m, c);
  assert.equal(events.length, 1, JSON.stringify(events));
  assert.equal(events[0]!.kind, 'message.inbound');
  return events[0] as Extract<InboundEvent, { kind: 'message.inbound' }>;
};

test('text from a privacy-id sender: the phone is the sender, both ids are identities', () => {
  const e = inbound(wa(proto.Message.fromObject({ conversation: 'Hello' })));
  assert.deepEqual(e, {
    kind: 'message.inbound',
    ref: REF,
    providerMessageId: 'MSG1',
    from: CUSTOMER,
    profileName: 'Ana',
    identities: [
      { type: 'chatapp_id', value: CUSTOMER },
      { type: 'linked_id', value: CUSTOMER_LID },
    ],
    timestamp: new Date(T * 1000),
    type: 'text',
    content: { body: 'Hello' },
  });
  // Addressed by phone, with the privacy id beside it.
  const byPhone = inbound(
    wa(proto.Message.fromObject({ conversation: 'Hi' }), {
      remoteJid: `${CUSTOMER}@s.whatsapp.net`,
      remoteJidAlt: `${CUSTOMER_LID}@lid`,
      addressingMode: 'pn',
    }),
  );
  assert.equal(byPhone.from, CUSTOMER);
  assert.deepEqual(byPhone.identities, [
    { type: 'chatapp_id', value: CUSTOMER },
    { type: 'linked_id', value: CUSTOMER_LID },
  ]);
  // A privacy id alone names no phone: skipped (a contact needs a number).
  assert.deepEqual(one(wa(proto.Message.fromObject({ conversation: 'x' }), { remoteJidAlt: undefined })), []);
});

test('extended text with a quote; disappearing and view-once wrappers are unwrapped', () => {
  const quoted = inbound(
    wa(
      proto.Message.fromObject({
        extendedTextMessage: { text: 'Yes please', contextInfo: { stanzaId: '3EB0ABC', participant: `${SELF.phone}@s.whatsapp.net` } },
      }),
    ),
  );
  assert.deepEqual([quoted.type, quoted.content, quoted.replyTo], ['text', { body: 'Yes please' }, '3EB0ABC']);
  const ephemeral = inbound(
    wa(proto.Message.fromObject({ ephemeralMessage: { message: { extendedTextMessage: { text: 'vanishing' } } } })),
  );
  assert.deepEqual(ephemeral.content, { body: 'vanishing' });
});

test('media of every kind: the content the official engine gives, and what the download needs', () => {
  const key = randomBytes(32);
  const sha = createHash('sha256').update('plain').digest();
  const enc = createHash('sha256').update('enc').digest();
  const common = {
    url: 'https://mmg.whatsapp.net/d/f/x.enc',
    directPath: '/v/t62/x.enc',
    mediaKey: key,
    fileSha256: sha,
    fileEncSha256: enc,
    fileLength: 2048,
  };
  const image = inbound(
    wa(
      proto.Message.fromObject({
        imageMessage: { ...common, mimetype: 'image/jpeg', caption: 'Receipt', contextInfo: { stanzaId: 'Q1' } },
      }),
    ),
  );
  assert.deepEqual(
    [image.type, image.content, image.replyTo],
    ['image', { mime_type: 'image/jpeg', sha256: sha.toString('hex'), caption: 'Receipt' }, 'Q1'],
  );
  assert.deepEqual(image.media, {
    source: {
      mediaType: 'image',
      url: common.url,
      directPath: common.directPath,
      mediaKey: key.toString('base64'),
      fileEncSha256: enc.toString('base64'),
      fileSha256: sha.toString('base64'),
      fileLength: 2048,
      mimetype: 'image/jpeg',
    },
    mimeType: 'image/jpeg',
    size: 2048,
  });
  const voice = inbound(wa(proto.Message.fromObject({ audioMessage: { ...common, mimetype: 'audio/ogg; codecs=opus', ptt: true } })));
  assert.deepEqual([voice.type, voice.content.voice, voice.media?.source.mediaType], ['audio', true, 'audio']);
  const video = inbound(wa(proto.Message.fromObject({ videoMessage: { ...common, mimetype: 'video/mp4', caption: 'Clip' } })));
  assert.deepEqual([video.type, video.content.caption], ['video', 'Clip']);
  const doc = inbound(
    wa(
      proto.Message.fromObject({
        documentWithCaptionMessage: {
          message: { documentMessage: { ...common, mimetype: 'application/pdf', fileName: 'invoice.pdf', caption: 'Invoice' } },
        },
      }),
    ),
  );
  assert.deepEqual(
    [doc.type, doc.content.file_name, doc.content.caption, doc.media?.fileName],
    ['document', 'invoice.pdf', 'Invoice', 'invoice.pdf'],
  );
  const sticker = inbound(wa(proto.Message.fromObject({ stickerMessage: { ...common, mimetype: 'image/webp', isAnimated: true } })));
  assert.deepEqual([sticker.type, sticker.content.animated, sticker.content.caption], ['sticker', true, undefined]);
});

test('location, live location and shared contacts (vCards parsed)', () => {
  const loc = inbound(
    wa(
      proto.Message.fromObject({ locationMessage: { degreesLatitude: 52.52, degreesLongitude: 13.4, name: 'Shop', address: 'Main St 1' } }),
    ),
  );
  assert.deepEqual([loc.type, loc.content], ['location', { latitude: 52.52, longitude: 13.4, name: 'Shop', address: 'Main St 1' }]);
  const live = inbound(
    wa(proto.Message.fromObject({ liveLocationMessage: { degreesLatitude: 1.5, degreesLongitude: 2.5, caption: 'on my way' } })),
  );
  assert.deepEqual(live.content, { latitude: 1.5, longitude: 2.5, name: 'on my way', live: true });

  const vcard = [
    'BEGIN:VCARD',
    'VERSION:3.0',
    'N:Souza;Ana;;;',
    'FN:Ana Souza',
    'ORG:Acme\\, Inc;',
    'item1.TEL;waid=5511912345678:+55 11 91234-5678',
    'item1.X-ABLabel:Mobile',
    'TEL;type=WORK:+49 30 1234',
    'EMAIL;type=INTERNET;type=WORK:ana@example.invalid',
    'END:VCARD',
  ].join('\n');
  const contact = inbound(wa(proto.Message.fromObject({ contactMessage: { displayName: 'Ana', vcard } })));
  assert.deepEqual(
    [contact.type, contact.content],
    [
      'contact',
      {
        contacts: [
          {
            name: { formatted_name: 'Ana Souza', first_name: 'Ana', last_name: 'Souza' },
            phones: [
              { phone: '+55 11 91234-5678', wa_id: '5511912345678' },
              { phone: '+49 30 1234', type: 'WORK' },
            ],
            emails: [{ email: 'ana@example.invalid', type: 'WORK' }],
            org: { company: 'Acme, Inc' },
          },
        ],
      },
    ],
  );
  const many = inbound(
    wa(
      proto.Message.fromObject({
        contactsArrayMessage: {
          displayName: '2 contacts',
          contacts: [
            { displayName: 'Bo', vcard: 'BEGIN:VCARD\nFN:Bo\nTEL:+1 555\nEND:VCARD' },
            { displayName: 'Cy', vcard: '' },
          ],
        },
      }),
    ),
  );
  assert.deepEqual(many.content, {
    contacts: [
      { name: { formatted_name: 'Bo' }, phones: [{ phone: '+1 555' }] },
      { name: { formatted_name: 'Cy' }, phones: [] },
    ],
  });
  // Folded lines and escapes.
  assert.deepEqual(parseVcard('BEGIN:VCARD\r\nFN:Very Long\r\n  Name\\; Jr\r\nEND:VCARD').fn, 'Very Long Name; Jr');
});

test('reactions and their removal; a poll', () => {
  const react = inbound(
    wa(
      proto.Message.fromObject({
        reactionMessage: {
          key: { remoteJid: `${CUSTOMER_LID}@lid`, fromMe: true, id: '3EB0OURS' },
          text: '❤️',
          senderTimestampMs: T * 1000,
        },
      }),
      { id: 'R1' },
    ),
  );
  assert.deepEqual([react.providerMessageId, react.type, react.content], ['R1', 'reaction', { message_id: '3EB0OURS', reaction: '❤️' }]);
  const removed = inbound(
    wa(proto.Message.fromObject({ reactionMessage: { key: { id: '3EB0OURS', fromMe: true }, text: '' } }), { id: 'R2' }),
  );
  assert.deepEqual(removed.content, { message_id: '3EB0OURS', reaction: '' });
  const poll = inbound(
    wa(
      proto.Message.fromObject({
        pollCreationMessageV3: { name: 'Lunch?', options: [{ optionName: 'Yes' }, { optionName: 'No' }], selectableOptionsCount: 1 },
        messageContextInfo: { messageSecret: randomBytes(32) },
      }),
    ),
  );
  assert.deepEqual([poll.type, poll.content], ['poll', { question: 'Lunch?', options: ['Yes', 'No'], multiple_answers: false }]);
});

test('a vote on a poll Parley sent is read with the poll key; others cannot be read and are skipped', () => {
  const pollKey = randomBytes(32);
  const pollId = '3EB0AAAABBBBCCCCDDDDEEEEFFFF000011112222';
  /** What the voter's phone sends: the selected options' hashes, encrypted with the poll's secret (the library's own primitives). */
  const vote = (options: string[], voterJid: string, secret = pollSecret(pollKey, pollId)) => {
    const sign = Buffer.concat([
      Buffer.from(pollId),
      Buffer.from(`${SELF.phone}@s.whatsapp.net`),
      Buffer.from(voterJid),
      Buffer.from('Poll Vote'),
      new Uint8Array([1]),
    ]);
    const key = hmacSign(sign, hmacSign(secret, new Uint8Array(32)));
    const iv = randomBytes(12);
    const plain = proto.Message.PollVoteMessage.encode({
      selectedOptions: options.map((o) => createHash('sha256').update(o).digest()),
    }).finish();
    return { encPayload: aesEncryptGCM(plain, key, iv, Buffer.from(`${pollId}\u0000${voterJid}`)), encIv: iv };
  };
  const update = (v: { encPayload: Buffer; encIv: Buffer }) =>
    wa(
      proto.Message.fromObject({
        pollUpdateMessage: {
          pollCreationMessageKey: { remoteJid: `${CUSTOMER_LID}@lid`, fromMe: true, id: pollId },
          vote: v,
          senderTimestampMs: T * 1000,
        },
      }),
      { id: 'V1' },
    );

  // The voter signs with whichever address form its phone uses: both are tried.
  for (const voter of [`${CUSTOMER}@s.whatsapp.net`, `${CUSTOMER_LID}@lid`]) {
    const e = inbound(update(vote(['Yes'], voter)), ctx({ pollKey }));
    assert.deepEqual(
      [e.type, e.content],
      ['poll_vote', { poll_id: pollId, selected_option_hashes: [createHash('sha256').update('Yes').digest('hex')] }],
    );
  }
  assert.deepEqual(one(update(vote(['Yes'], `${CUSTOMER}@s.whatsapp.net`))), [], 'no poll key: the vote cannot be read');
  assert.deepEqual(
    one(update(vote(['Yes'], `${CUSTOMER}@s.whatsapp.net`, randomBytes(32))), ctx({ pollKey })),
    [],
    'another secret (a poll made on the phone)',
  );
});

test('button, list and native-flow replies become interactive replies, as from the official engine', () => {
  const cases: Array<[proto.IMessage, Record<string, unknown>]> = [
    [
      { buttonsResponseMessage: { selectedButtonId: 'yes', selectedDisplayText: 'Yes', type: 1, contextInfo: { stanzaId: 'B1' } } },
      { type: 'button_reply', id: 'yes', title: 'Yes' },
    ],
    [
      { templateButtonReplyMessage: { selectedId: 'track', selectedDisplayText: 'Track', selectedIndex: 0 } },
      { type: 'button_reply', id: 'track', title: 'Track' },
    ],
    [
      { listResponseMessage: { title: 'Tea', description: 'hot', listType: 1, singleSelectReply: { selectedRowId: 'tea' } } },
      { type: 'list_reply', id: 'tea', title: 'Tea', description: 'hot' },
    ],
    [
      {
        interactiveResponseMessage: {
          body: { text: 'Yes' },
          nativeFlowResponseMessage: { name: 'quick_reply', paramsJson: '{"id":"y1","display_text":"Yes!"}', version: 1 },
        },
      },
      { type: 'button_reply', id: 'y1', title: 'Yes!' },
    ],
    [
      {
        interactiveResponseMessage: {
          body: { text: 'Sent' },
          nativeFlowResponseMessage: { name: 'address_message', paramsJson: '{"values":{"city":"Pune"}}', version: 1 },
        },
      },
      { type: 'nfm_reply', name: 'address_message', body: 'Sent', response_json: { values: { city: 'Pune' } } },
    ],
  ];
  for (const [message, content] of cases) {
    const e = inbound(wa(proto.Message.fromObject(message)));
    assert.deepEqual([e.type, e.content], ['interactive', content]);
  }
  assert.equal(inbound(wa(proto.Message.fromObject(cases[0]![0]))).replyTo, 'B1');
});

test('edits and deletions (by the customer or from the business phone) name the message they change', () => {
  const edit = one(
    wa(
      proto.Message.fromObject({
        protocolMessage: {
          type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT,
          key: { id: 'MSG0', remoteJid: `${CUSTOMER_LID}@lid` },
          editedMessage: { conversation: 'Hello again' },
          timestampMs: (T + 5) * 1000,
        },
      }),
      {
        id: 'E1',
      },
    ),
  );
  assert.deepEqual(edit, [
    { kind: 'message.edited', ref: REF, providerMessageId: 'MSG0', content: { body: 'Hello again' }, timestamp: new Date((T + 5) * 1000) },
  ]);
  // The newer wrapper, edited caption, from the business's own phone.
  const wrapped = one(
    wa(
      proto.Message.fromObject({
        editedMessage: {
          message: {
            protocolMessage: {
              type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT,
              key: { id: '3EB0OURS', fromMe: true },
              editedMessage: { imageMessage: { caption: 'new caption' } },
            },
          },
        },
      }),
      { id: 'E2', fromMe: true },
    ),
  );
  assert.equal(wrapped[0]!.kind, 'message.edited');
  assert.deepEqual((wrapped[0] as Extract<InboundEvent, { kind: 'message.edited' }>).content.caption, 'new caption');
  const revoke = one(
    wa(proto.Message.fromObject({ protocolMessage: { type: proto.Message.ProtocolMessage.Type.REVOKE, key: { id: 'MSG0' } } }), {
      id: 'D1',
    }),
  );
  assert.deepEqual(revoke, [{ kind: 'message.deleted', ref: REF, providerMessageId: 'MSG0', timestamp: new Date(T * 1000) }]);
  // Other protocol messages (history sync, ephemeral settings) are none of the inbox's business.
  assert.deepEqual(
    one(
      wa(proto.Message.fromObject({ protocolMessage: { type: proto.Message.ProtocolMessage.Type.EPHEMERAL_SETTING, key: { id: 'X' } } })),
    ),
    [],
  );
});

test("the business's own messages (phone, another linked device) are echoes to the customer", () => {
  const echo = one(
    wa(proto.Message.fromObject({ extendedTextMessage: { text: 'We open at 9', contextInfo: { stanzaId: 'MSG1' } } }), {
      id: '3EB0PHONE',
      fromMe: true,
      remoteJid: `${CUSTOMER_LID}@lid`,
      // For our own messages the alternate may be our own number: never taken for the customer's.
      remoteJidAlt: `${SELF.phone}@s.whatsapp.net`,
    }),
  );
  assert.deepEqual(echo, [], 'no customer phone: nothing to echo to');
  const ok = one(
    wa(proto.Message.fromObject({ extendedTextMessage: { text: 'We open at 9', contextInfo: { stanzaId: 'MSG1' } } }), {
      id: '3EB0PHONE',
      fromMe: true,
      remoteJid: `${CUSTOMER}@s.whatsapp.net`,
      remoteJidAlt: undefined,
    }),
  );
  assert.deepEqual(ok, [
    {
      kind: 'message.echo',
      ref: REF,
      providerMessageId: '3EB0PHONE',
      to: CUSTOMER,
      timestamp: new Date(T * 1000),
      type: 'text',
      content: { body: 'We open at 9' },
      replyTo: 'MSG1',
    },
  ]);
  // Parley's own send, reported back by the library, names the Parley message.
  const parleyId = '0190a5b4-3b8f-7c11-9d2f-5b6c7d8e9f02';
  const ours = one(
    wa(proto.Message.fromObject({ conversation: 'from the API' }), {
      id: libraryMessageId(parleyId),
      fromMe: true,
      remoteJid: `${CUSTOMER}@s.whatsapp.net`,
      remoteJidAlt: undefined,
    }),
  );
  assert.equal((ours[0] as Extract<InboundEvent, { kind: 'message.echo' }>).callbackData, parleyId);
  assert.equal((ok[0] as Extract<InboundEvent, { kind: 'message.echo' }>).callbackData, undefined);
  const media = one(
    wa(proto.Message.fromObject({ imageMessage: { mimetype: 'image/png', directPath: '/x', mediaKey: randomBytes(32), fileLength: 10 } }), {
      id: '3EB0IMG',
      fromMe: true,
    }),
  );
  assert.equal(media[0]!.kind, 'message.echo');
  assert.equal((media[0] as Extract<InboundEvent, { kind: 'message.echo' }>).media?.source.directPath, '/x');
});

test('groups only when the channel takes them (sender: the participant, chat: the group); status posts only when it takes those; newsletters never', () => {
  const group = wa(proto.Message.fromObject({ conversation: 'hi all' }), {
    remoteJid: '120363000000000001@g.us',
    remoteJidAlt: undefined,
    participant: `${CUSTOMER_LID}@lid`,
    participantAlt: `${CUSTOMER}@s.whatsapp.net`,
  });
  assert.deepEqual(one(group), []);
  const e = inbound(group, ctx({ groups: true }));
  assert.deepEqual(
    [e.from, e.chat, e.content],
    [CUSTOMER, '120363000000000001@g.us', { body: 'hi all', group: { id: '120363000000000001@g.us', participant: CUSTOMER } }],
  );
  const story = wa(proto.Message.fromObject({ conversation: 'story' }), {
    remoteJid: 'status@broadcast',
    remoteJidAlt: undefined,
    participant: `${CUSTOMER}@s.whatsapp.net`,
  });
  assert.deepEqual(one(story, ctx({ groups: true })), []);
  const post = inbound(story, ctx({ statuses: true }));
  assert.deepEqual([post.from, post.chat, post.content], [CUSTOMER, 'status@broadcast', { body: 'story', status_post: true }]);
  assert.deepEqual(
    one(wa(proto.Message.fromObject({ conversation: 'news' }), { remoteJid: '1203630@newsletter' }), ctx({ groups: true })),
    [],
  );
  // The business's own message in a group has no single customer.
  assert.deepEqual(one({ ...group, key: { ...group.key, fromMe: true } }, ctx({ groups: true })), []);
});

test('stubs are kept as unsupported with the reason: a decryption failure, a message without content, any other stub', () => {
  // A message the library could not decrypt (decode-wa-message.js): the stub CIPHERTEXT, the error as its parameter, no content.
  const failed = inbound(
    wa(proto.Message.fromObject({}), { id: 'BAD1' }, { messageStubType: WAMessageStubType.CIPHERTEXT, messageStubParameters: ['Bad MAC'] }),
  );
  assert.equal(failed.providerMessageId, 'BAD1');
  assert.equal(failed.from, CUSTOMER);
  assert.equal(failed.type, 'unsupported');
  assert.deepEqual(failed.content, {
    errors: [
      {
        code: 'decryption_failed',
        title: "the message could not be decrypted (Bad MAC); the sender's phone is asked to send it again",
      },
    ],
    stub_type: 'CIPHERTEXT',
    // The real message may follow under the same id, and replaces it.
    placeholder: true,
  });
  // The service sent no content (the library's NO_MESSAGE_FOUND_ERROR_TEXT): the phone is asked for it.
  const absent = inbound(
    wa(
      proto.Message.fromObject({}),
      {},
      { messageStubType: WAMessageStubType.CIPHERTEXT, messageStubParameters: ['Message absent from node'] },
    ),
  );
  assert.equal((absent.content.errors as Array<{ code: string }>)[0]!.code, 'message_unavailable');
  // Any other stub (a changed security code here), named by the library's stub type.
  const notice = inbound(wa(null as unknown as proto.IMessage, {}, { messageStubType: WAMessageStubType.E2E_IDENTITY_CHANGED }));
  assert.deepEqual(notice.content, {
    errors: [{ code: 'stub_message', title: 'the chat app reported E2E_IDENTITY_CHANGED, which the embedded engine does not read' }],
    stub_type: 'E2E_IDENTITY_CHANGED',
  });
  // Our own device's stub has no customer who wrote it; a group's undecryptable message only where groups are kept.
  assert.deepEqual(one(wa(proto.Message.fromObject({}), { fromMe: true }, { messageStubType: WAMessageStubType.CIPHERTEXT })), []);
  const groupStub = wa(
    proto.Message.fromObject({}),
    { remoteJid: '120363025246125486@g.us', participant: `${CUSTOMER}@s.whatsapp.net`, remoteJidAlt: undefined },
    { messageStubType: WAMessageStubType.CIPHERTEXT, messageStubParameters: ['Bad MAC'] },
  );
  assert.deepEqual(one(groupStub), []);
  const kept = inbound(groupStub, ctx({ groups: true }));
  assert.equal(kept.content.stub_type, 'CIPHERTEXT');
  assert.equal(kept.chat, '120363025246125486@g.us');
  assert.deepEqual(kept.content.group, { id: '120363025246125486@g.us', participant: CUSTOMER });
  // A group's notices (a member added) are the library's group events (group.updated), not messages.
  const groupNotice = wa(
    proto.Message.fromObject({}),
    { remoteJid: '120363025246125486@g.us', participant: `${CUSTOMER}@s.whatsapp.net`, remoteJidAlt: undefined },
    { messageStubType: WAMessageStubType.GROUP_PARTICIPANT_ADD, messageStubParameters: [`${CUSTOMER}@s.whatsapp.net`] },
  );
  assert.deepEqual(one(groupNotice, ctx({ groups: true })), []);
});

test('empty messages are skipped; other kinds are kept as unsupported', () => {
  assert.deepEqual(one(wa(proto.Message.fromObject({ senderKeyDistributionMessage: { groupId: 'x' } }))), []);
  const event = inbound(wa(proto.Message.fromObject({ eventMessage: { name: 'Party' } })));
  assert.deepEqual(
    [event.type, event.content],
    ['unsupported', { errors: [{ code: 'unsupported_type', title: 'the embedded engine does not read eventMessage messages' }] }],
  );
});

test('the same delivery twice gives the same events (stored once by provider id)', () => {
  const m = wa(proto.Message.fromObject({ conversation: 'twice' }));
  assert.deepEqual(normalizeSocketEvent(REF, upsert(m, m), ctx()), [...one(m), ...one(m)]);
  assert.deepEqual(normalizeSocketEvent(REF, { event: 'messages.upsert', data: { messages: [m], type: 'append' } }, ctx()), one(m));
});

test('acks: server, delivery, read and played; errors with the reason; acks of received messages are not ours', () => {
  const S = proto.WebMessageInfo.Status;
  const key = { remoteJid: `${CUSTOMER_LID}@lid`, fromMe: true, id: '3EB0OURS' };
  const update = (status: number, extra: Record<string, unknown> = {}) => ({ key, update: { status, ...extra } });
  const events = normalizeSocketEvent(
    REF,
    { event: 'messages.update', data: [update(S.READ), update(S.SERVER_ACK), update(S.DELIVERY_ACK), update(S.PLAYED), update(S.PENDING)] },
    ctx(),
  );
  assert.deepEqual(
    events.map((e) => e.kind === 'message.status' && [e.providerMessageId, e.status]),
    [
      ['3EB0OURS', 'read'],
      ['3EB0OURS', 'sent'],
      ['3EB0OURS', 'delivered'],
      ['3EB0OURS', 'read'],
    ],
  );
  // An ack of Parley's own send names the Parley message (a send whose answer was lost is settled by it).
  const parleyId = '0190a5b4-3b8f-7c11-9d2f-5b6c7d8e9f02';
  const own = normalizeSocketEvent(
    REF,
    { event: 'messages.update', data: [{ key: { ...key, id: libraryMessageId(parleyId) }, update: { status: S.DELIVERY_ACK } }] },
    ctx(),
  );
  assert.deepEqual(
    own.map((e) => e.kind === 'message.status' && [e.status, e.callbackData]),
    [['delivered', parleyId]],
  );
  const failed = normalizeSocketEvent(
    REF,
    { event: 'messages.update', data: [update(S.ERROR, { messageStubParameters: ['463', 'restricted'] })] },
    ctx(),
  );
  assert.deepEqual(
    failed.map((e) => e.kind === 'message.status' && [e.status, e.error]),
    [['failed', { code: '463', title: ACK_463, message: 'restricted' }]],
  );
  const other = normalizeSocketEvent(
    REF,
    { event: 'messages.update', data: [{ key: { ...key, fromMe: false }, update: { status: S.READ } }] },
    ctx(),
  );
  assert.deepEqual(other, [], 'the business read a message on its phone: not an ack of ours');
  // Edits and reactions the library derives are read from the upsert instead.
  assert.deepEqual(
    normalizeSocketEvent(REF, { event: 'messages.update', data: [{ key, update: { message: { conversation: 'x' } } }] }, ctx()),
    [],
  );
  assert.deepEqual(normalizeSocketEvent(REF, { event: 'messages.reaction', data: [{ key, reaction: { text: '👍' } }] }, ctx()), []);
  assert.deepEqual(normalizeSocketEvent(REF, { event: 'connection.update', data: { connection: 'open' } }, ctx()), []);
  assert.deepEqual(normalizeSocketEvent(REF, { event: 'creds.update', data: {} }, ctx()), []);

  const receipts = normalizeSocketEvent(
    REF,
    {
      event: 'message-receipt.update',
      data: [
        {
          key: { remoteJid: '1203@g.us', fromMe: true, id: 'G1' },
          receipt: { userJid: `${CUSTOMER}@s.whatsapp.net`, receiptTimestamp: T },
        },
        {
          key: { remoteJid: '1203@g.us', fromMe: true, id: 'G1' },
          receipt: { userJid: `${CUSTOMER}@s.whatsapp.net`, readTimestamp: T + 1 },
        },
      ],
    },
    ctx({ groups: true }),
  );
  assert.deepEqual(
    receipts.map((e) => e.kind === 'message.status' && [e.status, e.timestamp.getTime()]),
    [
      ['delivered', T * 1000],
      ['read', (T + 1) * 1000],
    ],
  );
});

const ACK_463 = 'the account may not start new chats (restricted): the service refused the message';

test("a missed-call stub (the library writes one when a call times out, under the call's id) is the call timing out, not a stub", () => {
  const [missed] = one(wa(null as unknown as proto.IMessage, { id: 'CALL1' }, { messageStubType: WAMessageStubType.CALL_MISSED_VIDEO }));
  assert.deepEqual(missed, {
    kind: 'call',
    ref: REF,
    callId: 'CALL1',
    from: CUSTOMER,
    profileName: 'Ana',
    identities: [
      { type: 'chatapp_id', value: CUSTOMER },
      { type: 'linked_id', value: CUSTOMER_LID },
    ],
    status: 'timeout',
    video: true,
    timestamp: new Date(T * 1000),
  });
  // The library's note of a group call ringing is the call's own events' to report.
  const groupCall = wa(proto.Message.fromObject({ call: { callKey: Buffer.from('CALL2') } }), {
    remoteJid: '120363025246125486@g.us',
    participant: `${CUSTOMER}@s.whatsapp.net`,
  });
  assert.deepEqual(one(groupCall, ctx({ groups: true })), []);
});
