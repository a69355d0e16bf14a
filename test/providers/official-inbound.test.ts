/**
 * The official inbound parser against every webhook kind the provider documents. Each fixture is
 * first checked against the documented shape (official-webhooks.schema.ts), then normalized.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeOfficialWebhook } from '../../src/providers/official/inbound.ts';
import type { InboundEvent } from '../../src/providers/provider.ts';
import { webhookProblems } from './official-webhooks.schema.ts';

const WABA = '102290129340398';
const PHONE_ID = '106540352242922';
const DISPLAY = '15550783881';
const CUSTOMER = '16505551234';
const TS = '1750090702';

function envelope(field: string, value: Record<string, unknown>, time?: number) {
  return { object: 'whatsapp_business_account', entry: [{ id: WABA, ...(time ? { time } : {}), changes: [{ field, value }] }] };
}

function parse(payload: unknown): InboundEvent[] {
  assert.deepEqual(webhookProblems(payload), [], 'the fixture has the documented shape');
  return normalizeOfficialWebhook(payload);
}

/** The one inbound message a `messages` webhook carrying `message` yields. */
function inbound(message: Record<string, unknown>): Extract<InboundEvent, { kind: 'message.inbound' }> {
  const events = parse(
    envelope('messages', {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: DISPLAY, phone_number_id: PHONE_ID },
      contacts: [{ profile: { name: 'Sheena Nelson' }, wa_id: CUSTOMER }],
      messages: [{ from: CUSTOMER, id: `wamid.${message.type}`, timestamp: TS, ...message }],
    }),
  );
  assert.equal(events.length, 1);
  const [event] = events;
  assert.equal(event!.kind, 'message.inbound');
  const m = event as Extract<InboundEvent, { kind: 'message.inbound' }>;
  assert.equal(m.ref, PHONE_ID);
  assert.equal(m.from, CUSTOMER);
  assert.equal(m.profileName, 'Sheena Nelson');
  assert.equal(m.timestamp.getTime(), Number(TS) * 1000);
  return m;
}

const media = { mime_type: 'image/jpeg', sha256: 'SfInY0gGKTsJlUWbwxC1k+FAD0FZHvzwfpvO0zX0GUI=', id: '1003383421387256' };
const context = { from: DISPLAY, id: 'wamid.asked' };

test('text, image, video, document, location, contacts, reaction and order keep their fields', () => {
  assert.deepEqual(inbound({ type: 'text', text: { body: 'Does it come in another color?' } }).content, {
    body: 'Does it come in another color?',
  });
  assert.deepEqual(inbound({ type: 'image', image: { ...media, caption: 'Taj Mahal' } }).content, {
    media_id: media.id,
    mime_type: media.mime_type,
    sha256: media.sha256,
    caption: 'Taj Mahal',
  });
  assert.deepEqual(inbound({ type: 'video', video: { ...media, mime_type: 'video/mp4' } }).content, {
    media_id: media.id,
    mime_type: 'video/mp4',
    sha256: media.sha256,
  });
  assert.deepEqual(inbound({ type: 'document', document: { ...media, mime_type: 'application/pdf', filename: 'receipt.pdf' } }).content, {
    media_id: media.id,
    mime_type: 'application/pdf',
    sha256: media.sha256,
    file_name: 'receipt.pdf',
  });
  const place = {
    address: '101 Forest Ave, Palo Alto, CA 94301',
    latitude: 37.44221496582,
    longitude: -122.16165924072,
    name: 'Philz Coffee',
    url: 'https://philzcoffee.com/',
  };
  assert.deepEqual(inbound({ type: 'location', location: place }).content, place);
  const card = {
    name: { formatted_name: 'Lucía Gómez', first_name: 'Lucía' },
    phones: [{ phone: '+1 (983) 555-2319', wa_id: '19835552319', type: 'MOBILE' }],
  };
  const contacts = inbound({ type: 'contacts', contacts: [card] });
  assert.equal(contacts.type, 'contact');
  assert.deepEqual(contacts.content, { contacts: [card] });
  assert.deepEqual(inbound({ type: 'reaction', reaction: { message_id: 'wamid.out', emoji: '👍' } }).content, {
    message_id: 'wamid.out',
    reaction: '👍',
  });
  const order = {
    catalog_id: '194836987003835',
    text: '',
    product_items: [{ product_retailer_id: 'di9ozbzfi4', quantity: 2, item_price: 30, currency: 'USD' }],
  };
  assert.deepEqual(inbound({ type: 'order', order }).content, order);
});

