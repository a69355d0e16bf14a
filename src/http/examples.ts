/**
 * The examples of the OpenAPI document, in one place: one record per response shape (keyed by the
 * component schema's id), a few whole answers of operations whose body is not a named shape, and the
 * refusals each error status stands for. openapi.ts attaches them to the component schemas and to
 * every operation's responses (a `{data}` envelope or a page is put together from the shape's
 * record); test/api/openapi.test.ts validates each against the schema it illustrates, so a shape
 * that changes without its example fails there. The records share their ids and times: the message
 * below was sent on the channel below to the contact below.
 */
import { authorizationErrorPage } from './oauth/error-page.ts';

export const ORG_ID = '0196b1f2-0a00-7000-8000-0000000000a1';
/** An organization the example's credential does not reach. */
export const OTHER_ORG_ID = '0196b1f2-0a00-7000-8000-0000000000a2';
const USER_ID = '0196b1f2-0a00-7000-8000-0000000000b1';
export const CHANNEL_ID = '0196b1f2-0a00-7000-8000-0000000000c1';
const CONTACT_ID = '0196b1f2-0a00-7000-8000-0000000000d1';
const CONVERSATION_ID = '0196b1f2-0a00-7000-8000-0000000000e1';
const MESSAGE_ID = '0196b1f2-0a00-7000-8000-0000000000f1';
const TEMPLATE_ID = '0196b1f2-0a00-7000-8000-000000000101';
const API_KEY_ID = '0196b1f2-0a00-7000-8000-000000000111';
const ENDPOINT_ID = '0196b1f0-3a2c-7d41-8e5f-6a7b8c9d0e1f';
const ATTEMPT_ID = '0196b1f2-0a00-7000-8000-000000000131';
const SESSION_ID = '0196b1f2-0a00-7000-8000-000000000141';
const AUTHORIZATION_REQUEST_ID = '0196b1f2-0a00-7000-8000-000000000161';
const GRANT_ID = '0196b1f2-0a00-7000-8000-000000000171';
export const PHONE = '4915112345678';
const INVITATION_ID = '0196b1f2-0a00-7000-8000-000000000171';
const MEMBER_ID = '0196b1f2-0a00-7000-8000-0000000000b2';
const COMPANY_ID = '0196b1f2-0a00-7000-8000-000000000181';
const PIPELINE_ID = '0196b1f2-0a00-7000-8000-000000000201';
const DEAL_ID = '0196b1f2-0a00-7000-8000-000000000221';
const LIST_ID = '0196b1f2-0a00-7000-8000-000000000241';
const SEGMENT_ID = '0196b1f2-0a00-7000-8000-000000000251';

const CREATED = '2025-06-02T09:00:00.000Z';
const CHANGED = '2025-06-02T09:14:00.000Z';
const NOW = '2025-06-02T09:15:00.000Z';

/** The request id the error examples quote (any X-Request-Id the client sends is echoed instead). */
export const EXAMPLE_REQUEST_ID = '0196b1f2-0a00-7000-8000-0000000009ff';

const channel = {
  id: CHANNEL_ID,
  platform: 'chatapp_official',
  engine: 'official',
  name: 'Support',
  status: 'connected',
  status_reason: null,
  status_changed_at: CREATED,
  display_phone_number: '+49 30 1234567',
  sandbox: false,
  settings: { api_version: 'v23.0', phone_number_id: '106540352242922', waba_id: '102290129340398', throughput_per_second: 20 },
  credentials_set: ['access_token', 'app_secret', 'verify_token'],
  health: {
    last_error_code: null,
    last_error_message: null,
    last_error_at: null,
    held_until: null,
    reconnect_attempts: 0,
    next_retry_at: null,
    last_checked_at: NOW,
  },
  limits: { messaging_tier: '1000', messaging_tier_source: 'provider', daily_broadcast_cap: null },
  created_at: CREATED,
  updated_at: CREATED,
};

const template = {
  id: TEMPLATE_ID,
  channel_id: CHANNEL_ID,
  name: 'order_shipped',
  language: 'en_US',
  category: 'UTILITY',
  components: [{ type: 'BODY', text: 'Hi {{1}}, your order {{2}} is on its way.', example: { body_text: [['Ana', '#1042']] } }],
  status: 'approved',
  rejection_reason: null,
  provider_template_id: '1282713482967193',
  quality: { score: 'GREEN', flagged: false, reason: null, updated_at: CHANGED },
  provider_note: { event: 'APPROVED', reason: null, received_at: CHANGED },
  submitted_at: CREATED,
  created_at: CREATED,
  updated_at: CHANGED,
};

const apiKey = {
  id: API_KEY_ID,
  name: 'Shop backend',
  prefix: 'prl_Ab3x',
  last_four: 'x9Qz',
  permissions: ['messages:send', 'messages:read'],
  created_at: CREATED,
  last_used_at: CHANGED,
  expires_at: null,
  created_by: { type: 'user', id: USER_ID },
};

