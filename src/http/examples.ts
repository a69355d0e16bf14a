/**
 * The examples of the OpenAPI document, in one place: one record per response shape (keyed by the
 * component schema's id), a few whole answers of operations whose body is not a named shape, and the
 * refusals each error status stands for. openapi.ts attaches them to the component schemas and to
 * every operation's responses (a `{data}` envelope or a page is put together from the shape's
 * record); test/api/openapi.test.ts validates each against the schema it illustrates, so a shape
 * that changes without its example fails there. The records share their ids and times: the message
 * below was sent on the channel below to the contact below.
 */
import { DomainError } from '../domain/errors.ts';
import { HttpError, type ApiError } from './errors.ts';
import { MAX_ENDPOINTS_PER_ORGANIZATION } from '../domain/webhooks/deps.ts';
import { SIGNUP_CLOSED } from '../domain/users/signup.ts';
import { authorizationErrorPage } from './oauth/error-page.ts';
import { unreachedOrganization } from './auth/authenticate.ts';
import { windowClosedDetail } from './v1/messages.presenters.ts';

const ORG_ID = '0196b1f2-0a00-7000-8000-0000000000a1';
/** An organization the example's credential does not reach. */
const OTHER_ORG_ID = '0196b1f2-0a00-7000-8000-0000000000a2';
const USER_ID = '0196b1f2-0a00-7000-8000-0000000000b1';
const CHANNEL_ID = '0196b1f2-0a00-7000-8000-0000000000c1';
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
const PHONE = '4915112345678';
const INVITATION_ID = '0196b1f2-0a00-7000-8000-000000000171';
const MEMBER_ID = '0196b1f2-0a00-7000-8000-0000000000b2';

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