test('audio keeps voice and sticker keeps animated', () => {
  assert.deepEqual(inbound({ type: 'audio', audio: { ...media, mime_type: 'audio/ogg; codecs=opus', voice: true } }).content, {
    media_id: media.id,
    mime_type: 'audio/ogg; codecs=opus',
    sha256: media.sha256,
    voice: true,
  });
  assert.equal(inbound({ type: 'audio', audio: { ...media, mime_type: 'audio/mpeg', voice: false } }).content.voice, false);
  assert.deepEqual(inbound({ type: 'sticker', sticker: { ...media, mime_type: 'image/webp', animated: true } }).content, {
    media_id: media.id,
    mime_type: 'image/webp',
    sha256: media.sha256,
    animated: true,
  });
});

test('interactive button, list and flow (nfm) replies and quick-reply buttons keep what the customer chose, with the message they answer', () => {
  const button = inbound({
    type: 'interactive',
    context,
    interactive: { type: 'button_reply', button_reply: { id: 'cancel-button', title: 'Cancel' } },
  });
  assert.deepEqual(button.content, { type: 'button_reply', id: 'cancel-button', title: 'Cancel' });
  assert.equal(button.replyTo, 'wamid.asked');
  const list = inbound({
    type: 'interactive',
    context,
    interactive: {
      type: 'list_reply',
      list_reply: { id: 'priority_express', title: 'Priority Mail Express', description: 'Next Day to 2 Days' },
    },
  });
  assert.deepEqual(list.content, {
    type: 'list_reply',
    id: 'priority_express',
    title: 'Priority Mail Express',
    description: 'Next Day to 2 Days',
  });
  const flow = inbound({
    type: 'interactive',
    context,
    interactive: {
      type: 'nfm_reply',
      nfm_reply: { name: 'flow', body: 'Sent', response_json: '{"flow_token":"t-1","slot":"am","party":{"size":2}}' },
    },
  });
  assert.deepEqual(flow.content, {
    type: 'nfm_reply',
    name: 'flow',
    body: 'Sent',
    response_json: { flow_token: 't-1', slot: 'am', party: { size: 2 } },
  });
  const address = inbound({
    type: 'interactive',
    context,
    interactive: {
      type: 'nfm_reply',
      nfm_reply: { name: 'address_message', body: '1 Main St', response_json: '{"saved_address_id":"a1","values":{"city":"Pune"}}' },
    },
  });
  assert.deepEqual(address.content.response_json, { saved_address_id: 'a1', values: { city: 'Pune' } });
  assert.equal(address.content.name, 'address_message');
  const broken = inbound({
    type: 'interactive',
    context,
    interactive: { type: 'nfm_reply', nfm_reply: { body: 'Sent', response_json: 'not json' } },
  });
  assert.equal(broken.content.response_json, 'not json', 'a response that is not JSON is kept as sent');
  const nul = inbound({
    type: 'interactive',
    context,
    interactive: { type: 'nfm_reply', nfm_reply: { body: 'Sent', response_json: '{"note":"a\\u0000b"}' } },
  });
  assert.deepEqual(nul.content.response_json, { note: 'a\uFFFDb' }, 'text the database cannot store is replaced, as in the body');
});

test('a template quick-reply button stays a `button` message with its payload and text, apart from an interactive button_reply', () => {
  const quick = inbound({ type: 'button', context, button: { payload: 'unsubscribe-42', text: 'Unsubscribe' } });
  assert.equal(quick.type, 'button');
  assert.deepEqual(quick.content, { payload: 'unsubscribe-42', text: 'Unsubscribe' });
  assert.equal(quick.replyTo, 'wamid.asked');
});