const user = {
  id: USER_ID,
  name: 'Ana Souza',
  email: 'ana@example.com',
  email_verified: true,
  timezone: 'Europe/Berlin',
  week_start: 'monday',
  created_at: CREATED,
};

const endpointHealth = { consecutive_failures: 0, failing_since: null, last_success_at: CHANGED, last_failure_at: null };

/** Also the base of the webhooks routes' own examples (http/v1/webhooks.ts). */
export const WEBHOOK_ENDPOINT_EXAMPLE = {
  id: ENDPOINT_ID,
  url: 'https://hooks.example.com/parley',
  description: 'CRM sync',
  event_types: ['message.new', 'message.status_update'],
  enabled: true,
  disabled_reason: null,
  disabled_at: null,
  previous_secret_expires_at: null,
  health: endpointHealth,
  created_at: '2025-06-01T08:00:00.000Z',
  updated_at: '2025-06-01T08:00:00.000Z',
};

const BOT_ID = '0196b1f2-0a00-7000-8000-0000000000f1';

/** Also the base of the bot routes' own examples (http/v1/bots.ts). */
export const BOT_EXAMPLE = {
  id: BOT_ID,
  name: 'Order assistant',
  url: 'https://bot.example.com/parley',
  channel_ids: [CHANNEL_ID],
  trigger: { type: 'keyword', operator: 'contains', keywords: ['order', 'delivery'] },
  expire_minutes: 30,
  stop_keyword: '#stop',
  debounce_ms: 3000,
  keep_open: true,
  enabled: true,
  created_at: CREATED,
  updated_at: CREATED,
};

export const CONVERSATION_OWNER_EXAMPLE = {
  conversation_id: CONVERSATION_ID,
  owner: 'bot',
  bot_id: BOT_ID,
  session: { id: '0196b1f2-0a00-7000-8000-0000000000f2', bot_id: BOT_ID, started_at: CHANGED, expires_at: '2025-06-02T09:44:00.000Z' },
};

const deliveryPolicy = {
  timeout_ms: 10000,
  retry_delays_ms: [5000, 300000, 1800000, 7200000, 18000000, 36000000],
  retry_jitter: 0.2,
  disable_after_ms: 432000000,
  disable_min_failures: 10,
  secret_rotation_overlap_ms: 86400000,
  max_endpoints: 20,
};

const oauthClient = { client_id: 'pcl_8mZk2xQv7LrT', name: 'Parley CLI' };
const consent = {
  client: oauthClient,
  scopes: [
    { name: 'channels:read', description: 'Read channels, their status and capabilities' },
    { name: 'messages:send', description: 'Send messages and change conversations' },
  ],
  organizations: [
    { organization_id: ORG_ID, organization_name: 'Acme GmbH', role: 'owner' },
    { organization_id: '0196b1f2-0a00-7000-8000-0000000000a2', organization_name: 'Acme Labs', role: 'member' },
  ],
  expires_at: '2025-06-02T09:25:00.000Z',
};

const registeredClient = {
  client_id: 'pcl_8mZk2xQv7LrT0aB1cD2eFg',
  name: 'Parley CLI',
  type: 'public',
  redirect_uris: ['http://127.0.0.1:53682/callback'],
  grant_types: ['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'],
  scopes: ['channels:read', 'messages:read', 'messages:send'],
  created_by: { type: 'user', id: USER_ID },
  created_at: CREATED,
  updated_at: CREATED,
};
const confidentialClient = {
  ...registeredClient,
  client_id: 'pcl_Q2wE3rT4yU5iO6pA7sD8fG',
  name: 'Shop backend',
  type: 'confidential',
  redirect_uris: ['https://shop.example.com/parley/callback'],
  grant_types: ['authorization_code', 'refresh_token'],
};
const CLIENT_SECRET = 'pcs_Vb7nM2kL9pQ4wE8rT1yU6iO3aS5dF0gH2jK4lZ7xC9v';

const qr = { qr: '2@Xk9c0bq1oJ…,hZ3mQ…,AQ4r…', qr_image: 'data:image/png;base64,iVBORw0KGgo…', expires_at: '2025-06-02T09:15:20.000Z' };

const group = {
  id: '120363025246125888@g.us',
  channel_id: CHANNEL_ID,
  subject: 'Order 10023',
  description: 'Delivery of order 10023: questions here',
  owner: '+4930123456789',
  created_at: CREATED,
  announcement: false,
  locked: true,
  members_can_add: false,
  join_approval: false,
  ephemeral_seconds: 0,
  size: 2,
  role: 'superadmin',
  participants: [
    { phone: '+4930123456789', lid: null, role: 'superadmin' },
    { phone: `+${PHONE}`, lid: '80221345678901', role: 'member' },
  ],
};