/** One record per response shape, keyed by its component schema id. */
export const SCHEMA_EXAMPLES: Record<string, unknown> = {
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
  // What POST /v1/channels/{id}/media answers: the provider's id of an uploaded PDF, to send as content.media_id.
  UploadedMedia: { id: '1037543291543636', type: 'document', mime_type: 'application/pdf', size: 48213, file_name: 'Invoice 2025-06.pdf' },
  Template: template,
  // What POST /v1/messages answers: an outbound text message, queued for the dispatcher.
  Message: {
    id: MESSAGE_ID,
    channel_id: CHANNEL_ID,
    conversation_id: CONVERSATION_ID,
    contact_id: CONTACT_ID,
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
    assignee_user_id: USER_ID,
    last_message_at: NOW,
    last_inbound_at: CHANGED,
    window_expires_at: '2025-06-03T09:14:00.000Z',
    last_message_preview: 'Hello from Parley',
    unread_count: 2,
    last_read_at: CREATED,
    contact: { id: CONTACT_ID, name: 'Ana Souza', phone: `+${PHONE}` },
    channel: { id: CHANNEL_ID, name: channel.name, platform: channel.platform },
    assignee: { id: USER_ID, name: user.name },
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
        description: "An order's or its payment's state changed (no order source emits it yet)",
        example: { order_id: '0196b1f2-5da1-7c11-9d2f-5b6c7d8e9f04', order_no: 'A-10023', status: 'shipped', payment_status: 'paid' },
        reserved: true,
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

/** What an operation's error examples need to know of it. */
export type ErrorContext = {
  /** `METHOD /path` as in the document. */
  operation: string;
  public: boolean;
  sessionOnly: boolean;
  permission?: string;
  /** The first required member of the request body (else its first member, sent with the wrong type), and its JSON type. */
  bodyField?: { name: string; type: string; required: boolean };
  /** A query parameter with a lower bound (limit). */
  pagedQuery: boolean;
};

export type ErrorExample = { summary: string; error: ApiError; retryAfter?: number };

/** What a path parameter names, as the not-found answers say it. */
const RESOURCES: Record<string, string> = {
  keyID: 'API key',
  channelID: 'channel',
  contactID: 'contact',
  conversationID: 'conversation',
  messageID: 'message',
  noteID: 'note',
  sessionID: 'session',
  templateID: 'template',
  endpointID: 'webhook endpoint',
  requestID: 'authorization request',
  clientID: 'OAuth client',
  grantID: 'authorization',
  organizationID: 'organization',
  userID: 'member',
  invitationID: 'invitation',
  tag: 'tag assignment',
  phone: 'contact',
};

/** Not-found answers whose resource is not the one the last path parameter names. */
const NOT_FOUND: Record<string, string> = {
  'PUT /v1/contacts/{contactID}/consent/{channel}': 'contact',
  'DELETE /v1/contacts/{contactID}/suppressions/{channel}': 'suppression',
  'POST /v1/settings/developer/webhooks/deliveries/{messageID}/retry': 'webhook message',
  'POST /v1/settings/developer/webhooks/endpoints': 'channel',
  'POST /v1/oauth/device/lookup': 'device authorization',
  'POST /v1/oauth/device/approve': 'device authorization',
  'POST /v1/oauth/device/deny': 'device authorization',
  'POST /v1/invitations/lookup': 'invitation',
  'POST /v1/invitations/accept': 'invitation',
};

/** Conflicts and refusals the route groups answer, by operation. */
const CONFLICTS: Array<[operation: string, example: ErrorExample]> = [
  [
    'POST /v1/messages',
    {
      summary: 'Channel not connected',
      error: new DomainError('conflict', `channel ${CHANNEL_ID} is disconnected; it must be connected to send`, {
        extra: { channel_status: 'disconnected' },
      }),
    },
  ],
  [
    'POST /v1/channels/{channelID}/connect',
    {
      summary: 'Already connected',
      error: new DomainError('conflict', 'channel is already connected; disconnect it first to pair another phone'),
    },
  ],
  [
    'GET /v1/channels/{channelID}/qr',
    {
      summary: 'Not pairing',
      error: new DomainError('conflict', `channel is disconnected: POST /v1/channels/${CHANNEL_ID}/connect first`),
    },
  ],
  [
    'POST /v1/contacts',
    {
      summary: 'Identifier taken',
      error: new DomainError('conflict', 'another contact already has this phone_number', {
        fieldErrors: [{ pointer: '/phone_number', location: 'body', message: 'already used by another contact' }],
      }),
    },
  ],
  [
    'PATCH /v1/contacts/{contactID}',
    {
      summary: 'Identifier taken',
      error: new DomainError('conflict', 'another contact already has this email', {
        fieldErrors: [{ pointer: '/email', location: 'body', message: 'already used by another contact' }],
      }),
    },
  ],
  ['POST /v1/contacts/lookup', { summary: 'Ambiguous', error: new DomainError('conflict', 'the identifiers match 2 different contacts') }],
  [
    'POST /v1/templates',
    { summary: 'Template exists', error: new DomainError('conflict', 'template order_shipped (en_US) exists on this channel') },
  ],
  [
    'POST /v1/templates/{templateID}/submit',
    {
      summary: 'Not a draft',
      error: new DomainError('conflict', 'template is approved; only draft or rejected templates can be submitted'),
    },
  ],
  [
    'POST /v1/settings/developer/webhooks/endpoints',
    {
      summary: 'Too many endpoints',
      error: new DomainError(
        'conflict',
        `an organization has at most ${MAX_ENDPOINTS_PER_ORGANIZATION} webhook endpoints; delete one first`,
      ),
    },
  ],
  [
    'GET /v1/oauth/authorization-requests/{requestID}',
    { summary: 'Already decided', error: new DomainError('conflict', 'this authorization request was already approved') },
  ],
  [
    'POST /v1/oauth/authorization-requests/{requestID}/approve',
    { summary: 'Already decided', error: new DomainError('conflict', 'this authorization request was already approved') },
  ],
  [
    'POST /v1/oauth/authorization-requests/{requestID}/deny',
    { summary: 'Already decided', error: new DomainError('conflict', 'this authorization request was already approved') },
  ],
  [
    'POST /v1/oauth/device/lookup',
    { summary: 'Already decided', error: new DomainError('conflict', 'this device authorization was already denied') },
  ],
  [
    'POST /v1/oauth/device/approve',
    { summary: 'Already decided', error: new DomainError('conflict', 'this device authorization was already approved') },
  ],
  [
    'POST /v1/oauth/device/deny',
    { summary: 'Already decided', error: new DomainError('conflict', 'this device authorization was already approved') },
  ],
  [
    'POST /v1/oauth/clients/{clientID}/secret',
    { summary: 'Public client', error: new DomainError('conflict', 'a public client has no secret: it proves itself with PKCE') },
  ],
  [
    'POST /v1/organizations/{organizationID}/leave',
    {
      summary: 'Last owner',
      error: new DomainError('conflict', 'you are the last owner: organization would have no owner: make another member an owner first'),
    },
  ],
  [
    'PATCH /v1/organizations/{organizationID}/members/{userID}',
    {
      summary: 'Last owner',
      error: new DomainError('conflict', 'the organization would have no owner: make another member an owner first'),
    },
  ],
  [
    'DELETE /v1/organizations/{organizationID}/members/{userID}',
    {
      summary: 'Last owner',
      error: new DomainError('conflict', 'the organization would have no owner: make another member an owner first'),
    },
  ],
  [
    'POST /v1/organizations/{organizationID}/invitations',
    {
      summary: 'Already a member',
      error: new DomainError('conflict', 'ana@example.com is already a member of this organization', {
        fieldErrors: [{ pointer: '/email', location: 'body', message: 'already a member of this organization' }],
      }),
    },
  ],
  [
    'POST /v1/invitations/accept',
    {
      summary: 'Sign in first',
      error: new DomainError('conflict', 'an account with the email ana@example.com exists: sign in, then open the link again to accept'),
    },
  ],
  [
    '',
    {
      summary: 'Conflict',
      error: new DomainError('conflict', 'the channel changed while the request was served; read it again and retry'),
    },
  ],
];

const NOT_A_MEMBER: ErrorExample = {
  summary: 'Not a member',
  error: new DomainError('forbidden', `not a member of organization ${ORG_ID}: choose organizations you belong to`, {
    fieldErrors: [{ pointer: '/organization_ids/0', location: 'body', message: 'not an organization you are a member of' }],
  }),
};
const NOT_A_SESSION: ErrorExample = {
  summary: 'Not a session',
  error: new DomainError('forbidden', 'this operation needs a dashboard session'),
};
const REQUEST_EXPIRED: ErrorExample = {
  summary: 'Expired',
  error: new DomainError('gone', 'this authorization request expired: go back to the application and start again'),
};
const DEVICE_EXPIRED: ErrorExample = {
  summary: 'Expired',
  error: new DomainError('gone', 'this device authorization expired: start again on the device for a new code'),
};
const WRONG_CODES: ErrorExample = {
  summary: 'Too many wrong codes',
  error: new HttpError('rate_limited', 'too many wrong codes from your account; try again in 8 s (at 2025-06-02T09:15:08.000Z)'),
  retryAfter: 8,
};
const BAD_USER_CODE: ErrorExample = {
  summary: 'Malformed user_code',
  error: new DomainError('invalid', 'user_code must be the 8 letters the device shows, such as BCDF-GHJK', {
    fieldErrors: [
      { pointer: '/user_code', location: 'body', message: 'must be 8 letters of BCDFGHJKLMNPQRSTVWXZ (a dash or spaces between are fine)' },
    ],
  }),
};

const WRONG_PASSWORD: ErrorExample = {
  summary: 'Wrong current password',
  error: new DomainError('forbidden', 'current_password is not your password', {
    fieldErrors: [{ pointer: '/current_password', location: 'body', message: 'is not your current password' }],
  }),
};
const PASSWORD_CHECKS_HELD: ErrorExample = {
  summary: 'Too many failed password checks',
  error: new HttpError('rate_limited', 'too many failed password checks for this account; try again in 8 s (at 2025-06-02T09:15:08.000Z)'),
  retryAfter: 8,
};
const EMAIL_TAKEN: ErrorExample = {
  summary: 'Email taken',
  error: new DomainError('conflict', 'another account already uses this email', {
    fieldErrors: [{ pointer: '/email', location: 'body', message: 'already used by another account' }],
  }),
};
const passwordTooShort = (pointer: string): ErrorExample => ({
  summary: 'Password too short',
  error: invalidField('body', pointer, 'Too small: expected string to have >=8 characters'),
});

/** Operations whose refusals of a status are their own (they replace the ones the status stands for elsewhere). */
const INVITATION_USED: ErrorExample = {
  summary: 'Used or expired',
  error: new DomainError('gone', 'this invitation was already accepted: sign in instead'),
};
const UNKNOWN_LINKS: ErrorExample = {
  summary: 'Too many unknown links',
  error: new HttpError(
    'rate_limited',
    'too many unknown invitation links from this address; try again in 8 s (at 2025-06-02T09:15:08.000Z)',
  ),
  retryAfter: 8,
};
const NOT_AN_OWNER: ErrorExample = {
  summary: 'Not an owner',
  error: new DomainError('forbidden', 'only an owner makes or unmakes owners'),
};

const OPERATION_ERRORS: Record<string, Record<number, ErrorExample[]>> = {
  'GET /v1/messages/{messageID}/media': {
    404: [
      { summary: 'Message not found', error: new DomainError('not_found', 'message not found') },
      { summary: 'No media', error: new DomainError('not_found', 'the message has no media') },
    ],
    409: [
      {
        summary: 'Still downloading',
        error: new DomainError('conflict', "the message's media is still being downloaded; try again shortly", {
          extra: { media_status: 'pending' },
        }),
      },
      {
        summary: 'Too large',
        error: new DomainError(
          'conflict',
          "the message's media could not be stored: image media is 6291456 bytes; the limit is 5242880 bytes",
          {
            extra: {
              media_status: 'failed',
              media_error: { code: 'media_too_large', title: 'image media is 6291456 bytes; the limit is 5242880 bytes' },
            },
          },
        ),
      },
    ],
    416: [
      {
        summary: 'Range outside the media',
        error: new HttpError('range_not_satisfiable', 'the range starts past the end of the media (48213 bytes)'),
      },
    ],
  },
  'GET /v1/events/stream': {
    429: [
      {
        summary: 'Too many open streams',
        error: new HttpError(
          'rate_limited',
          'too many open event streams for this credential: the limit is 20 (EVENT_STREAM_MAX_PER_CREDENTIAL); close one, or retry in 15 s',
        ),
        retryAfter: 15,
      },
      {
        summary: 'Rate limited',
        error: new HttpError('rate_limited', 'too many requests with this API key: the limit is 6000 a minute; retry in 42 s'),
        retryAfter: 42,
      },
    ],
    400: [
      {
        summary: 'Not a cursor',
        error: invalidField('headers', '/last-event-id', 'not an id of this stream or a cursor of GET /v1/events', 'cursor is not valid'),
      },
      {
        summary: 'Unknown event type',
        error: invalidField(
          'query',
          '/types',
          'unknown event type "message.nope"; one of message.new, message.sent, message.status_update, conversation.updated, contact.updated, template.status_update, …',
        ),
      },
      {
        summary: 'Invalid organization_id',
        error: invalidField('query', '/organization_id', 'must be a UUID', 'organization_id must be an organization id (UUID)'),
      },
    ],
  },
  'POST /v1/invitations/lookup': { 410: [INVITATION_USED], 429: [UNKNOWN_LINKS] },
  'POST /v1/invitations/accept': {
    403: [
      {
        summary: 'Another email',
        error: new DomainError('forbidden', 'this invitation is for ana@example.com: sign in as that user to accept it'),
      },
    ],
    410: [INVITATION_USED],
    429: [UNKNOWN_LINKS],
  },
  'PATCH /v1/organizations/{organizationID}/members/{userID}': {
    403: [
      NOT_AN_OWNER,
      {
        summary: 'Missing members:write',
        error: new DomainError('forbidden', 'missing permission members:write', { extra: { permission: 'members:write' } }),
      },
    ],
  },
  'PATCH /v1/auth/account': {
    400: [
      {
        summary: 'Current password missing',
        error: invalidField(
          'body',
          '/current_password',
          'required to change the email',
          'current_password is required to change the email',
        ),
      },
      { summary: 'Invalid email', error: invalidField('body', '/email', 'must be an email address', 'email must be an email address') },
    ],
    403: [WRONG_PASSWORD, NOT_A_SESSION],
    409: [EMAIL_TAKEN],
    429: [PASSWORD_CHECKS_HELD],
  },
  'POST /v1/auth/password': {
    400: [
      passwordTooShort('/new_password'),
      {
        summary: 'Password is the email',
        error: invalidField('body', '/new_password', 'must not be the email address', 'new_password must not be the email address'),
      },
    ],
    403: [WRONG_PASSWORD, NOT_A_SESSION],
    429: [PASSWORD_CHECKS_HELD],
  },
  'POST /v1/auth/signup': {
    400: [
      passwordTooShort('/password'),
      { summary: 'Invalid email', error: invalidField('body', '/email', 'must be an email address', 'email must be an email address') },
    ],
    403: [{ summary: 'Sign-up closed', error: new DomainError('forbidden', SIGNUP_CLOSED) }],
    409: [EMAIL_TAKEN],
    429: [
      {
        summary: 'Too many attempts',
        error: new HttpError('rate_limited', 'too many attempts for this address; try again in 8 s (at 2025-06-02T09:15:08.000Z)'),
        retryAfter: 8,
      },
    ],
  },
  'POST /v1/auth/password-reset': {
    400: [passwordTooShort('/new_password')],
    404: [{ summary: 'Unknown link', error: new DomainError('not_found', 'password reset link not found') }],
    410: [
      {
        summary: 'Used',
        error: new DomainError('gone', 'this password reset link was already used (or a newer password replaced it): ask for a new one'),
      },
      { summary: 'Expired', error: new DomainError('gone', 'this password reset link expired: ask for a new one') },
    ],
    429: [
      {
        summary: 'Too many tokens',
        error: new HttpError('rate_limited', 'too many reset tokens from this address; try again in 8 s (at 2025-06-02T09:15:08.000Z)'),
        retryAfter: 8,
      },
    ],
  },
  'POST /v1/organizations/{organizationID}/members/{userID}/password-reset': {
    403: [
      {
        summary: 'Missing members:write',
        error: new DomainError('forbidden', 'missing permission members:write', { extra: { permission: 'members:write' } }),
      },
      { summary: 'An owner', error: new DomainError('forbidden', "only an owner can reset an owner's password") },
      {
        summary: 'In another organization',
        error: new DomainError(
          'forbidden',
          'this person also belongs to another organization: they change their password themselves, or the operator runs npm run reset-password',
        ),
      },
    ],
    404: [{ summary: 'Member not found', error: new DomainError('not_found', 'member not found') }],
  },
  'POST /v1/oauth/device': {
    400: [
      { summary: 'Missing client_id', error: invalidField('body', '/client_id', 'Invalid input: expected string, received undefined') },
      {
        summary: 'Unknown scope',
        error: new DomainError('invalid', 'unknown scope messages:delete', { extra: { oauth_error: 'invalid_scope' } }),
      },
      {
        summary: 'Not a device client',
        error: new DomainError(
          'invalid',
          'the client is not registered for the device authorization grant (urn:ietf:params:oauth:grant-type:device_code)',
          { extra: { oauth_error: 'unauthorized_client' } },
        ),
      },
    ],
    401: [{ summary: 'Unknown client', error: new DomainError('unauthenticated', 'unknown client_id: no client is registered with it') }],
  },
  'POST /v1/oauth/clients': {
    400: [
      {
        summary: 'Bad redirect URI',
        error: new DomainError(
          'invalid',
          "the client's settings are not valid: redirect_uris/0 http is allowed only on a loopback address (127.0.0.1, [::1] or localhost); use https",
          {
            fieldErrors: [
              {
                pointer: '/redirect_uris/0',
                location: 'body',
                message: 'http is allowed only on a loopback address (127.0.0.1, [::1] or localhost); use https',
              },
            ],
          },
        ),
      },
      { summary: 'Invalid name', error: invalidField('body', '/name', 'Invalid input: expected string, received undefined') },
    ],
    403: [
      {
        summary: 'Missing oauth_clients:write',
        error: new DomainError('forbidden', 'missing permission oauth_clients:write', { extra: { permission: 'oauth_clients:write' } }),
      },
      {
        summary: 'Scope beyond the creator',
        error: new DomainError('forbidden', 'cannot give a client scope messages:send that the registering credential does not hold', {
          extra: { permissions: ['messages:send'] },
        }),
      },
    ],
  },
  'POST /v1/oauth/token': {
    400: [
      {
        summary: 'Not a form',
        error: new DomainError('invalid', 'the body must be application/x-www-form-urlencoded (RFC 6749 §3.2)', {
          extra: { oauth_error: 'invalid_request' },
        }),
      },
      {
        summary: 'Waiting for the user',
        error: new DomainError('invalid', 'the user has not decided yet: poll again after the interval', {
          extra: { oauth_error: 'authorization_pending' },
        }),
      },
      {
        summary: 'Polling too fast',
        error: new DomainError('invalid', 'polled sooner than the interval: wait at least 10 s between polls from now on', {
          extra: { oauth_error: 'slow_down' },
        }),
      },
      {
        summary: 'Device code expired',
        error: new DomainError('invalid', 'the device code expired: start the device flow again', {
          extra: { oauth_error: 'expired_token' },
        }),
      },
      {
        summary: 'Denied',
        error: new DomainError('invalid', 'the user denied the authorization', { extra: { oauth_error: 'access_denied' } }),
      },
      {
        summary: 'Code used twice',
        error: new DomainError('invalid', 'the code was already used: every token issued for it is revoked', {
          extra: { oauth_error: 'invalid_grant' },
        }),
      },
      {
        summary: 'Wrong verifier',
        error: new DomainError('invalid', 'code_verifier does not match the code_challenge', { extra: { oauth_error: 'invalid_grant' } }),
      },
      {
        summary: 'Refresh token reused',
        error: new DomainError(
          'invalid',
          'the refresh token was already used: the whole grant is revoked, so the user must authorize again',
          { extra: { oauth_error: 'invalid_grant' } },
        ),
      },
      {
        summary: 'Wider scope',
        error: new DomainError('invalid', 'scope channels:write was not granted: a refresh can only narrow the scopes', {
          extra: { oauth_error: 'invalid_scope' },
        }),
      },
      {
        summary: 'Grant not registered',
        error: new DomainError('invalid', 'the client is not registered for the refresh_token grant', {
          extra: { oauth_error: 'unauthorized_client' },
        }),
      },
      {
        summary: 'Unknown grant type',
        error: new DomainError(
          'invalid',
          'grant_type "password" is not supported: use authorization_code, refresh_token, urn:ietf:params:oauth:grant-type:device_code',
          { extra: { oauth_error: 'unsupported_grant_type' } },
        ),
      },
    ],
    401: [
      {
        summary: 'Client authentication failed',
        error: new DomainError(
          'unauthenticated',
          'client authentication failed: unknown client, wrong secret, or a method the client is not registered for',
          { extra: { oauth_error: 'invalid_client' } },
        ),
      },
    ],
  },
  'POST /v1/oauth/introspect': {
    400: [{ summary: 'Missing token', error: invalidField('body', '/token', 'Invalid input: expected string, received undefined') }],
    401: [
      {
        summary: 'Unauthenticated',
        error: new DomainError(
          'unauthenticated',
          "authenticate: a confidential client's credentials, or an API key, access token or session holding oauth:introspect",
          { extra: { oauth_error: 'invalid_client' } },
        ),
      },
    ],
    403: [
      {
        summary: 'Missing permission',
        error: new DomainError('forbidden', 'missing permission oauth:introspect', { extra: { oauth_error: 'insufficient_scope' } }),
      },
    ],
  },
  'POST /v1/oauth/revoke': {
    400: [
      { summary: 'Missing token', error: invalidField('body', '/token', 'Invalid input: expected string, received undefined') },
      {
        summary: 'Secret without client_id',
        error: new DomainError('invalid', 'client_secret was sent without client_id', { extra: { oauth_error: 'invalid_request' } }),
      },
    ],
    401: [
      {
        summary: 'Client authentication failed',
        error: new DomainError(
          'unauthenticated',
          'client authentication failed: unknown client, wrong secret, or a method the client is not registered for',
          { extra: { oauth_error: 'invalid_client' } },
        ),
      },
    ],
  },
  'GET /v1/oauth/authorization-requests/{requestID}': { 410: [REQUEST_EXPIRED] },
  'POST /v1/oauth/authorization-requests/{requestID}/approve': { 403: [NOT_A_MEMBER, NOT_A_SESSION], 410: [REQUEST_EXPIRED] },
  'POST /v1/oauth/authorization-requests/{requestID}/deny': { 410: [REQUEST_EXPIRED] },
  'POST /v1/oauth/device/lookup': { 400: [BAD_USER_CODE], 410: [DEVICE_EXPIRED], 429: [WRONG_CODES] },
  'POST /v1/oauth/device/approve': { 400: [BAD_USER_CODE], 403: [NOT_A_MEMBER, NOT_A_SESSION], 410: [DEVICE_EXPIRED], 429: [WRONG_CODES] },
  'POST /v1/oauth/device/deny': { 400: [BAD_USER_CODE], 410: [DEVICE_EXPIRED], 429: [WRONG_CODES] },
};

const REFUSALS: Array<[operation: string, examples: ErrorExample[]]> = [
  [
    'POST /v1/messages',
    [
      {
        summary: 'Type not supported',
        error: new DomainError('unsupported', 'message type poll is not supported on chatapp_official channels', {
          extra: { operation: 'messages.send', platform: 'chatapp_official', message_type: 'poll' },
        }),
      },
      {
        summary: 'Window closed',
        error: new DomainError('window_closed', windowClosedDetail({ windowHours: 24, phone: PHONE, sandbox: false }), {
          extra: { last_inbound_at: '2025-05-30T17:02:00.000Z' },
        }),
      },
      {
        summary: 'Suppressed',
        error: new DomainError('send_refused', 'the contact is suppressed on all channels: asked to stop', {
          extra: { reason: 'suppressed' },
        }),
      },
    ],
  ],
  [
    'POST /v1/channels/{channelID}/contacts/lookup',
    [
      {
        summary: 'Not offered',
        error: new DomainError('unsupported', 'contact lookup is not supported on chatapp_official channels', {
          extra: { operation: 'contacts.lookup', platform: 'chatapp_official' },
        }),
      },
    ],
  ],
  [
    '',
    [
      {
        summary: 'Provider refused',
        error: new DomainError('unsupported', 'provider refused: Invalid parameter (code 100)', {
          extra: { provider_error: { code: 100, title: 'Invalid parameter' } },
        }),
      },
    ],
  ],
];

/** The entry for the operation, or the table's fallback (its '' entry). */
const entryFor = <T>(table: Array<[string, T]>, operation: string): T =>
  (table.find(([key]) => key === operation) ?? table.find(([key]) => key === ''))![1];

function invalidField(location: 'body' | 'query' | 'params' | 'headers', pointer: string, message: string, detail?: string): DomainError {
  return new DomainError('invalid', detail ?? `request ${location} is invalid: ${pointer.slice(1)}: ${message}`, {
    fieldErrors: [{ pointer, location, message }],
  });
}

/** The refusals an error status stands for on the given operation, most telling first. */
export function errorExamples(status: number, context: ErrorContext): ErrorExample[] {
  const own = OPERATION_ERRORS[context.operation]?.[status];
  if (own) return own;
  const path = context.operation.split(' ')[1]!;
  switch (status) {
    case 400: {
      const examples: ErrorExample[] = [];
      if (context.bodyField) {
        const { name, type, required } = context.bodyField;
        const received = required ? 'undefined' : type === 'number' ? 'string' : 'number';
        examples.push({
          summary: `Invalid ${name}`,
          error: invalidField('body', `/${name}`, `Invalid input: expected ${type}, received ${received}`),
        });
      }
      if (context.pagedQuery)
        examples.push({ summary: 'Invalid query', error: invalidField('query', '/limit', 'Too small: expected number to be >=1') });
      if (!context.public) {
        examples.push(
          {
            summary: 'Invalid X-Organization-Id',
            error: invalidField('headers', '/x-organization-id', 'must be a UUID', 'x-organization-id must be an organization id (UUID)'),
          },
          {
            summary: 'Organization not reached',
            error: unreachedOrganization({ id: OTHER_ORG_ID, pointer: '/x-organization-id', location: 'headers' }),
          },
        );
      }
      if (examples.length === 0) {
        const param = /\{(\w+)\}/.exec(path)?.[1];
        examples.push(
          param
            ? { summary: 'Invalid path', error: invalidField('params', `/${param}`, 'Too big: expected string to have <=64 characters') }
            : { summary: 'Malformed JSON', error: new DomainError('invalid', 'malformed JSON: the request body is not valid JSON') },
        );
      }
      return examples;
    }
    case 401: {
      const signature = path.startsWith('/v1/providers/chatapp_official')
        ? 'X-Hub-Signature-256'
        : path.startsWith('/v1/providers/')
          ? 'X-Gateway-Signature'
          : undefined;
      if (signature) return [{ summary: `Bad ${signature}`, error: new DomainError('unauthenticated', `invalid or missing ${signature}`) }];
      return [{ summary: 'No credential', error: new DomainError('unauthenticated', 'invalid or missing API key') }];
    }
    case 403: {
      if (context.public) return [{ summary: 'Wrong verify token', error: new DomainError('forbidden', 'verify token does not match') }];
      if (context.sessionOnly)
        return [{ summary: 'Not a session', error: new DomainError('forbidden', 'this operation needs a dashboard session') }];
      if (context.permission) {
        return [
          {
            summary: `Missing ${context.permission}`,
            error: new DomainError('forbidden', `missing permission ${context.permission}`, { extra: { permission: context.permission } }),
          },
        ];
      }
      return [{ summary: 'Not a member', error: new DomainError('forbidden', `not a member of organization ${ORG_ID}`) }];
    }
    case 404: {
      const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
      // Without a path parameter, what is not found is the channel the body names.
      const what = NOT_FOUND[context.operation] ?? RESOURCES[params.at(-1) ?? ''] ?? 'channel';
      return [{ summary: `${what[0]!.toUpperCase()}${what.slice(1)} not found`, error: new DomainError('not_found', `${what} not found`) }];
    }
    case 409:
      return context.operation === 'POST /v1/messages'
        ? [
            entryFor(CONFLICTS, context.operation),
            {
              summary: 'Idempotency-Key reused',
              error: new DomainError('conflict', 'Idempotency-Key was already used with a different request body'),
            },
          ]
        : [entryFor(CONFLICTS, context.operation)];
    case 413:
      return [{ summary: 'Body too large', error: new HttpError('payload_too_large', 'request body is larger than the limit') }];
    case 414:
      return [{ summary: 'Path segment too long', error: new HttpError('uri_too_long', 'a path segment is longer than the limit') }];
    case 415:
      return [{ summary: 'Not JSON', error: new HttpError('unsupported_media_type', 'unsupported Content-Type: send application/json') }];
    case 431:
      return [
        {
          summary: 'Header fields too large',
          error: new HttpError('header_fields_too_large', 'the request header fields are larger than the server accepts (16 KiB in all)'),
        },
      ];
    case 422:
      return entryFor(REFUSALS, context.operation);
    case 429:
      return [
        context.public
          ? {
              summary: 'Rate limited',
              error: new HttpError(
                'rate_limited',
                'too many requests without a credential from this address: the limit is 600 a minute; retry in 42 s',
              ),
              retryAfter: 42,
            }
          : {
              summary: 'Rate limited',
              error: new HttpError('rate_limited', 'too many requests with this API key: the limit is 6000 a minute; retry in 42 s'),
              retryAfter: 42,
            },
      ];
    case 503:
      return [
        {
          summary: 'Database unavailable',
          error: new DomainError('unavailable', 'the database is unavailable; try again after the time in Retry-After'),
          retryAfter: 5,
        },
      ];
    default:
      return [
        {
          summary: 'Unexpected error',
          error: new HttpError('internal', `unexpected error; quote request id ${EXAMPLE_REQUEST_ID} when reporting it`),
        },
      ];
  }
}