test("a call permission reply keeps the customer's answer, whether it is permanent and when it lapses", () => {
  const reply = inbound({
    type: 'interactive',
    context,
    interactive: {
      type: 'call_permission_reply',
      call_permission_reply: { response: 'accept', is_permanent: false, expiration_timestamp: 1760000000, response_source: 'user_action' },
    },
  });
  assert.equal(reply.type, 'interactive');
  assert.deepEqual(reply.content, {
    type: 'call_permission_reply',
    response: 'accept',
    is_permanent: false,
    expiration_timestamp: 1760000000,
    response_source: 'user_action',
  });
  const refused = inbound({
    type: 'interactive',
    context,
    interactive: { type: 'call_permission_reply', call_permission_reply: { response: 'reject', is_permanent: true } },
  });
  assert.deepEqual(refused.content, { type: 'call_permission_reply', response: 'reject', is_permanent: true });
});

test('a forwarded message says so, and how often it was forwarded', () => {
  const forwarded = inbound({ type: 'text', text: { body: 'look at this' }, context: { from: DISPLAY, id: 'wamid.x', forwarded: true } });
  assert.deepEqual(forwarded.content, { body: 'look at this', forwarded: true });
  const often = inbound({
    type: 'image',
    image: media,
    context: { from: DISPLAY, id: 'wamid.y', forwarded: true, frequently_forwarded: true },
  });
  assert.equal(often.content.forwarded, true);
  assert.equal(often.content.frequently_forwarded, true);
  assert.equal(inbound({ type: 'text', text: { body: 'mine' } }).content.forwarded, undefined);
});

test('unsupported messages keep their error details', () => {
  const m = inbound({
    type: 'unsupported',
    errors: [
      {
        code: 131051,
        title: 'Message type unknown',
        message: 'Message type unknown',
        error_data: { details: 'Message type is currently not supported.' },
      },
    ],
  });
  assert.equal(m.type, 'unsupported');
  assert.deepEqual(m.content, {
    errors: [
      {
        code: '131051',
        title: 'Message type unknown',
        message: 'Message type unknown',
        details: 'Message type is currently not supported.',
      },
    ],
  });
});

test('a click-to-chat referral and a referred product stay in the message content', () => {
  const referral = {
    source_url: 'https://fb.me/3cr4Wqqkv',
    source_id: '120226305854810726',
    source_type: 'ad',
    body: 'Summer Succulents are here!',
    headline: 'Chat with us',
    media_type: 'image',
    image_url: 'https://scontent.xx.fbcdn.net/v/t45.1',
    ctwa_clid: 'Aff-n8ZTODiE79d22KtAwQKj9e',
    welcome_message: { text: 'Hi there! Let us know how we can help!' },
  };
  const ad = inbound({ type: 'text', text: { body: 'Hello! Can I get more info on this?' }, referral });
  assert.deepEqual(ad.content, { body: 'Hello! Can I get more info on this?', referral });
  const product = inbound({
    type: 'text',
    text: { body: 'Is this still available?' },
    context: { from: DISPLAY, id: 'wamid.product', referred_product: { catalog_id: '194836987003835', product_retailer_id: 'di9ozbzfi4' } },
  });
  assert.deepEqual(product.content, {
    body: 'Is this still available?',
    referred_product: { catalog_id: '194836987003835', product_retailer_id: 'di9ozbzfi4' },
  });
  assert.equal(product.replyTo, 'wamid.product');
});