const broadcast = {
  id: '0196b1f2-0a00-7000-8000-000000000201',
  name: 'June newsletter',
  channel_id: CHANNEL_ID,
  template: {
    name: 'june_newsletter',
    language: 'en_US',
    variables: ['{{contact.name|there}}'],
    header: { type: 'image', link: 'https://cdn.example.com/june.jpg' },
    buttons: [{ index: 0, value: 'june?c={{contact.custom.code|none}}' }],
  },
  ab_test: {
    variants: [
      {
        name: 'june_newsletter',
        language: 'en_US',
        variables: ['{{contact.name|there}}'],
        header: { type: 'image', link: 'https://cdn.example.com/june.jpg' },
        buttons: [{ index: 0, value: 'june?c={{contact.custom.code|none}}' }],
      },
      { name: 'june_newsletter_short', language: 'en_US', variables: [], buttons: [{ index: 1, value: 'JUNE10' }] },
    ],
    test_share: 20,
    metric: 'read',
    decide_at: '2025-06-02T13:00:00.000Z',
  },
  winner_variant: 1,
  decided_at: '2025-06-02T13:00:00.000Z',
  audience: { segment_id: SEGMENT_ID },
  status: 'completed',
  send_at: CREATED,
  per_minute: 600,
  require_consent: false,
  quiet_hours: { start: '21:00', end: '08:00' },
  retry_marketing_limit_days: 3,
  skip_open_conversations: false,
  pause_reason: null,
  retry_round: 0,
  started_at: CREATED,
  finished_at: CHANGED,
  failure_reason: null,
  created_at: CREATED,
  updated_at: CHANGED,
};

const companyAddress = { line1: 'Friedrichstraße 123', line2: null, city: 'Berlin', region: null, postal_code: '10117', country: 'DE' };

/** The default pipeline's stages (domain/pipelines/defaults.ts), as an organization starts with them. */
const stages = [
  ['New', 10, 'open'],
  ['Qualified', 25, 'open'],
  ['Proposal', 50, 'open'],
  ['Negotiation', 75, 'open'],
  ['Won', 100, 'won'],
  ['Lost', 0, 'lost'],
].map(([name, probability, kind], position) => ({
  id: `0196b1f2-0a00-7000-8000-00000000021${position + 1}`,
  name: name as string,
  probability: probability as number,
  kind: kind as string,
  position,
}));

// The deal came from the conversation above, with its contact, for the company above; it is in Proposal.
const deal = {
  id: DEAL_ID,
  name: 'Acme: 40 seats',
  amount: 1250000,
  currency: 'EUR',
  pipeline_id: PIPELINE_ID,
  stage_id: stages[2]!.id,
  status: 'open',
  probability: 50,
  expected_close_date: '2025-07-31',
  owner_user_id: USER_ID,
  company_id: COMPANY_ID,
  contact_ids: [CONTACT_ID],
  conversation_id: CONVERSATION_ID,
  custom_fields: { source: 'chat' },
  stage_entered_at: CHANGED,
  created_at: CREATED,
  updated_at: CHANGED,
};

const TASK_ID = '0196b1f2-0a00-7000-8000-000000000251';
const LABEL_ID = '0196b1f2-0a00-7000-8000-000000000241';
const byUser = { type: 'user', id: USER_ID, user_id: USER_ID };

// The deal's follow-up: due, assigned, about the deal and its contact.
const task = {
  id: TASK_ID,
  title: 'Send the revised offer',
  notes: 'With the 40-seat discount we discussed.',
  due_at: '2025-06-05T09:00:00.000Z',
  assignee_user_id: USER_ID,
  priority: 'high',
  status: 'open',
  completed_at: null,
  completed_by: null,
  targets: [
    { kind: 'deal', id: DEAL_ID, display_name: 'Acme: 40 seats' },
    { kind: 'contact', id: CONTACT_ID, display_name: 'Ana Souza' },
  ],
  created_by: byUser,
  created_at: CREATED,
  updated_at: CREATED,
};