test('a system message about a changed number becomes a number change, not a chat message', () => {
  const system = (s: Record<string, unknown>) =>
    parse(
      envelope('messages', {
        messaging_product: 'whatsapp',
        metadata: { display_phone_number: DISPLAY, phone_number_id: PHONE_ID },
        messages: [{ from: CUSTOMER, id: 'wamid.system', timestamp: TS, type: 'system', system: s }],
      }),
    );
  const current = system({
    body: 'User Sheena Nelson changed from 16505551234 to 12195555358',
    wa_id: '12195555358',
    type: 'user_changed_number',
  });
  assert.deepEqual(current, [
    {
      kind: 'contact.number_changed',
      ref: PHONE_ID,
      providerMessageId: 'wamid.system',
      from: CUSTOMER,
      to: '12195555358',
      timestamp: new Date(Number(TS) * 1000),
      description: 'User Sheena Nelson changed from 16505551234 to 12195555358',
    },
  ]);
  const older = system({ body: 'changed', new_wa_id: '12195555359', type: 'customer_changed_number' });
  assert.equal(older[0]!.kind, 'contact.number_changed');
  assert.equal((older[0] as { to: string }).to, '12195555359');
  const identity = system({
    body: 'Sheena Nelson’s security code changed',
    identity: 'DF2lS5v2W6x=',
    customer: CUSTOMER,
    type: 'customer_identity_changed',
  });
  assert.deepEqual(identity, [
    {
      kind: 'message.inbound',
      ref: PHONE_ID,
      providerMessageId: 'wamid.system',
      from: CUSTOMER,
      identities: [{ type: 'chatapp_id', value: CUSTOMER }],
      timestamp: new Date(Number(TS) * 1000),
      type: 'system',
      content: { type: 'customer_identity_changed', body: 'Sheena Nelson’s security code changed', identity: 'DF2lS5v2W6x=' },
      notice: true,
    },
  ]);
  const renamed = system({ body: 'security code changed', user: CUSTOMER, type: 'user_identity_changed' });
  assert.deepEqual((renamed[0] as { content: unknown }).content, { type: 'user_identity_changed', body: 'security code changed' });
});

test('statuses keep the pricing and conversation the provider reports; a deleted status deletes the message it names', () => {
  const conversation = { id: '6ceb9d929c9bdc4f90e967a32f8639b4', expiration_timestamp: '1750350173', origin: { type: 'service' } };
  const pricing = { billable: false, pricing_model: 'PMP', category: 'service', type: 'free_customer_service' };
  const events = parse(
    envelope('messages', {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: DISPLAY, phone_number_id: PHONE_ID },
      statuses: [
        { id: 'wamid.out', status: 'sent', timestamp: TS, recipient_id: CUSTOMER, conversation, pricing },
        { id: 'wamid.in', status: 'deleted', timestamp: TS, recipient_id: CUSTOMER },
      ],
    }),
  );
  assert.deepEqual(events, [
    {
      kind: 'message.status',
      ref: PHONE_ID,
      providerMessageId: 'wamid.out',
      status: 'sent',
      timestamp: new Date(Number(TS) * 1000),
      pricing,
      conversation,
    },
    { kind: 'message.deleted', ref: PHONE_ID, providerMessageId: 'wamid.in', timestamp: new Date(Number(TS) * 1000) },
  ]);
});

test('errors at the change level (system, app or account faults) are reported for the number, not dropped', () => {
  const events = parse(
    envelope('messages', {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: DISPLAY, phone_number_id: PHONE_ID },
      errors: [
        {
          code: 130429,
          title: 'Rate limit hit',
          message: 'Rate limit hit',
          error_data: { details: 'Message failed to send because there were too many messages sent from this phone number' },
          href: '/documentation/business-messaging/whatsapp/support/error-codes',
        },
      ],
    }),
  );
  assert.deepEqual(events, [
    {
      kind: 'channel.errors',
      ref: PHONE_ID,
      errors: [
        {
          code: '130429',
          title: 'Rate limit hit',
          message: 'Rate limit hit',
          details: 'Message failed to send because there were too many messages sent from this phone number',
          href: '/documentation/business-messaging/whatsapp/support/error-codes',
        },
      ],
    },
  ]);
});

test('the three group webhooks become group updates of the number, with what changed', () => {
  const group = (field: string, item: Record<string, unknown>) =>
    parse(
      envelope(field, {
        messaging_product: 'whatsapp',
        metadata: { display_phone_number: DISPLAY, phone_number_id: PHONE_ID },
        groups: [{ timestamp: 1750269342, group_id: 'Y2FwaV9ncm91cDox', request_id: '784D93D0C4', ...item }],
      }),
    );
  const participants = [
    { input: '16505551234', wa_id: '16505551234' },
    { input: '16505551235', wa_id: '16505551235' },
  ];
  assert.deepEqual(
    group('group_lifecycle_update', {
      type: 'group_create',
      subject: 'Launch',
      description: 'Our launch group',
      added_participants: participants,
    }),
    [
      {
        kind: 'group.update',
        ref: PHONE_ID,
        field: 'group_lifecycle_update',
        groupId: 'Y2FwaV9ncm91cDox',
        change: 'group_create',
        requestId: '784D93D0C4',
        details: { subject: 'Launch', description: 'Our launch group', added_participants: participants },
        timestamp: new Date(1750269342 * 1000),
      },
    ],
  );
  const settings = group('group_settings_update', {
    type: 'group_settings_update',
    profile_picture: { mime_type: 'image/jpeg', sha256: 'SfInY0gGKTsJ' },
  });
  assert.deepEqual((settings[0] as { details: unknown }).details, { profile_picture: { mime_type: 'image/jpeg', sha256: 'SfInY0gGKTsJ' } });
  for (const field of ['group_participants_update', 'group_participant_update']) {
    const left = group(field, { type: 'group_remove_participants', removed_participants: participants });
    assert.equal(left.length, 1, field);
    assert.equal((left[0] as { change: string }).change, 'group_remove_participants');
    assert.deepEqual((left[0] as { details: unknown }).details, { removed_participants: participants });
  }
});

test('statuses, failed ones with their errors', () => {
  const events = parse(
    envelope('messages', {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: DISPLAY, phone_number_id: PHONE_ID },
      statuses: [
        {
          id: 'wamid.out',
          status: 'delivered',
          timestamp: TS,
          recipient_id: CUSTOMER,
          biz_opaque_callback_data: 'parley-id',
          pricing: { billable: true, pricing_model: 'PMP', category: 'utility' },
        },
        {
          id: 'wamid.out2',
          status: 'failed',
          timestamp: TS,
          recipient_id: CUSTOMER,
          errors: [
            {
              code: 131026,
              title: 'Message undeliverable',
              message: 'Message undeliverable',
              error_data: { details: 'Message Undeliverable.' },
            },
          ],
        },
      ],
    }),
  );
  assert.deepEqual(events, [
    {
      kind: 'message.status',
      ref: PHONE_ID,
      providerMessageId: 'wamid.out',
      status: 'delivered',
      timestamp: new Date(Number(TS) * 1000),
      callbackData: 'parley-id',
      pricing: { billable: true, pricing_model: 'PMP', category: 'utility' },
    },
    {
      kind: 'message.status',
      ref: PHONE_ID,
      providerMessageId: 'wamid.out2',
      status: 'failed',
      timestamp: new Date(Number(TS) * 1000),
      error: { code: '131026', title: 'Message undeliverable', message: 'Message Undeliverable.' },
    },
  ]);
});

test('template status, category and quality updates name the business account and keep the category', () => {
  const base = { message_template_id: 1689556908129832, message_template_name: 'order_confirmation', message_template_language: 'en_US' };
  assert.deepEqual(
    parse(envelope('message_template_status_update', { event: 'APPROVED', ...base, reason: 'NONE', message_template_category: 'UTILITY' })),
    [
      {
        kind: 'template.status',
        account: WABA,
        providerTemplateId: '1689556908129832',
        name: 'order_confirmation',
        language: 'en_US',
        event: 'APPROVED',
        status: 'approved',
        category: 'UTILITY',
      },
    ],
  );
  const rejected = parse(
    envelope('message_template_status_update', {
      event: 'REJECTED',
      ...base,
      reason: 'INCORRECT_CATEGORY',
      message_template_category: 'MARKETING',
    }),
  );
  assert.equal((rejected[0] as { reason?: string }).reason, 'INCORRECT_CATEGORY');
  assert.deepEqual(parse(envelope('template_category_update', { ...base, previous_category: 'UTILITY', new_category: 'MARKETING' })), [
    {
      kind: 'template.category',
      account: WABA,
      providerTemplateId: '1689556908129832',
      name: 'order_confirmation',
      language: 'en_US',
      category: 'MARKETING',
    },
  ]);
  assert.deepEqual(
    parse(envelope('message_template_quality_update', { previous_quality_score: 'GREEN', new_quality_score: 'RED', ...base })),
    [
      {
        kind: 'template.quality',
        account: WABA,
        providerTemplateId: '1689556908129832',
        name: 'order_confirmation',
        language: 'en_US',
        quality: 'RED',
        previousQuality: 'GREEN',
      },
    ],
  );
});