/** One record per response shape, keyed by its component schema id. */
export const SCHEMA_EXAMPLES: Record<string, unknown> = {
  RecordRef: { kind: 'deal', id: DEAL_ID, display_name: 'Acme: 40 seats' },
  Task: task,
  RelationshipLabel: {
    id: LABEL_ID,
    name: 'works at',
    inverse_name: 'employs',
    from_kind: 'contact',
    to_kind: 'company',
    created_at: CREATED,
    updated_at: CREATED,
  },
  // The contact works at the company, seen from the company.
  Relationship: {
    id: '0196b1f2-0a00-7000-8000-000000000261',
    label_id: LABEL_ID,
    label: 'employs',
    direction: 'incoming',
    related: { kind: 'contact', id: CONTACT_ID, display_name: 'Ana Souza' },
    from: { kind: 'contact', id: CONTACT_ID, display_name: 'Ana Souza' },
    to: { kind: 'company', id: COMPANY_ID, display_name: 'Acme GmbH' },
    created_by: { type: 'api_key', id: API_KEY_ID, user_id: null },
    created_at: CREATED,
  },
  Comment: {
    id: '0196b1f2-0a00-7000-8000-000000000271',
    record: { kind: 'deal', id: DEAL_ID, display_name: 'Acme: 40 seats' },
    body: 'They want to start in July.',
    author: byUser,
    created_at: CREATED,
    edited_at: CHANGED,
  },
  List: {
    id: LIST_ID,
    name: 'Key accounts',
    kind: 'company',
    description: 'The companies the account team looks after',
    entry_count: 1,
    created_at: CREATED,
    updated_at: CHANGED,
  },
  ListEntry: { record: { kind: 'company', id: COMPANY_ID, display_name: 'Acme GmbH' }, added_at: CHANGED },
  ListEntriesAdded: { added: [COMPANY_ID], existing: [] },
  Segment: {
    id: SEGMENT_ID,
    name: 'Engaged VIPs',
    description: 'VIPs who wrote in the last 30 days and may be written to',
    filter: {
      and: [
        { field: 'tags', op: 'has', value: 'vip' },
        { field: 'consents.chatapp', op: 'eq', value: 'granted' },
        { field: 'last_inbound_at', op: 'within', value: 'P30D' },
      ],
    },
    created_at: CREATED,
    updated_at: CHANGED,
  },
  SegmentCount: { count: 1234, counted_at: NOW },
  BroadcastAudience: { segment_id: SEGMENT_ID },
  Broadcast: broadcast,
  BroadcastAudienceCount: {
    total: 1246,
    sendable: 1203,
    skipped: {
      invalid_number: 4,
      duplicate: 2,
      suppressed: 21,
      opted_out: 6,
      consent_revoked: 10,
      no_consent: 0,
      provider_restricted: 3,
      open_conversation: 0,
    },
    counted_at: NOW,
  },
  BroadcastRecipient: {
    id: '0196b1f2-0a00-7000-8000-000000000202',
    contact_id: CONTACT_ID,
    phone: `+${PHONE}`,
    status: 'delivered',
    reason: null,
    message_id: MESSAGE_ID,
    error_code: null,
    parameters: ['Ada'],
    variant: 1,
    sent_at: CREATED,
    replied_at: null,
    updated_at: CHANGED,
  },
  BroadcastReport: {
    broadcast,
    recipients: 1246,
    by_status: { pending: 0, deferred: 0, skipped: 45, sent: 120, delivered: 740, read: 270, replied: 60, failed: 13 },
    skipped: { suppressed: 21, opted_out: 6, consent_revoked: 10, invalid_number: 4, duplicate: 2, marketing_limit: 2 },
    sent: 1203,
    rates: { delivered: 0.8894, read: 0.2743, replied: 0.0499, failed: 0.0108 },
    failed_by_code: { '131026': 9, '131049': 4 },
    opted_out: 3,
    over_time: {
      bucket: 'minute',
      points: [
        { at: '2025-06-02T09:00:00Z', sent: 240, delivered: 236, read: 80, replied: 14, failed: 2 },
        { at: '2025-06-02T13:00:00Z', sent: 963, delivered: 834, read: 250, replied: 46, failed: 11 },
      ],
    },
    variants: [
      {
        variant: 0,
        template: { name: 'june_newsletter', language: 'en_US' },
        recipients: 120,
        by_status: { pending: 0, deferred: 0, skipped: 0, sent: 10, delivered: 82, read: 20, replied: 6, failed: 2 },
        sent: 120,
        rates: { delivered: 0.9, read: 0.2167, replied: 0.05, failed: 0.0167 },
      },
      {
        variant: 1,
        template: { name: 'june_newsletter_short', language: 'en_US' },
        recipients: 1083,
        by_status: { pending: 0, deferred: 0, skipped: 0, sent: 110, delivered: 658, read: 250, replied: 54, failed: 11 },
        sent: 1083,
        rates: { delivered: 0.8883, read: 0.2807, replied: 0.0499, failed: 0.0102 },
      },
    ],
  },
  CompanyAddress: companyAddress,
  Company: {
    id: COMPANY_ID,
    name: 'Acme GmbH',
    domain: 'acme.com',
    phone: '+49301234567',
    address: companyAddress,
    owner_user_id: USER_ID,
    custom_fields: { industry: 'logistics' },
    created_at: CREATED,
    updated_at: CHANGED,
  },
  PipelineStage: stages[2],
  Pipeline: { id: PIPELINE_ID, name: 'Sales', is_default: true, stages, created_at: CREATED, updated_at: CREATED },
  BoardTotal: { currency: 'EUR', deal_count: 1, amount: 1250000, weighted_amount: 625000 },
  // A board of the default pipeline with one deal (in Proposal), one page per stage.
  PipelineBoard: {
    pipeline: { id: PIPELINE_ID, name: 'Sales', is_default: true },
    stages: stages.map((stage) => {
      const holds = stage.id === deal.stage_id;
      return {
        ...stage,
        deal_count: holds ? 1 : 0,
        totals: holds ? [{ currency: 'EUR', deal_count: 1, amount: 1250000, weighted_amount: 625000 }] : [],
        deals: holds ? [deal] : [],
        next_cursor: null,
      };
    }),
  },
  Deal: deal,
  Order: {
    id: '0196b1f2-0a00-7000-8000-000000000251',
    order_no: '1042',
    status: 'confirmed',
    payment_status: 'paid',
    contact_id: CONTACT_ID,
    conversation_id: CONVERSATION_ID,
    message_id: MESSAGE_ID,
    source: 'message',
    catalog_id: '1678073176620294',
    currency: 'EUR',
    items: [
      { product_retailer_id: 'beans-1kg', name: null, quantity: 2, unit_amount: 1890, amount: 3780 },
      { product_retailer_id: 'filter-100', name: null, quantity: 1, unit_amount: 450, amount: 450 },
    ],
    total_amount: 4230,
    note: 'Before Friday please',
    created_at: CREATED,
    updated_at: CHANGED,
  },
  OrderItem: { product_retailer_id: 'beans-1kg', name: 'Espresso beans 1 kg', quantity: 2, unit_amount: 1890, amount: 3780 },
  DealStageChange: {
    id: '0196b1f2-0a00-7000-8000-000000000231',
    pipeline_id: PIPELINE_ID,
    stage_id: stages[2]!.id,
    stage_name: 'Proposal',
    entered_at: CHANGED,
    left_at: null,
    changed_by: { type: 'oauth_client', id: 'pcl_8mZk2xQv7LrT', user_id: USER_ID },
  },
  Channel: channel,
  ChannelQr: qr,
  // An unofficial channel on the embedded engine: what a linked device cannot send as such goes as text.
  ChannelCapabilities: {
    platform: 'chatapp_unofficial',
    engine: 'embedded',
    message_types: [
      'text',
      'image',
      'document',
      'reaction',
      'poll',
      'buttons',
      'list',
      'single_product',
      'address',
      'message_status_query',
    ],
    native_types: ['text', 'image', 'document', 'reaction', 'poll'],
    simplified_types: ['buttons', 'list', 'single_product', 'address'],
    parley_types: ['message_status_query'],
    operations: [
      'messages.send',
      'messages.read',
      'channel.connect',
      'channel.qr',
      'channel.pairing_code',
      'channel.logout',
      'contacts.lookup',
    ],
    customer_service_window_hours: null,
  },
  ProviderProfile: { phone: PHONE, exists: true, chatapp_id: PHONE, name: 'Ana Souza' },
  // A group of an unofficial channel's number, which created it (its admin) for a customer's order.
  Group: group,
  GroupParticipantOutcome: { phone: `+${PHONE}`, ok: true, error: null },
  GroupInvite: { code: 'F3gZ8nKqT0aBcDeFgHiJkL', url: 'https://chat.whatsapp.com/F3gZ8nKqT0aBcDeFgHiJkL' },
  GroupJoin: { status: 'joined', group_id: group.id, group },
  PresenceSubscription: { phone: `+${PHONE}`, subscribed: true },
  // A business label of an unofficial channel's number, on a customer's chat and a group's.
  ChatLabel: {
    id: '3',
    channel_id: CHANNEL_ID,
    name: 'Paid',
    color: 5,
    chats: [`+${PHONE}`, '120363025246125888@g.us'],
    updated_at: '2025-06-02T09:15:00.000Z',
  },
  StatusPost: { id: '3EB0C127D7BACC83D6A1', channel_id: CHANNEL_ID, type: 'text', recipients: [`+${PHONE}`] },
  // A chat of an unofficial channel's phone: a customer's, pinned, with two unread messages.
  Chat: {
    id: `+${PHONE}`,
    kind: 'person',
    channel_id: CHANNEL_ID,
    conversation_id: CONVERSATION_ID,
    contact_id: CONTACT_ID,
    name: 'Ana Souza',
    last_message_preview: 'Is my order on its way?',
    last_message_at: NOW,
    unread_count: 2,
    unread: true,
    archived: false,
    pinned: true,
    pinned_at: CHANGED,
    muted_until: null,
  },
  ChatHistoryRequest: {
    chat_id: `+${PHONE}`,
    count: 50,
    before: { provider_message_id: '3EB0C767D26A1D8E9F10', at: CREATED },
    status: 'requested',
  },
  // What POST /v1/channels/{id}/media answers: the provider's id of an uploaded PDF, to send as content.media_id.
  UploadedMedia: { id: '1037543291543636', type: 'document', mime_type: 'application/pdf', size: 48213, file_name: 'Invoice 2025-06.pdf' },
  Template: template,
  // What POST /v1/messages answers: an outbound text message, queued for the dispatcher.
  Message: {
    id: MESSAGE_ID,
    channel_id: CHANNEL_ID,
    conversation_id: CONVERSATION_ID,
    contact_id: CONTACT_ID,
    broadcast_id: null,
    direction: 'outbound',
    to: PHONE,
    to_phone: PHONE,
    from_phone: '49301234567',
    type: 'text',
    content: { body: 'Hello from Parley' },
    status: 'queued',
    provider_message_id: null,
    error: null,
    edited_at: null,
    deleted_at: null,
    starred: false,
    pinned_until: null,
    media: null,
    created_at: NOW,
    updated_at: NOW,
  },
  // An inbound image's media, stored when it arrived.
  MessageMedia: {
    status: 'stored',
    url: `/v1/messages/${MESSAGE_ID}/media`,
    content_type: 'image/jpeg',
    size: 48213,
    sha256: '3b4c1e0f5a9d2c7b8e6f1a0d9c8b7a6f5e4d3c2b1a09f8e7d6c5b4a3928170f6',
    file_name: null,
    error: null,
  },
  MessageStatus: {
    message_id: MESSAGE_ID,
    status: 'delivered',
    provider_message_id: 'wamid.HBgNNDkxNTExMjM0NTY3OBUCABEYEjQ2',
    error: null,
    history: [
      { status: 'queued', at: NOW, error: null, pricing: null, conversation: null },
      {
        status: 'sent',
        at: '2025-06-02T09:15:01.000Z',
        error: null,
        pricing: { billable: true, pricing_model: 'PMP', category: 'utility', type: 'regular' },
        conversation: { id: '6ceb9d929c9bdc4f90e967a32f8639b4', origin: { type: 'utility' }, expiration_timestamp: '1748942101' },
      },
      { status: 'delivered', at: '2025-06-02T09:15:03.000Z', error: null, pricing: null, conversation: null },
    ],
    updated_at: '2025-06-02T09:15:03.000Z',
  },
  Conversation: {
    id: CONVERSATION_ID,
    channel_id: CHANNEL_ID,
    contact_id: CONTACT_ID,
    peer_phone: PHONE,
    status: 'open',
    snoozed_until: null,
    priority: 'high',
    labels: [{ id: '0196b1f2-0a00-7000-8000-0000000000d1', name: 'Billing', color: '#1f6feb' }],
    assignee_user_id: USER_ID,
    team_id: '0196b1f2-0a00-7000-8000-0000000000e1',
    last_message_at: NOW,
    last_inbound_at: CHANGED,
    window_expires_at: '2025-06-03T09:14:00.000Z',
    last_message_preview: 'Hello from Parley',
    unread_count: 2,
    last_read_at: CREATED,
    archived: false,
    pinned: false,
    muted_until: null,
    marked_unread: false,
    csat: null,
    contact: { id: CONTACT_ID, name: 'Ana Souza', phone: `+${PHONE}` },
    channel: { id: CHANNEL_ID, name: channel.name, platform: channel.platform },
    assignee: { id: USER_ID, name: user.name },
    team: { id: '0196b1f2-0a00-7000-8000-0000000000e1', name: 'Support' },
    bot_id: null,
    created_at: CREATED,
    updated_at: NOW,
  },
  ApiKey: apiKey,
  CreatedApiKey: { ...apiKey, last_used_at: null, secret: 'prl_Ab3xQ7mK2pW9vT4nR8sL1cY6hJ0dF5gx9Qz' },
  Health: {
    status: 'ok',
    version: '0.1.0',
    uptime_seconds: 86400,
    components: { database: { status: 'up', latency_ms: 1.2 }, queue: { status: 'up', latency_ms: 1.7 } },
  },
  UserSessionRecord: user,
  SessionInfo: {
    user,
    organization_id: ORG_ID,
    role: 'owner',
    permissions: ['messages:send', 'messages:read', 'channels:read', 'channels:write'],
    organizations: [{ organization_id: ORG_ID, organization_name: 'Acme GmbH', role: 'owner' }],
    session: { id: SESSION_ID, created_at: CREATED, expires_at: '2025-07-02T09:00:00.000Z' },
  },
  OAuthAuthorizationRequest: { id: AUTHORIZATION_REQUEST_ID, ...consent, redirect_uri: 'http://127.0.0.1:53682/callback' },
  OAuthRedirect: {
    redirect_to:
      'http://127.0.0.1:53682/callback?code=plc_Xq3vN8kTz0bW5mR2cY7pL4sJ9hF1dG6aE3uK8oI2nV0&state=af0ifjsldkj&iss=https%3A%2F%2Fparley.example.com',
  },
  DeviceAuthorization: {
    device_code: 'pld_Gm4tQ8vZ1xK7nB3rW9yC2hJ5sL0dF6aP8eU4iO1kT3',
    user_code: 'BCDF-GHJK',
    verification_uri: 'https://parley.example.com/app/device',
    verification_uri_complete: 'https://parley.example.com/app/device?user_code=BCDF-GHJK',
    expires_in: 600,
    interval: 5,
  },
  DeviceVerification: { user_code: 'BCDF-GHJK', ...consent },
  DeviceDecision: { user_code: 'BCDF-GHJK', status: 'approved', client: oauthClient },
  OAuthClient: registeredClient,
  CreatedOAuthClient: { ...confidentialClient, client_secret: CLIENT_SECRET },
  OAuthClientSecret: { client_id: confidentialClient.client_id, client_secret: CLIENT_SECRET },
  OAuthAuthorization: {
    id: GRANT_ID,
    client: { client_id: registeredClient.client_id, name: registeredClient.name },
    scopes: ['channels:read', 'messages:send'],
    organizations: [{ id: ORG_ID, name: 'Acme GmbH' }],
    created_at: CREATED,
    last_used_at: NOW,
  },
  Organization: { id: ORG_ID, name: 'Acme GmbH', role: 'owner', created_at: CREATED, updated_at: CHANGED },
  Member: { user_id: MEMBER_ID, name: 'Ana Lima', email: 'ana@example.com', role: 'admin', joined_at: CHANGED },
  Invitation: {
    id: INVITATION_ID,
    email: 'ana@example.com',
    role: 'member',
    invited_by_user_id: USER_ID,
    created_at: CREATED,
    expires_at: '2025-06-09T09:00:00.000Z',
  },
  CreatedInvitation: {
    id: INVITATION_ID,
    email: 'ana@example.com',
    role: 'member',
    invited_by_user_id: USER_ID,
    created_at: CREATED,
    expires_at: '2025-06-09T09:00:00.000Z',
    token: 'pli_Qm8vX2kR7tL0pZ4nW9cY3hJ6sB1dF5gA8eU2iO7kT0',
    url: 'https://parley.example.com/app/invitations#token=pli_Qm8vX2kR7tL0pZ4nW9cY3hJ6sB1dF5gA8eU2iO7kT0',
    mailed: false,
  },
  InvitationPreview: {
    organization_name: 'Acme GmbH',
    role: 'member',
    email: 'ana@example.com',
    inviter_name: 'Owner',
    account_exists: false,
    expires_at: '2025-06-09T09:00:00.000Z',
  },
  AcceptedInvitation: { organization_id: ORG_ID, user_id: MEMBER_ID, role: 'member', created: true },
  TokenResponse: {
    access_token: 'pla_Vb7nQ2xK9mZ4tR1wY6cH3jL8sD5fG0aP2eU7iO4kT9',
    token_type: 'Bearer',
    expires_in: 3600,
    scope: 'channels:read messages:read',
    refresh_token: 'plr_Hk2mW8qZ5xN1vB7tR4yC9jL3sD6fG0aP8eU2iO5kT1',
  },
  Introspection: {
    active: true,
    scope: 'channels:read messages:read',
    client_id: oauthClient.client_id,
    sub: '0196b1f2-0a00-7000-8000-000000000002',
    exp: 1748859300,
    iat: 1748855700,
    token_type: 'Bearer',
    organization_ids: [ORG_ID],
  },
  RevocationResult: {},
  AuthorizationServerMetadata: {
    issuer: 'https://parley.example.com',
    authorization_endpoint: 'https://parley.example.com/v1/oauth/authorize',
    token_endpoint: 'https://parley.example.com/v1/oauth/token',
    device_authorization_endpoint: 'https://parley.example.com/v1/oauth/device',
    introspection_endpoint: 'https://parley.example.com/v1/oauth/introspect',
    revocation_endpoint: 'https://parley.example.com/v1/oauth/revoke',
    grant_types_supported: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    scopes_supported: ['messages:read', 'messages:send', 'channels:read', 'channels:write'],
    authorization_response_iss_parameter_supported: true,
    service_documentation: 'https://parley.example.com/v1/docs',
  },
  PasswordChanged: { ended_sessions: 2 },
  SignupState: { open: true },
  SignedUp: { user, organization_id: ORG_ID },
  PasswordResetLink: {
    user_id: USER_ID,
    email: user.email,
    url: 'https://parley.example.com/app/reset-password#token=plp_Q2xvdWR5IHdpdGggYSBjaGFuY2Ugb2YgcmFpbgx9Qz',
    expires_at: '2025-06-02T10:15:00.000Z',
    mailed: false,
  },
  WebhookEndpointHealth: endpointHealth,
  WebhookEndpoint: WEBHOOK_ENDPOINT_EXAMPLE,
  WebhookAttempt: {
    id: ATTEMPT_ID,
    trigger: 'scheduled',
    attempted_at: CHANGED,
    status_code: 200,
    duration_ms: 84,
    response_body: 'ok',
    error: null,
  },
  WebhookDeliveryPolicy: deliveryPolicy,
  WebhookSettings: {
    endpoints: [WEBHOOK_ENDPOINT_EXAMPLE],
    event_types: [
      {
        type: 'message.status_update',
        description: 'An outbound message changed status',
        example: { message_id: MESSAGE_ID, conversation_id: CONVERSATION_ID, status: 'delivered' },
        reserved: false,
      },
      {
        type: 'commerce.order.updated',
        description: 'An order was placed, or its status or payment status changed',
        example: { order_id: '0196b1f2-5da1-7c11-9d2f-5b6c7d8e9f04', order_no: '1042', status: 'shipped', payment_status: 'paid' },
        reserved: false,
      },
    ],
    delivery: deliveryPolicy,
  },
};