test('account updates map to channel health by business account: disabled and deleted block, reinstated restores, violations warn', () => {
  const at = 1743451903;
  const health = (value: Record<string, unknown>) => parse(envelope('account_update', value, at));
  assert.deepEqual(health({ event: 'DISABLED_UPDATE', ban_info: { waba_ban_state: 'DISABLE', waba_ban_date: 'April 17, 2025' } }), [
    {
      kind: 'channel.health',
      account: WABA,
      effect: 'blocked',
      code: 'DISABLED_UPDATE/DISABLE',
      message: 'the business account was disabled on April 17, 2025',
      timestamp: new Date(at * 1000),
    },
  ]);
  const reinstated = health({
    event: 'DISABLED_UPDATE',
    ban_info: { waba_ban_state: 'REINSTATE', waba_ban_date: 'April 17, 2025' },
  })[0] as Extract<InboundEvent, { kind: 'channel.health' }>;
  assert.equal(reinstated.effect, 'restored');
  assert.deepEqual(reinstated.lifts, ['DISABLED_UPDATE/DISABLE']);
  assert.equal(
    (health({ event: 'DISABLED_UPDATE', ban_info: { waba_ban_state: 'SCHEDULE_FOR_DISABLE' } })[0] as { effect: string }).effect,
    'degraded',
  );
  assert.equal((health({ event: 'ACCOUNT_DELETED' })[0] as { effect: string }).effect, 'blocked');
  const violation = health({ event: 'ACCOUNT_VIOLATION', violation_info: { violation_type: 'ADULT' } })[0] as Extract<
    InboundEvent,
    { kind: 'channel.health' }
  >;
  assert.deepEqual(
    [violation.effect, violation.code, violation.message],
    ['degraded', 'ACCOUNT_VIOLATION', "the business account violated the provider's policies (ADULT)"],
  );
  const restricted = health({
    event: 'ACCOUNT_RESTRICTION',
    restriction_info: [{ restriction_type: 'RESTRICTED_CUSTOMER_INITIATED_MESSAGING', expiration: 1667243352 }],
  });
  assert.equal((restricted[0] as { effect: string }).effect, 'blocked');
  const partial = health({ event: 'ACCOUNT_RESTRICTION', restriction_info: [{ restriction_type: 'RESTRICTED_BIZ_INITIATED_MESSAGING' }] });
  assert.equal((partial[0] as { effect: string }).effect, 'degraded');
  const uninstalled = health({
    event: 'PARTNER_APP_UNINSTALLED',
    waba_info: { waba_id: '184943124712545', owner_business_id: '1284923862322270', partner_app_id: '869361281603019' },
  });
  assert.equal(
    (uninstalled[0] as { account: string }).account,
    '184943124712545',
    "a partner event names the account in waba_info, entry.id is the partner's",
  );
  assert.equal((uninstalled[0] as { effect: string }).effect, 'blocked');
  assert.deepEqual(
    health({ event: 'BUSINESS_PRIMARY_LOCATION_COUNTRY_UPDATE', country: 'IN' }),
    [],
    'events that change nothing for sending yield nothing',
  );
});

test('number quality updates name the account and the display number: flagged and downgraded warn, upgrades change nothing', () => {
  const at = 1748454394;
  const quality = (value: Record<string, unknown>) =>
    parse(envelope('phone_number_quality_update', { display_phone_number: DISPLAY, ...value }, at));
  assert.deepEqual(quality({ event: 'FLAGGED', current_limit: 'TIER_10K' }), [
    {
      kind: 'channel.health',
      account: WABA,
      phone: DISPLAY,
      effect: 'degraded',
      code: 'FLAGGED',
      message: 'the number was flagged for low quality; its messaging limit may be lowered',
      timestamp: new Date(at * 1000),
    },
  ]);
  const down = quality({ event: 'DOWNGRADE', old_limit: 'TIER_10K', current_limit: 'TIER_1K' })[0] as Extract<
    InboundEvent,
    { kind: 'channel.health' }
  >;
  assert.equal(down.message, "the number's messaging limit was lowered to TIER_1K (was TIER_10K)");
  assert.deepEqual(quality({ event: 'THROUGHPUT_UPGRADE', current_limit: 'TIER_UNLIMITED' }), []);
  assert.deepEqual(quality({ event: 'UNFLAGGED', current_limit: 'TIER_10K' }), []);
});

test('every documented template event maps to a known status, or keeps it; none becomes a status of its own', () => {
  const base = { message_template_id: 1689556908129832, message_template_name: 'order_confirmation', message_template_language: 'en_US' };
  const decide = (event: string, extra: Record<string, unknown> = {}) => {
    const [e] = parse(envelope('message_template_status_update', { event, ...base, reason: 'NONE', ...extra }));
    return e as Extract<InboundEvent, { kind: 'template.status' }>;
  };
  const expected: Record<string, { status?: string; flagged?: boolean; archive?: true; restore?: true }> = {
    APPROVED: { status: 'approved' },
    PENDING: { status: 'pending' },
    IN_APPEAL: { status: 'pending' },
    REJECTED: { status: 'rejected' },
    LIMIT_EXCEEDED: { status: 'rejected' },
    PAUSED: { status: 'paused' },
    DISABLED: { status: 'disabled' },
    PENDING_DELETION: { status: 'disabled' },
    DELETED: { status: 'disabled' },
    ARCHIVED: { status: 'disabled', archive: true },
    UNARCHIVED: { restore: true },
    REINSTATED: { status: 'approved', flagged: false },
    FLAGGED: { flagged: true },
    LOCKED: {},
    UNLOCKED: {},
  };
  for (const [event, want] of Object.entries(expected)) {
    const e = decide(event);
    assert.equal(e.kind, 'template.status', event);
    assert.equal(e.event, event);
    assert.equal(e.status, want.status, `${event}: status`);
    assert.equal(e.flagged, want.flagged, `${event}: flagged`);
    assert.equal(e.archive, want.archive, `${event}: archive`);
    assert.equal(e.restore, want.restore, `${event}: restore`);
    assert.equal(e.unknown, undefined, `${event} is documented`);
  }

  const unknown = normalizeOfficialWebhook(envelope('message_template_status_update', { event: 'SUNSET', ...base, reason: 'NONE' }));
  assert.equal((unknown[0] as { status?: string }).status, undefined, 'an event the provider does not document is never a status');
  assert.equal((unknown[0] as { unknown?: boolean }).unknown, true);
  assert.equal((unknown[0] as { event: string }).event, 'SUNSET');

  assert.equal(
    decide('PAUSED', { other_info: { title: 'FIRST_PAUSE', description: 'Your WhatsApp message template has been paused for 3 hours.' } })
      .reason,
    'FIRST_PAUSE: Your WhatsApp message template has been paused for 3 hours.',
    "a pause's title and description are its reason",
  );
  assert.equal(decide('FLAGGED', { reason: 'INCORRECT_CATEGORY' }).reason, 'INCORRECT_CATEGORY');
  assert.equal(
    decide('REJECTED', {
      reason: 'INVALID_FORMAT',
      rejection_info: { reason: 'Parameters are next to each other.', recommendation: 'Separate them with text.' },
    }).reason,
    'INVALID_FORMAT: Parameters are next to each other. Separate them with text.',
  );
  assert.equal(decide('DISABLED', { disable_info: { disable_date: 1751234563 } }).reason, 'disabled on 2025-06-29T22:02:43.000Z');
  assert.equal(decide('APPROVED').reason, undefined, 'NONE is no reason');
});