/** Whole answers of operations whose success body is not a named shape (or another record of it), keyed by operation and status. */
export const OPERATION_EXAMPLES: Record<string, Record<string, unknown>> = {
  'GET /v1/events/stream': {
    200: [
      'retry: 2000',
      '',
      // The cursor of position 1042 (GET /v1/events hands out the same).
      'id: eyJwIjoxMDQyfQ',
      'event: message.status_update',
      `data: ${JSON.stringify({ id: '0196b1f2-1c9e-7a01-b2c3-d4e5f6a7b8c9', type: 'message.status_update', created_at: CREATED, data: { message_id: MESSAGE_ID, conversation_id: CONVERSATION_ID, status: 'delivered' } })}`,
      '',
      ': keepalive',
      '',
      '',
    ].join('\n'),
  },
  'GET /v1/health': {
    503: {
      status: 'unavailable',
      version: '0.1.0',
      uptime_seconds: 86400,
      components: { database: { status: 'down', error: 'connection refused' }, queue: { status: 'up', latency_ms: 1.7 } },
    },
  },
  'GET /v1/auth/sessions': {
    200: {
      data: [
        {
          id: SESSION_ID,
          current: true,
          user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/139.0',
          ip: '203.0.113.7',
          created_at: CREATED,
          last_seen_at: NOW,
          expires_at: '2025-07-02T09:00:00.000Z',
        },
      ],
      meta: { next_cursor: null },
    },
  },
  'GET /v1/channels/{channelID}/status': {
    200: {
      data: {
        status: 'connected',
        status_reason: null,
        status_changed_at: CREATED,
        health: channel.health,
        history: [
          { from: null, to: 'pending', reason: 'created', reason_code: null, at: CREATED },
          { from: 'pending', to: 'connected', reason: 'credentials verified', reason_code: null, at: CREATED },
        ],
      },
    },
  },
  'POST /v1/channels/{channelID}/connect': {
    200: {
      data: {
        channel: {
          ...channel,
          platform: 'chatapp_unofficial',
          status: 'pairing',
          display_phone_number: null,
          settings: { gateway_base: 'https://gateway.example.com', session: 'support', throughput_per_second: 1 },
          credentials_set: ['gateway_token'],
          status_changed_at: NOW,
          updated_at: NOW,
        },
        qr,
        // Asked with {"phone_number": "+49 30 1234567"}; null without one.
        pairing_code: { code: 'K7QD-2M9X', expires_at: qr.expires_at },
      },
    },
  },
  // An event page always says where to read on (events arrive later at the end).
  'GET /v1/events': {
    200: {
      data: [
        {
          id: '0196b1f2-0a00-7000-8000-000000000151',
          type: 'message.status_update',
          created_at: '2025-06-02T09:15:03.000Z',
          data: { message_id: MESSAGE_ID, conversation_id: CONVERSATION_ID, status: 'delivered' },
        },
      ],
      meta: { next_cursor: 'MDE5NmIxZjItMGEwMC03MDAwLTgwMDAtMDAwMDAwMDAwMTUx', has_more: false },
    },
  },
  'GET /v1/oauth/authorize': { 400: authorizationErrorPage('no application is registered with this client_id') },
  'POST /v1/templates/sync': { 200: { data: { created: 1, updated: 0, unchanged: 3, templates: [template] } } },
  'GET /v1/providers/chatapp_official/webhook': { 200: '1158201444' },
  'GET /v1/providers/chatapp_official/webhook/{channelID}': { 200: '1158201444' },
  'POST /v1/providers/chatapp_official/webhook': { 200: { received: true } },
  'POST /v1/providers/chatapp_official/webhook/{channelID}': { 200: { received: true } },
  'POST /v1/providers/chatapp_unofficial/webhook/{channelID}': { 200: { received: true } },
};
