/**
 * The relational schema. Every table that holds customer data carries organization_id, and every
 * query on it is scoped by that column (see domain/*). drizzle-kit generates migrations from this file.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  date,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  pgView,
  primaryKey,
  text,
  timestamp,
  unique,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { companyDocument, contactDocument, dealDocument, messageDocument } from './search-vectors.ts';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const organizations = pgTable('organizations', {
  id: uuid('id').primaryKey(),
  name: text('name').notNull(),
  /** The opt-out keywords (domain/contacts/opt-out.ts): {stop_keywords, start_keywords, opt_out_buttons}; null: the defaults. */
  optOut: jsonb('opt_out').$type<{ stop_keywords: string[]; start_keywords: string[]; opt_out_buttons: string[] }>(),
  /** Business hours with the away message and greeting (domain/business-hours): null: none (always open, no auto-replies). */
  businessHours: jsonb('business_hours').$type<Record<string, unknown>>(),
  /** The satisfaction survey sent when a conversation is resolved (domain/csat): null: the defaults (off). */
  csat: jsonb('csat').$type<Record<string, unknown>>(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey(),
    email: text('email').notNull(),
    name: text('name').notNull(),
    passwordHash: text('password_hash').notNull(),
    emailVerified: boolean('email_verified').notNull().default(false),
    timezone: text('timezone').notNull().default('UTC'),
    weekStart: text('week_start').notNull().default('monday'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('users_email_lower_key').on(sql`lower(${t.email})`)],
);

export const memberships = pgTable(
  'memberships',
  {
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role').notNull(),
    /** online, away or offline (domain/teams): only an online member is assigned conversations automatically. */
    availability: text('availability').notNull().default('offline'),
    availabilityChangedAt: at('availability_changed_at'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.userId] }),
    index('memberships_user_idx').on(t.userId),
    check('memberships_role_check', sql`${t.role} in ('owner', 'admin', 'member')`),
    check('memberships_availability_check', sql`${t.availability} in ('online', 'away', 'offline')`),
  ],
);

export const sessions = pgTable(
  'sessions',
  {
    id: uuid('id').primaryKey(),
    tokenHash: text('token_hash').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    telemetryId: text('telemetry_id'),
    userAgent: text('user_agent'),
    ip: text('ip'),
    createdAt: createdAt(),
    lastSeenAt: at('last_seen_at').notNull().defaultNow(),
    expiresAt: at('expires_at').notNull(),
    revokedAt: at('revoked_at'),
  },
  (t) => [uniqueIndex('sessions_token_hash_key').on(t.tokenHash), index('sessions_user_idx').on(t.userId)],
);

export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    prefix: text('prefix').notNull(),
    lastFour: text('last_four').notNull(),
    secretHash: text('secret_hash').notNull(),
    permissions: text('permissions').array().notNull(),
    createdByUserId: uuid('created_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    createdByKeyId: uuid('created_by_key_id'),
    createdAt: createdAt(),
    lastUsedAt: at('last_used_at'),
    expiresAt: at('expires_at'),
    revokedAt: at('revoked_at'),
  },
  (t) => [uniqueIndex('api_keys_secret_hash_key').on(t.secretHash), index('api_keys_organization_idx').on(t.organizationId, t.createdAt)],
);

/**
 * Attempt throttles for guessable secrets (login passwords, later invitation and device codes), one
 * row per key such as `login:account:<email>` or `login:ip:<address>`; shared by every process.
 */
export const throttles = pgTable(
  'throttles',
  {
    key: text('key').primaryKey(),
    /** Attempts charged since the last success or since the row was forgotten. */
    attempts: integer('attempts').notNull(),
    lastAttemptAt: at('last_attempt_at').notNull(),
    /** No attempt is taken before this time. */
    blockedUntil: at('blocked_until'),
  },
  (t) => [index('throttles_last_attempt_idx').on(t.lastAttemptAt)],
);

/**
 * Request counters of the rate limits (http/rate-limit.ts), one row per bucket such as
 * `key:<api key id>`: the hits of its current window, which starts at the bucket's first hit after
 * the last window ended. Shared by every process; rows of long-ended windows are deleted as the
 * counting goes (db/counters.ts).
 */
export const rateLimitCounters = pgTable(
  'rate_limit_counters',
  {
    bucket: text('bucket').primaryKey(),
    windowStart: at('window_start').notNull(),
    count: integer('count').notNull(),
  },
  (t) => [index('rate_limit_counters_window_idx').on(t.windowStart)],
);

/**
 * An invitation to join an organization with a role: a one-time link (only the token's hash is
 * stored) that expires; accepted once, or revoked by an owner or admin.
 */
export const invitations = pgTable(
  'invitations',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: text('role').notNull(),
    tokenHash: text('token_hash').notNull(),
    invitedByUserId: uuid('invited_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    expiresAt: at('expires_at').notNull(),
    acceptedAt: at('accepted_at'),
    acceptedByUserId: uuid('accepted_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    revokedAt: at('revoked_at'),
  },
  (t) => [
    uniqueIndex('invitations_token_hash_key').on(t.tokenHash),
    index('invitations_organization_idx').on(t.organizationId, t.createdAt),
    check('invitations_role_check', sql`${t.role} in ('owner', 'admin', 'member')`),
  ],
);

/**
 * A one-time password-reset link for a user (only the token's hash is stored). Created by an owner
 * or admin of one of the user's organizations, or by the operator's command (created_by_user_id null).
 */
export const passwordResets = pgTable(
  'password_resets',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    createdByUserId: uuid('created_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    expiresAt: at('expires_at').notNull(),
    usedAt: at('used_at'),
  },
  (t) => [uniqueIndex('password_resets_token_hash_key').on(t.tokenHash), index('password_resets_user_idx').on(t.userId)],
);

/**
 * OAuth clients, registered by an owner or admin of the organization that owns them. Public clients
 * hold no secret and must use PKCE; confidential ones have a secret, shown once, stored as a hash.
 * Any user may authorize a client for the organizations they are a member of. A client of no
 * organization is first-party: the service writes it itself (domain/oauth/first-party.ts, e.g. the
 * `parley` CLI), and no organization's management routes see or change it.
 */
export const oauthClients = pgTable(
  'oauth_clients',
  {
    id: uuid('id').primaryKey(),
    /** The public client_id clients send. */
    clientId: text('client_id').notNull(),
    /** The owning organization; null for the service's own first-party clients. */
    organizationId: uuid('organization_id').references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    type: text('type').notNull(),
    secretHash: text('secret_hash'),
    redirectUris: text('redirect_uris').array().notNull(),
    grantTypes: text('grant_types').array().notNull(),
    scopes: text('scopes').array().notNull(),
    createdByUserId: uuid('created_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('oauth_clients_client_id_key').on(t.clientId),
    index('oauth_clients_organization_idx').on(t.organizationId, t.createdAt),
    check('oauth_clients_type_check', sql`${t.type} in ('public', 'confidential')`),
  ],
);

/**
 * One authorization a user gave a client (one approved code or device authorization): its scopes and
 * the organizations it reaches. Its tokens are one refresh family; revoking the grant revokes them all.
 */
export const oauthGrants = pgTable(
  'oauth_grants',
  {
    id: uuid('id').primaryKey(),
    clientId: uuid('client_id')
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    scopes: text('scopes').array().notNull(),
    createdAt: createdAt(),
    lastUsedAt: at('last_used_at'),
    revokedAt: at('revoked_at'),
  },
  (t) => [index('oauth_grants_user_idx').on(t.userId, t.createdAt), index('oauth_grants_client_idx').on(t.clientId)],
);

/** The organizations a grant reaches (chosen by the user on approval). */
export const oauthGrantOrganizations = pgTable(
  'oauth_grant_organizations',
  {
    grantId: uuid('grant_id')
      .notNull()
      .references(() => oauthGrants.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.grantId, t.organizationId] }), index('oauth_grant_organizations_organization_idx').on(t.organizationId)],
);

/** Access and refresh tokens: opaque, prefixed, stored only as SHA-256 hashes. */
export const oauthTokens = pgTable(
  'oauth_tokens',
  {
    id: uuid('id').primaryKey(),
    grantId: uuid('grant_id')
      .notNull()
      .references(() => oauthGrants.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    tokenHash: text('token_hash').notNull(),
    scopes: text('scopes').array().notNull(),
    /** The refresh token this one was issued from (an access token's refresh token, or the previous refresh token of a rotation). */
    parentId: uuid('parent_id'),
    createdAt: createdAt(),
    expiresAt: at('expires_at').notNull(),
    /** A refresh token that was exchanged: presenting it again revokes the whole grant. */
    rotatedAt: at('rotated_at'),
    revokedAt: at('revoked_at'),
  },
  (t) => [
    uniqueIndex('oauth_tokens_token_hash_key').on(t.tokenHash),
    index('oauth_tokens_grant_idx').on(t.grantId),
    check('oauth_tokens_kind_check', sql`${t.kind} in ('access', 'refresh')`),
  ],
);

/**
 * GET /v1/oauth/authorize requests, checked and stored while the user signs in and decides; on
 * approval the row gets its one-time code (hash), bound to the client, redirect_uri and PKCE
 * challenge, valid 60 s. A used code's row keeps the grant it produced, so a second use revokes it.
 */
export const oauthAuthorizationRequests = pgTable(
  'oauth_authorization_requests',
  {
    id: uuid('id').primaryKey(),
    clientId: uuid('client_id')
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    redirectUri: text('redirect_uri').notNull(),
    scopes: text('scopes').array().notNull(),
    state: text('state'),
    codeChallenge: text('code_challenge'),
    codeChallengeMethod: text('code_challenge_method'),
    /** pending (waiting for the user), approved (code issued), denied, used (code exchanged). */
    status: text('status').notNull(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    organizationIds: uuid('organization_ids').array(),
    codeHash: text('code_hash'),
    createdAt: createdAt(),
    expiresAt: at('expires_at').notNull(),
    decidedAt: at('decided_at'),
    usedAt: at('used_at'),
    grantId: uuid('grant_id').references(() => oauthGrants.id, { onDelete: 'set null' }),
  },
  (t) => [
    uniqueIndex('oauth_authorization_requests_code_hash_key').on(t.codeHash),
    index('oauth_authorization_requests_expires_idx').on(t.expiresAt),
    check('oauth_authorization_requests_status_check', sql`${t.status} in ('pending', 'approved', 'denied', 'used')`),
  ],
);

/** RFC 8628 device authorizations: the device code (hash) the client polls with, the user code people type. */
export const oauthDeviceAuthorizations = pgTable(
  'oauth_device_authorizations',
  {
    id: uuid('id').primaryKey(),
    clientId: uuid('client_id')
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    deviceCodeHash: text('device_code_hash').notNull(),
    /** Normalized: eight letters of the unambiguous alphabet, no dash. */
    userCode: text('user_code').notNull(),
    scopes: text('scopes').array().notNull(),
    /** pending, approved, denied, used (the token was issued). */
    status: text('status').notNull(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    organizationIds: uuid('organization_ids').array(),
    intervalSeconds: integer('interval_seconds').notNull(),
    lastPolledAt: at('last_polled_at'),
    createdAt: createdAt(),
    expiresAt: at('expires_at').notNull(),
    decidedAt: at('decided_at'),
    grantId: uuid('grant_id').references(() => oauthGrants.id, { onDelete: 'set null' }),
  },
  (t) => [
    uniqueIndex('oauth_device_authorizations_device_code_hash_key').on(t.deviceCodeHash),
    uniqueIndex('oauth_device_authorizations_user_code_key').on(t.userCode),
    index('oauth_device_authorizations_expires_idx').on(t.expiresAt),
    check('oauth_device_authorizations_status_check', sql`${t.status} in ('pending', 'approved', 'denied', 'used')`),
  ],
);

export const channels = pgTable(
  'channels',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    platform: text('platform').notNull(),
    name: text('name').notNull(),
    status: text('status').notNull(),
    statusReason: text('status_reason'),
    statusChangedAt: at('status_changed_at').notNull().defaultNow(),
    /** The provider's time of the last status it reported that was applied: an older report arriving late changes nothing. */
    statusReportedAt: at('status_reported_at'),
    displayPhoneNumber: text('display_phone_number'),
    /** The provider's handle the channel's settings name: phone_number_id, or the gateway session id. A claim, not exclusive. */
    providerRef: text('provider_ref'),
    /**
     * provider_ref once the provider confirmed it belongs to this channel (credentials checked against
     * the installation's provider, or a number the sandbox provisioned): exclusive, and what routes
     * inbound events of the shared webhook path here. Null while unverified.
     */
    boundRef: text('bound_ref'),
    settings: jsonb('settings').$type<Record<string, unknown>>().notNull().default({}),
    /** The channel's own business-hours fields, each beating the organization's (domain/business-hours); null: all inherited. */
    businessHours: jsonb('business_hours').$type<Record<string, unknown>>(),
    /** The team its new and reopened conversations go to (domain/teams); null: they wait for no team. */
    teamId: uuid('team_id').references((): AnyPgColumn => teams.id, { onDelete: 'set null' }),
    credentialsEncrypted: text('credentials_encrypted'),
    sandbox: boolean('sandbox').notNull().default(false),
    lastErrorCode: text('last_error_code'),
    lastErrorMessage: text('last_error_message'),
    lastErrorAt: at('last_error_at'),
    /**
     * The end of the provider's last hold on every send of the channel (a throughput or rate limit,
     * maintenance: its code is last_error_code); what holds the sends is channel_pacing, this is what
     * the channel's health shows. Null when it was never held.
     */
    heldUntil: at('held_until'),
    reconnectAttempts: integer('reconnect_attempts').notNull().default(0),
    /** When the engine tries to connect again by itself (a lost or failed connection); null when it does not. */
    nextRetryAt: at('next_retry_at'),
    lastCheckedAt: at('last_checked_at'),
    /**
     * The number's messaging tier (official): business-initiated conversations a moving 24 hours may open,
     * '250', '1000', '2000', '10000', '100000' or 'unlimited'; read from the provider, overridable
     * (messagingTierSource 'api'). Null: not known (broadcasts count nothing against it).
     */
    messagingTier: text('messaging_tier'),
    messagingTierSource: text('messaging_tier_source'),
    /** Linked-device channels: at most this many broadcast messages a day (null: the default, domain/broadcasts/linked-pacing.ts). */
    dailyBroadcastCap: integer('daily_broadcast_cap'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('channels_organization_idx').on(t.organizationId, t.createdAt),
    uniqueIndex('channels_bound_ref_key').on(t.platform, t.boundRef),
    check('channels_platform_check', sql`${t.platform} in ('chatapp_official', 'chatapp_unofficial')`),
  ],
);

export const channelStatusHistory = pgTable(
  'channel_status_history',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id').notNull(),
    channelId: uuid('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    fromStatus: text('from_status'),
    toStatus: text('to_status').notNull(),
    reason: text('reason'),
    reasonCode: text('reason_code'),
    createdAt: createdAt(),
  },
  (t) => [index('channel_status_history_channel_idx').on(t.channelId, t.createdAt)],
);

/** The transactional outbox: every event, written in the transaction of the change that caused it. */
export const events = pgTable(
  'events',
  {
    id: uuid('id').primaryKey(),
    seq: bigint('seq', { mode: 'number' }).generatedAlwaysAsIdentity(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    /**
     * The event's place in commit order, given by the webhook dispatcher (one at a time, under a lock)
     * once the event's transaction has committed; null until then. GET /v1/events pages on it.
     */
    position: bigint('position', { mode: 'number' }),
    /**
     * The automation rule whose action made the change (domain/automations); null for everything else.
     * Rules never trigger on such events (the loop guard).
     */
    automationRuleId: uuid('automation_rule_id'),
  },
  (t) => [
    index('events_organization_seq_idx').on(t.organizationId, t.seq),
    index('events_created_idx').on(t.createdAt),
    uniqueIndex('events_position_key').on(t.position),
    index('events_organization_position_idx').on(t.organizationId, t.position),
    index('events_undispatched_idx').on(t.seq).where(sql`${t.position} is null`),
  ],
);

export const templates = pgTable(
  'templates',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    channelId: uuid('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    language: text('language').notNull(),
    category: text('category').notNull(),
    components: jsonb('components').$type<unknown[]>().notNull().default([]),
    status: text('status').notNull(),
    rejectionReason: text('rejection_reason'),
    providerTemplateId: text('provider_template_id'),
    /** The provider's quality report on the template (domain/templates: TemplateQuality); null until it gives one. */
    quality: jsonb('quality').$type<{ score: string | null; flagged: boolean; reason: string | null; updated_at: string }>(),
    /** The provider's last report on the template, whatever it said (domain/templates: TemplateNote); null until one arrives. */
    providerNote: jsonb('provider_note').$type<{
      event: string;
      reason: string | null;
      received_at: string;
      status_before_archive?: string;
    }>(),
    submittedAt: at('submitted_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('templates_channel_name_language_key').on(t.channelId, t.name, t.language),
    index('templates_organization_idx').on(t.organizationId, t.createdAt),
    index('templates_provider_idx').on(t.providerTemplateId),
  ],
);

/** Verified provider webhook deliveries, stored before they are processed by a job. */
export const providerEvents = pgTable(
  'provider_events',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    channelId: uuid('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    platform: text('platform').notNull(),
    /** The provider's own id of the delivery, where it has one (gateway X-Gateway-Event-Id): retries dedupe on it. */
    externalId: text('external_id'),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    receivedAt: at('received_at').notNull().defaultNow(),
    processedAt: at('processed_at'),
    error: text('error'),
  },
  (t) => [
    index('provider_events_channel_idx').on(t.channelId, t.receivedAt),
    uniqueIndex('provider_events_external_key').on(t.channelId, t.externalId),
  ],
);

/*
 * Channel sessions: a channel whose provider connection lives inside Parley (the embedded engine of
 * unofficial channels) is held by exactly one worker process at a time, under a lease on its row.
 * Its auth state (creds and keys) and the commands other processes ask of its holder live beside it.
 */
export const channelSessions = pgTable(
  'channel_sessions',
  {
    channelId: uuid('channel_id')
      .primaryKey()
      .references(() => channels.id, { onDelete: 'cascade' }),
    /** Started by connect, stopped by disconnect (and by the phone logging out or another session replacing it). */
    wanted: boolean('wanted').notNull().default(false),
    /** The process holding the session (its id, made at boot); null when none does. */
    owner: text('owner'),
    leaseUntil: at('lease_until'),
    /** STARTING, SCAN_QR, WORKING, STOPPED or FAILED. */
    state: text('state').notNull().default('STOPPED'),
    /** The current QR string (sealed: it carries the pairing secret) and when it lapses. */
    qrSealed: text('qr_sealed'),
    qrExpiresAt: at('qr_expires_at'),
    /** The paired phone (international digits) and its profile name. */
    phone: text('phone'),
    pushName: text('push_name'),
    disconnectReason: text('disconnect_reason'),
    disconnectCode: integer('disconnect_code'),
    /** What the last close was, as the engine read it (the reason code reported: connection_lost, dns_failure, logged_out, ...). */
    disconnectCause: text('disconnect_cause'),
    reconnectAttempts: integer('reconnect_attempts').notNull().default(0),
    nextReconnectAt: at('next_reconnect_at'),
    updatedAt: updatedAt(),
  },
  (t) => [index('channel_sessions_wanted_idx').on(t.leaseUntil).where(sql`${t.wanted}`)],
);

/** A session's auth state: its creds (type `creds`) and signal keys by type and id, each value sealed. */
export const channelSessionKeys = pgTable(
  'channel_session_keys',
  {
    channelId: uuid('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    keyId: text('key_id').notNull(),
    valueSealed: text('value_sealed').notNull(),
  },
  (t) => [primaryKey({ columns: [t.channelId, t.type, t.keyId] })],
);

/**
 * Messages of an embedded session as the chat library names them, kept for a bounded time
 * (embedded/session-messages.ts: 14 days, a channel's newest 20,000): the chat key of each message
 * the session saw or sent (its chat address and group participant, which read receipts, reactions and
 * quotes name it by), and for those it sent their content in the library's form (protobuf, sealed: it
 * holds media keys), which the library asks for when a recipient's phone could not decrypt one.
 */
export const channelSessionMessages = pgTable(
  'channel_session_messages',
  {
    channelId: uuid('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    /** The library's message id (key.id): the provider message id. */
    messageId: text('message_id').notNull(),
    remoteJid: text('remote_jid').notNull(),
    participant: text('participant'),
    fromMe: boolean('from_me').notNull(),
    /** The message the session sent (proto.Message, encoded), sealed; null for the others. */
    messageSealed: text('message_sealed'),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.channelId, t.messageId] }), index('channel_session_messages_age_idx').on(t.channelId, t.createdAt)],
);

/** A call only a session's holder can make (a pairing code, a lookup, a logout), asked by any process. */
export const channelSessionCommands = pgTable(
  'channel_session_commands',
  {
    id: uuid('id').primaryKey(),
    channelId: uuid('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    /** pending, running, done. */
    state: text('state').notNull().default('pending'),
    inputSealed: text('input_sealed').notNull(),
    resultSealed: text('result_sealed'),
    createdAt: createdAt(),
    finishedAt: at('finished_at'),
  },
  (t) => [index('channel_session_commands_channel_idx').on(t.channelId, t.state)],
);

/**
 * The business labels of an unofficial channel's number (docs/channels.md, "Labels"): the engine holds
 * them (the chat app's app state); Parley keeps what the engine reported and what it was asked to do,
 * so they can be listed and searched (DECISIONS). `label_id` is the engine's.
 */
export const channelLabels = pgTable(
  'channel_labels',
  {
    channelId: uuid('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    labelId: text('label_id').notNull(),
    name: text('name').notNull(),
    /** The chat app's palette: 0-19. */
    color: integer('color').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.channelId, t.labelId] })],
);

/**
 * Which chats carry which label: a contact's phone (international digits) or a group id; with
 * `message_id`, one message of the chat (the chat network's id; '' for the chat itself).
 */
export const channelLabelChats = pgTable(
  'channel_label_chats',
  {
    channelId: uuid('channel_id').notNull(),
    labelId: text('label_id').notNull(),
    chat: text('chat').notNull(),
    messageId: text('message_id').notNull().default(''),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.channelId, t.labelId, t.chat, t.messageId] }),
    index('channel_label_chats_chat_idx').on(t.channelId, t.chat),
    foreignKey({ columns: [t.channelId, t.labelId], foreignColumns: [channelLabels.channelId, channelLabels.labelId] }).onDelete('cascade'),
  ],
);

/*
 * The sandbox provider's own state: it plays a third party (the business cloud API and a paired
 * gateway), so these rows belong to no organization. Only the sandbox reads them.
 */
export const sandboxAccounts = pgTable(
  'sandbox_accounts',
  {
    /** phone_number_id (official) or session id (gateway). */
    id: text('id').primaryKey(),
    protocol: text('protocol').notNull(),
    wabaId: text('waba_id'),
    /** The official number's display number, or the phone a gateway session is paired with. */
    displayPhoneNumber: text('display_phone_number'),
    /** SHA-256 of the bearer token (official access token, or gateway API key) it accepts. */
    tokenHash: text('token_hash').notNull(),
    status: text('status').notNull(),
    qr: text('qr'),
    qrExpiresAt: at('qr_expires_at'),
    callbackUrl: text('callback_url'),
    callbackSecretSealed: text('callback_secret_sealed'),
    /** Official: the number went through POST /{phone_number_id}/register (sends need it). */
    registered: boolean('registered').notNull().default(false),
    /** Official: the app is subscribed to the business account (webhooks are delivered). */
    subscribed: boolean('subscribed').notNull().default(false),
    /** Official: SHA-256 of the embedded-signup code not yet exchanged for a token. */
    signupCodeHash: text('signup_code_hash'),
    signupCodeExpiresAt: at('signup_code_expires_at'),
    /** Gateway: the session's settings as Parley last put them (PUT /sessions/{session}/settings). */
    settings: jsonb('settings').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('sandbox_accounts_token_hash_key').on(t.tokenHash),
    index('sandbox_accounts_waba_idx').on(t.wabaId),
    uniqueIndex('sandbox_accounts_signup_code_key').on(t.signupCodeHash),
  ],
);

export const sandboxMessages = pgTable(
  'sandbox_messages',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    /** outbound (the business sent it) or inbound (a customer sent it, through POST /sandbox/inbound). */
    direction: text('direction').notNull().default('outbound'),
    idempotencyKey: text('idempotency_key'),
    /** The customer's number: the recipient of an outbound message, the sender of an inbound one. */
    recipient: text('recipient').notNull(),
    type: text('type').notNull(),
    body: jsonb('body').$type<Record<string, unknown>>().notNull(),
    /** SHA-256 of the send body, to know a retry of a throttled attempt. */
    bodyHash: text('body_hash'),
    /** throttled (refused once, 0429), accepted, sent, delivered, read, failed; inbound: received, read. */
    status: text('status').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('sandbox_messages_idempotency_key').on(t.accountId, t.idempotencyKey),
    index('sandbox_messages_attempt_idx').on(t.accountId, t.recipient, t.bodyHash),
  ],
);

export const sandboxTemplates = pgTable(
  'sandbox_templates',
  {
    id: text('id').primaryKey(),
    wabaId: text('waba_id').notNull(),
    name: text('name').notNull(),
    language: text('language').notNull(),
    category: text('category').notNull(),
    components: jsonb('components').$type<unknown[]>().notNull(),
    status: text('status').notNull(),
    reason: text('reason'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('sandbox_templates_waba_name_language_key').on(t.wabaId, t.name, t.language)],
);

/**
 * The sandbox gateway's groups: each belongs to the session that created it or was added to it
 * (docs/sandbox.md). Participants are phones with their role; the session's own number is among them
 * while it is in the group.
 */
export const sandboxGroups = pgTable(
  'sandbox_groups',
  {
    /** The group's id, `<digits>@g.us`. */
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    subject: text('subject').notNull(),
    description: text('description'),
    owner: text('owner'),
    announcement: boolean('announcement').notNull().default(false),
    locked: boolean('locked').notNull().default(false),
    membersCanAdd: boolean('members_can_add').notNull().default(false),
    joinApproval: boolean('join_approval').notNull().default(false),
    ephemeralSeconds: integer('ephemeral_seconds').notNull().default(0),
    participants: jsonb('participants').$type<Array<{ phone: string; role: 'member' | 'admin' | 'superadmin' }>>().notNull(),
    inviteCode: text('invite_code').notNull(),
    pictureUrl: text('picture_url'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('sandbox_groups_account_idx').on(t.accountId), uniqueIndex('sandbox_groups_invite_code_key').on(t.inviteCode)],
);

export const sandboxMedia = pgTable('sandbox_media', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull(),
  mimeType: text('mime_type').notNull(),
  /** base64 of the bytes. */
  data: text('data').notNull(),
  /** Served as `data` followed by zero bytes up to this size (tests' large media); just `data` when null. */
  paddedSize: integer('padded_size'),
  createdAt: createdAt(),
});

/**
 * A sandbox gateway session's own account, as the sandbox plays it (sandbox/gateway/profiles.ts): its
 * profile, the numbers it blocks and its privacy settings. Made when first changed.
 */
export const sandboxProfiles = pgTable('sandbox_profiles', {
  accountId: text('account_id').primaryKey(),
  name: text('name'),
  about: text('about'),
  /** The profile picture: a sandbox_media id, or none. */
  pictureMediaId: text('picture_media_id'),
  /** The numbers it blocks (international digits), in the order they were blocked. */
  blocked: jsonb('blocked').$type<string[]>().notNull().default([]),
  /** Its privacy settings by Parley's names (the defaults where a setting is absent). */
  privacy: jsonb('privacy').$type<Record<string, string>>().notNull().default({}),
  updatedAt: updatedAt(),
});

/** The sandbox gateway's business labels of a session (sandbox/gateway/labels.ts): each with the chats it is on. */
export const sandboxLabels = pgTable(
  'sandbox_labels',
  {
    accountId: text('account_id').notNull(),
    id: text('id').notNull(),
    name: text('name').notNull(),
    color: integer('color').notNull().default(0),
    chats: jsonb('chats').$type<string[]>().notNull().default([]),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.id] })],
);

/** One thread with one customer number on one channel. */
export const conversations = pgTable(
  'conversations',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** No foreign key: a deleted channel's conversations stay as history. */
    channelId: uuid('channel_id').notNull(),
    /** The customer's number, international digits without `+`. */
    peerPhone: text('peer_phone').notNull(),
    contactId: uuid('contact_id'),
    /** open, pending, snoozed or resolved (`closed` is accepted on input for resolved: DECISIONS). */
    status: text('status').notNull().default('open'),
    /** Snoozed until then (the conversations-wake job reopens it); null while snoozed: until the customer writes. */
    snoozedUntil: at('snoozed_until'),
    /** none, low, medium, high or urgent. */
    priority: text('priority').notNull().default('none'),
    assigneeUserId: uuid('assignee_user_id'),
    /** The team it belongs to (its channel's when it came in, or set by hand); unassigned and open, it waits in that team's queue. */
    teamId: uuid('team_id').references((): AnyPgColumn => teams.id, { onDelete: 'set null' }),
    lastMessageAt: at('last_message_at'),
    /** The last customer message: opens the 24-hour customer-service window. */
    lastInboundAt: at('last_inbound_at'),
    lastMessagePreview: text('last_message_preview'),
    /** Inbound messages since the conversation was last marked read (by anyone of the team): kept on the row, never counted per request. */
    unreadCount: integer('unread_count').notNull().default(0),
    lastReadAt: at('last_read_at'),
    /** The chat's state on the linked phone (unofficial channels: chats.manage), kept in step with the engine's reports. */
    archived: boolean('archived').notNull().default(false),
    pinnedAt: at('pinned_at'),
    mutedUntil: at('muted_until'),
    /** Marked unread by hand (the phone's "mark as unread"), whatever the unread count. */
    markedUnread: boolean('marked_unread').notNull().default(false),
    /** The chat was deleted on the phone: out of the channel's chat list until a newer message; the conversation keeps its history. */
    chatDeletedAt: at('chat_deleted_at'),
    /** When the chat's state last changed (API or phone): an engine's report older than that is history, not news. */
    chatChangedAt: at('chat_changed_at'),
    /** When the last away message was decided (the inbound message's time): at most one per away_every_hours (domain/business-hours). */
    awaySentAt: at('away_sent_at'),
    /** When the greeting of a first contact was decided. */
    greetingSentAt: at('greeting_sent_at'),
    /** The bot that owns the conversation now (its open session: bot_sessions); null: people own it (domain/bots). */
    botId: uuid('bot_id').references((): AnyPgColumn => bots.id, { onDelete: 'set null' }),
    /**
     * When people took the conversation from bots (a member's reply or assignment, a hand-off to people):
     * while set, no trigger starts a bot here; a hand-off to a bot or resolving the conversation clears it.
     */
    botPausedAt: at('bot_paused_at'),
    /** The customer's last satisfaction rating (1-5) and when it came (domain/csat; the survey rows keep each one). */
    csatRating: integer('csat_rating'),
    csatAnsweredAt: at('csat_answered_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('conversations_channel_peer_key').on(t.channelId, t.peerPhone),
    // The inbox's order (conversationActivity in domain/messages/conversations.ts), alone and by status.
    index('conversations_organization_activity_idx').on(
      t.organizationId,
      sql`coalesce(${t.lastMessageAt}, ${t.createdAt}) desc`,
      sql`${t.id} desc`,
    ),
    index('conversations_organization_status_activity_idx').on(
      t.organizationId,
      t.status,
      sql`coalesce(${t.lastMessageAt}, ${t.createdAt}) desc`,
      sql`${t.id} desc`,
    ),
    index('conversations_contact_idx').on(t.contactId),
    // A team's queue, oldest first (domain/teams/assignment.ts), and the open conversations a member holds.
    index('conversations_team_queue_idx')
      .on(t.teamId, t.createdAt, t.id)
      .where(sql`${t.assigneeUserId} is null and ${t.status} = 'open' and ${t.teamId} is not null`),
    index('conversations_assignee_open_idx').on(t.organizationId, t.assigneeUserId).where(sql`${t.status} = 'open'`),
    // The snoozed conversations to wake, soonest first (jobs: conversations.wake).
    index('conversations_snoozed_until_idx').on(t.snoozedUntil).where(sql`${t.status} = 'snoozed' and ${t.snoozedUntil} is not null`),
    check('conversations_status_check', sql`${t.status} in ('open', 'pending', 'snoozed', 'resolved')`),
    check('conversations_priority_check', sql`${t.priority} in ('none', 'low', 'medium', 'high', 'urgent')`),
  ],
);

/** Organization-wide labels for conversations (the team inbox's own, not a linked phone's chat labels). */
export const conversationLabels = pgTable(
  'conversation_labels',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** #rrggbb, lower case. */
    color: text('color').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('conversation_labels_organization_name_key').on(t.organizationId, sql`lower(${t.name})`),
    check('conversation_labels_color_check', sql`${t.color} ~ '^#[0-9a-f]{6}$'`),
  ],
);

/** A label on a conversation. */
export const conversationLabelLinks = pgTable(
  'conversation_label_links',
  {
    conversationId: uuid('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    labelId: uuid('label_id')
      .notNull()
      .references(() => conversationLabels.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.conversationId, t.labelId] }),
    index('conversation_label_links_label_idx').on(t.labelId, t.conversationId),
  ],
);

/** A private note inside a conversation: the team's, never sent to the customer. */
export const conversationNotes = pgTable(
  'conversation_notes',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    conversationId: uuid('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    /** The member who wrote it; null for an API key (or once the user was deleted). */
    authorUserId: uuid('author_user_id').references(() => users.id, { onDelete: 'set null' }),
    body: text('body').notNull(),
    /** The members mentioned (user ids). */
    mentions: jsonb('mentions').$type<string[]>().notNull().default([]),
    createdAt: createdAt(),
  },
  (t) => [index('conversation_notes_conversation_idx').on(t.conversationId, t.createdAt, t.id)],
);

export const messages = pgTable(
  'messages',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    channelId: uuid('channel_id').notNull(),
    conversationId: uuid('conversation_id').notNull(),
    contactId: uuid('contact_id'),
    direction: text('direction').notNull(),
    /** Digits without `+`: the recipient of an outbound message, our number for an inbound one. */
    toPhone: text('to_phone').notNull(),
    fromPhone: text('from_phone'),
    type: text('type').notNull(),
    content: jsonb('content').$type<Record<string, unknown>>().notNull(),
    status: text('status').notNull(),
    providerMessageId: text('provider_message_id'),
    errorCode: text('error_code'),
    errorTitle: text('error_title'),
    errorMessage: text('error_message'),
    /** The provider's own wording of the error for the end user (official: error_user_title, error_user_msg). */
    errorUserTitle: text('error_user_title'),
    errorUserMessage: text('error_user_message'),
    attempts: integer('attempts').notNull().default(0),
    lastAttemptAt: at('last_attempt_at'),
    /**
     * The message row is its own dispatch job: due at this time (null when there is nothing to send).
     * A worker that claims it pushes it forward by a lease, so a worker that dies leaves it due again.
     */
    dispatchAt: at('dispatch_at'),
    /** When the sender last changed the text (the provider's time of the edit); null when never edited. */
    editedAt: at('edited_at'),
    /** When the sender deleted it for everyone (the row and its content are kept); null when not deleted. */
    deletedAt: at('deleted_at'),
    /** Starred on the linked phone (unofficial channels: messages.star). */
    starred: boolean('starred').notNull().default(false),
    /** Pinned in its chat for everyone until then (unofficial channels: messages.pin); null when not pinned. */
    pinnedUntil: at('pinned_until'),
    /** The broadcast that sent it (domain/broadcasts); null for any other message. No foreign key: a deleted broadcast leaves its messages. */
    broadcastId: uuid('broadcast_id'),
    /**
     * Every status it reached, in the order the reports arrived: one entry per status (a repeated or
     * late report adds none; billing a later report brings fills what the entry lacks). Appended by the
     * write that moves the status (messages.ts writeMoves), so a status costs no row of its own. The
     * view message_status_log lists the entries as rows.
     */
    statusHistory: jsonb('status_history').$type<StatusHistoryEntry[]>().notNull().default(sql`'[]'::jsonb`),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('messages_organization_created_idx').on(t.organizationId, t.createdAt, t.id),
    index('messages_dispatch_due_idx').on(t.dispatchAt).where(sql`${t.dispatchAt} is not null`),
    index('messages_conversation_idx').on(t.conversationId, t.createdAt),
    // A contact's messages newest first (its timeline, domain/crm/timeline.ts); also every lookup by contact.
    index('messages_contact_created_idx').on(t.contactId, t.createdAt, t.id),
    // Text search (domain/search): words of texts and captions. Not partial: the planner reads the
    // expression's statistics (how common a word is) only from an index without a predicate, and needs
    // them to choose between this index (rare words) and the newest-first walk (common ones).
    index('messages_search_idx').using('gin', messageDocument(t)),
    uniqueIndex('messages_provider_id_key').on(t.channelId, t.providerMessageId),
    check('messages_direction_check', sql`${t.direction} in ('inbound', 'outbound')`),
  ],
);

/**
 * A channel's outbound pace, shared by every worker process (domain/messages/pacing.ts): the time of
 * its next free send slot. The dispatcher's claim reserves slots here for the messages it takes, in
 * the same statement; a rate-limit answer about the whole channel pushes it forward. No foreign key:
 * a claim locks these rows, and a channel's deletion must not wait on them (a deleted channel's row is
 * inert).
 */
export const channelPacing = pgTable('channel_pacing', {
  channelId: uuid('channel_id').primaryKey(),
  nextSlotAt: at('next_slot_at').notNull(),
});

/**
 * The provider's per-recipient rate limit, shared by every worker process: the channel's sends to
 * this recipient wait until `until` (the claim leaves them due then). Ended holds are deleted when
 * the next hold is written.
 */
export const recipientHolds = pgTable(
  'recipient_holds',
  {
    channelId: uuid('channel_id').notNull(),
    recipient: text('recipient').notNull(),
    until: at('until').notNull(),
  },
  (t) => [primaryKey({ columns: [t.channelId, t.recipient] }), index('recipient_holds_until_idx').on(t.until)],
);

/** An entry of messages.status_history (webhook-style snake case: it is written by SQL as well as by code). */
export type StatusHistoryEntry = {
  id: string;
  status: string;
  error_code: string | null;
  error_title: string | null;
  /** What the provider's report of this status said about billing, as it sent it (official: `pricing`, `conversation`). */
  pricing: Record<string, unknown> | null;
  conversation: Record<string, unknown> | null;
  /** When the provider says it happened (or when we recorded it). */
  occurred_at: string;
  created_at: string;
};

/**
 * Emptied by migration 0040: its rows moved to messages.status_history, where statuses are now kept
 * (a row per status cost a row written per status). Nothing writes it; a later migration drops it.
 */
export const messageStatusHistory = pgTable(
  'message_status_history',
  {
    id: uuid('id').primaryKey(),
    messageId: uuid('message_id')
      .notNull()
      .references(() => messages.id, { onDelete: 'cascade' }),
    status: text('status').notNull(),
    errorCode: text('error_code'),
    errorTitle: text('error_title'),
    /** What the provider's report of this status said about billing, as it sent it (official: `pricing`, `conversation`). */
    pricing: jsonb('pricing').$type<Record<string, unknown>>(),
    conversation: jsonb('conversation').$type<Record<string, unknown>>(),
    /** When the provider says it happened (or when we recorded it). */
    occurredAt: at('occurred_at').notNull(),
    createdAt: createdAt(),
  },
  // One row per status a message reached: a repeated or late report of a status adds none.
  (t) => [uniqueIndex('message_status_history_message_status_key').on(t.messageId, t.status)],
);

/**
 * The media an inbound message carried, downloaded from the provider when it arrives (its links
 * expire) and kept in the media store (src/storage/). One row per message; `source` is the
 * platform's own handle for the download (it may hold decryption keys) and is never presented.
 */
export const messageMedia = pgTable(
  'message_media',
  {
    messageId: uuid('message_id')
      .primaryKey()
      .references(() => messages.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** pending (the download job is due), stored, or failed (error_code says why). */
    status: text('status').notNull(),
    /** The object's key in the media store, once stored. */
    storageKey: text('storage_key'),
    /** Sniffed from the bytes (application/octet-stream when they tell nothing); the type it is served with. */
    contentType: text('content_type'),
    /** What the provider said the type was: recorded, never trusted. */
    declaredType: text('declared_type'),
    size: bigint('size', { mode: 'number' }),
    sha256: text('sha256'),
    fileName: text('file_name'),
    source: jsonb('source').$type<Record<string, unknown>>().notNull(),
    errorCode: text('error_code'),
    errorTitle: text('error_title'),
    attempts: integer('attempts').notNull().default(0),
    storedAt: at('stored_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('message_media_organization_idx').on(t.organizationId),
    check('message_media_status_check', sql`${t.status} in ('pending', 'stored', 'failed')`),
  ],
);

/** Idempotency-Key of a send: the message it made (its first answer is that message as accepted), kept 24 hours. */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    messageId: uuid('message_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.key] }), index('idempotency_keys_created_idx').on(t.createdAt)],
);

/**
 * Idempotency-Key of any other POST or PATCH (http/idempotency.ts): the first request's answer under a
 * credential (`scope`: the API key, the user, or the OAuth client and user), kept 24 hours. `started`
 * while the first request runs; `completed` with its status and, when it may be shown again, its body.
 */
export const idempotentRequests = pgTable(
  'idempotent_requests',
  {
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    scope: text('scope').notNull(),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    state: text('state', { enum: ['started', 'completed'] }).notNull(),
    statusCode: integer('status_code'),
    contentType: text('content_type'),
    /** The answer's body; null when it held a secret shown once (the route's `idempotency: 'no-replay'`) or was too large. */
    body: text('body'),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.scope, t.key] }), index('idempotent_requests_created_idx').on(t.createdAt)],
);

/*
 * Contacts (the CRM). A contact's phone, email and external id are also rows of contact_identities,
 * which is where every lookup and every uniqueness rule lives: one identity value belongs to at most
 * one contact of an organization.
 */
export const contacts = pgTable(
  'contacts',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** E.164, with `+`. */
    phoneNumber: text('phone_number'),
    name: text('name'),
    /** As given; matched case-insensitively through its identity row. */
    email: text('email'),
    externalSource: text('external_source'),
    externalId: text('external_id'),
    customFields: jsonb('custom_fields').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('contacts_organization_created_idx').on(t.organizationId, t.createdAt, t.id),
    index('contacts_organization_updated_idx').on(t.organizationId, t.updatedAt),
    index('contacts_phone_prefix_idx').on(t.organizationId, t.phoneNumber.op('text_pattern_ops')),
    index('contacts_name_prefix_idx').on(t.organizationId, sql`lower(${t.name}) text_pattern_ops`),
    index('contacts_email_prefix_idx').on(t.organizationId, sql`lower(${t.email}) text_pattern_ops`),
    index('contacts_external_source_idx').on(t.organizationId, t.externalSource, t.createdAt),
    index('contacts_search_idx').using('gin', contactDocument(t)),
    check('contacts_phone_e164_check', sql`${t.phoneNumber} ~ '^\\+[1-9][0-9]{5,14}$'`),
    check('contacts_external_pair_check', sql`(${t.externalSource} is null) = (${t.externalId} is null)`),
    // The API limits custom_fields to 16 KiB of JSON; this is the backstop (jsonb's text form is wider).
    check(
      'contacts_custom_fields_check',
      sql`jsonb_typeof(${t.customFields}) = 'object' and octet_length(${t.customFields}::text) <= 65536`,
    ),
  ],
);

export const contactIdentities = pgTable(
  'contact_identities',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id').notNull(),
    contactId: uuid('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    /** The external system of an external_id; '' for every other type. */
    source: text('source').notNull().default(''),
    /** Normalized: E.164 phone, lower-case email, chat-app ids without `+` or address suffix. */
    value: text('value').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('contact_identities_value_key').on(t.organizationId, t.type, t.source, t.value),
    index('contact_identities_contact_idx').on(t.contactId),
    check(
      'contact_identities_type_check',
      sql`${t.type} in ('phone', 'chatapp_id', 'linked_id', 'business_scoped_user_id', 'username', 'email', 'external_id')`,
    ),
  ],
);

/** Tag names, organization-wide; matched case-insensitively. */
export const tags = pgTable(
  'tags',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('tags_organization_name_key').on(t.organizationId, sql`lower(${t.name})`)],
);

export const contactTags = pgTable(
  'contact_tags',
  {
    contactId: uuid('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    tagId: uuid('tag_id')
      .notNull()
      .references(() => tags.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.contactId, t.tagId] }), index('contact_tags_tag_idx').on(t.tagId, t.contactId)],
);

/** channel: a channel id of the organization, `chatapp` (every chat-app channel) or `all`. */
export const contactConsents = pgTable(
  'contact_consents',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id').notNull(),
    contactId: uuid('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    channel: text('channel').notNull(),
    state: text('state').notNull(),
    source: text('source'),
    /** When the consent was given or revoked (stated by the caller, default the time of the request). */
    recordedAt: at('recorded_at').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('contact_consents_contact_channel_key').on(t.contactId, t.channel),
    check('contact_consents_state_check', sql`${t.state} in ('granted', 'revoked')`),
  ],
);

export const contactSuppressions = pgTable(
  'contact_suppressions',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id').notNull(),
    contactId: uuid('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    channel: text('channel').notNull(),
    reason: text('reason').notNull(),
    /** Null: until lifted. */
    expiresAt: at('expires_at'),
    /** The inbound message that asked for it (an opt-out: a stop keyword or the opt-out button); null when set through the API. */
    messageId: uuid('message_id'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('contact_suppressions_contact_channel_key').on(t.contactId, t.channel)],
);

/*
 * The CRM's other records (docs/crm.md): companies, pipelines with their ordered stages, and deals in
 * them. A list sorted by name sorts on lower(name) in code-point order (collate "C"), so one index serves
 * the sort, its cursor and a name prefix filter.
 */
const customFieldsCheck = (name: string, column: AnyPgColumn) =>
  check(name, sql`jsonb_typeof(${column}) = 'object' and octet_length(${column}::text) <= 65536`);

export const companies = pgTable(
  'companies',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** The web domain, normalized (lower case, no scheme, path or `www.`); unique in the organization when set. */
    domain: text('domain'),
    /** E.164, with `+`. */
    phone: text('phone'),
    /** {line1, line2, city, region, postal_code, country}; null when none was given. */
    address: jsonb('address').$type<Record<string, string | null>>(),
    customFields: jsonb('custom_fields').$type<Record<string, unknown>>().notNull().default({}),
    ownerUserId: uuid('owner_user_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('companies_organization_domain_key').on(t.organizationId, t.domain),
    index('companies_organization_created_idx').on(t.organizationId, t.createdAt, t.id),
    index('companies_organization_updated_idx').on(t.organizationId, t.updatedAt, t.id),
    index('companies_organization_name_idx').on(t.organizationId, sql`(lower(${t.name}) collate "C")`, t.id),
    index('companies_organization_owner_idx').on(t.organizationId, t.ownerUserId, t.createdAt),
    index('companies_search_idx').using('gin', companyDocument(t)),
    check('companies_phone_e164_check', sql`${t.phone} ~ '^\\+[1-9][0-9]{5,14}$'`),
    check('companies_address_check', sql`${t.address} is null or jsonb_typeof(${t.address}) = 'object'`),
    customFieldsCheck('companies_custom_fields_check', t.customFields),
  ],
);

/** A sales process: its stages are ordered by position. One pipeline of an organization is its default. */
export const pipelines = pgTable(
  'pipelines',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    isDefault: boolean('is_default').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('pipelines_organization_created_idx').on(t.organizationId, t.createdAt, t.id),
    uniqueIndex('pipelines_organization_default_key').on(t.organizationId).where(sql`${t.isDefault}`),
  ],
);

export const pipelineStages = pgTable(
  'pipeline_stages',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id').notNull(),
    pipelineId: uuid('pipeline_id')
      .notNull()
      .references(() => pipelines.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** The chance, in percent, that a deal in this stage is won. */
    probability: integer('probability').notNull(),
    /** open, won or lost: a deal's status is its stage's kind. */
    kind: text('kind').notNull(),
    /** 0-based order in the pipeline. */
    position: integer('position').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('pipeline_stages_pipeline_position_idx').on(t.pipelineId, t.position),
    // What deals reference: a deal's stage is always a stage of the deal's pipeline.
    unique('pipeline_stages_pipeline_id_key').on(t.pipelineId, t.id),
    check('pipeline_stages_kind_check', sql`${t.kind} in ('open', 'won', 'lost')`),
    check('pipeline_stages_probability_check', sql`${t.probability} between 0 and 100`),
  ],
);

export const deals = pgTable(
  'deals',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** In the currency's minor units (cents); with currency, or neither. */
    amount: bigint('amount', { mode: 'number' }),
    /** ISO 4217, upper case. */
    currency: text('currency'),
    pipelineId: uuid('pipeline_id').notNull(),
    stageId: uuid('stage_id').notNull(),
    /** When the deal entered its stage: the board's order within a stage. */
    stageEnteredAt: at('stage_entered_at').notNull(),
    expectedCloseDate: date('expected_close_date', { mode: 'string' }),
    ownerUserId: uuid('owner_user_id').references(() => users.id, { onDelete: 'set null' }),
    companyId: uuid('company_id').references(() => companies.id, { onDelete: 'set null' }),
    /** The conversation the deal came from. No foreign key: conversations stay as history, like messages' links. */
    conversationId: uuid('conversation_id'),
    customFields: jsonb('custom_fields').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    foreignKey({
      name: 'deals_pipeline_stage_fk',
      columns: [t.pipelineId, t.stageId],
      foreignColumns: [pipelineStages.pipelineId, pipelineStages.id],
    }),
    index('deals_organization_created_idx').on(t.organizationId, t.createdAt, t.id),
    index('deals_organization_updated_idx').on(t.organizationId, t.updatedAt, t.id),
    index('deals_organization_name_idx').on(t.organizationId, sql`(lower(${t.name}) collate "C")`, t.id),
    index('deals_organization_close_idx').on(t.organizationId, sql`coalesce(${t.expectedCloseDate}, '9999-12-31'::date)`, t.id),
    index('deals_organization_owner_idx').on(t.organizationId, t.ownerUserId, t.createdAt),
    index('deals_search_idx').using('gin', dealDocument(t)),
    // The board: a stage's deals, most recently arrived first; the totals of a pipeline by stage and currency.
    index('deals_stage_board_idx').on(t.stageId, t.stageEnteredAt, t.id),
    index('deals_pipeline_totals_idx').on(t.pipelineId, t.stageId, t.currency, t.amount),
    index('deals_company_idx').on(t.companyId),
    index('deals_conversation_idx').on(t.conversationId),
    check('deals_amount_pair_check', sql`(${t.amount} is null) = (${t.currency} is null)`),
    check('deals_amount_check', sql`${t.amount} >= 0`),
    check('deals_currency_check', sql`${t.currency} ~ '^[A-Z]{3}$'`),
    customFieldsCheck('deals_custom_fields_check', t.customFields),
  ],
);

/**
 * An order: what a customer bought, from an inbound `order` message (message_id, unique: one order per
 * message) or created by the API. order_no counts an organization's orders from 1 without gaps
 * (order_counters). Items are a JSON array of {product_retailer_id, name, quantity, unit_amount, amount};
 * amounts in the currency's minor units, total_amount their sum.
 */
export const orders = pgTable(
  'orders',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    orderNo: bigint('order_no', { mode: 'number' }).notNull(),
    /** pending, confirmed, shipped, delivered, cancelled. */
    status: text('status').notNull(),
    /** pending, paid, failed, refunded. */
    paymentStatus: text('payment_status').notNull(),
    /** The customer; a deleted contact leaves the order without one. */
    contactId: uuid('contact_id').references(() => contacts.id, { onDelete: 'set null' }),
    /** The conversation the order came from. No foreign key: conversations stay as history. */
    conversationId: uuid('conversation_id'),
    /** The inbound message that placed it (null for an order created by the API). */
    messageId: uuid('message_id'),
    /** `message` or `api`. */
    source: text('source').notNull(),
    catalogId: text('catalog_id'),
    /** ISO 4217, upper case. */
    currency: text('currency').notNull(),
    items: jsonb('items').$type<Array<Record<string, unknown>>>().notNull(),
    totalAmount: bigint('total_amount', { mode: 'number' }).notNull(),
    /** The customer's words with the order (the message's text), or a note given by the API. */
    note: text('note'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('orders_organization_no_key').on(t.organizationId, t.orderNo),
    uniqueIndex('orders_message_key').on(t.messageId),
    index('orders_organization_created_idx').on(t.organizationId, t.createdAt, t.id),
    index('orders_organization_status_idx').on(t.organizationId, t.status, t.createdAt, t.id),
    index('orders_organization_payment_idx').on(t.organizationId, t.paymentStatus, t.createdAt, t.id),
    index('orders_contact_idx').on(t.contactId, t.createdAt, t.id),
    check('orders_status_check', sql`${t.status} in ('pending', 'confirmed', 'shipped', 'delivered', 'cancelled')`),
    check('orders_payment_status_check', sql`${t.paymentStatus} in ('pending', 'paid', 'failed', 'refunded')`),
    check('orders_source_check', sql`${t.source} in ('message', 'api')`),
    check('orders_currency_check', sql`${t.currency} ~ '^[A-Z]{3}$'`),
    check('orders_total_check', sql`${t.totalAmount} >= 0`),
    check('orders_items_check', sql`jsonb_typeof(${t.items}) = 'array'`),
  ],
);

/** Each organization's last order number: the row is updated in the order's transaction, so numbers have no gaps. */
export const orderCounters = pgTable('order_counters', {
  organizationId: uuid('organization_id')
    .primaryKey()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  lastNo: bigint('last_no', { mode: 'number' }).notNull(),
});

/** The contacts of a deal. */
export const dealContacts = pgTable(
  'deal_contacts',
  {
    dealId: uuid('deal_id')
      .notNull()
      .references(() => deals.id, { onDelete: 'cascade' }),
    contactId: uuid('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.dealId, t.contactId] }), index('deal_contacts_contact_idx').on(t.contactId, t.dealId)],
);

/**
 * A deal's stays in its stages: one row per stage entered, closed (left_at) when it moves on; the open
 * row is the current stage. The stage's name is kept as it was, since the stage may be deleted later.
 */
export const dealStageHistory = pgTable(
  'deal_stage_history',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id').notNull(),
    dealId: uuid('deal_id')
      .notNull()
      .references(() => deals.id, { onDelete: 'cascade' }),
    pipelineId: uuid('pipeline_id').notNull(),
    stageId: uuid('stage_id').notNull(),
    stageName: text('stage_name').notNull(),
    enteredAt: at('entered_at').notNull(),
    leftAt: at('left_at'),
    /** Who moved it: user (by session), api_key, oauth_client (a user through an app) or system. */
    changedByType: text('changed_by_type').notNull(),
    /** The user id, API key id or OAuth client_id; null for system. */
    changedById: text('changed_by_id'),
    /** The person behind it (a user, or the user an OAuth client acted for). */
    changedByUserId: uuid('changed_by_user_id'),
  },
  (t) => [
    index('deal_stage_history_deal_idx').on(t.dealId, t.enteredAt, t.id),
    uniqueIndex('deal_stage_history_open_key').on(t.dealId).where(sql`${t.leftAt} is null`),
    check('deal_stage_history_changed_by_check', sql`${t.changedByType} in ('user', 'api_key', 'oauth_client', 'system')`),
  ],
);

/*
 * What refers to any CRM record (task targets, comments, relationships) names it by kind and id; a
 * stored generated column per kind holds the id when the record is of that kind, and its foreign key
 * deletes the reference with the record (conversations have none: they stay as history). See
 * DECISIONS 96.
 */
const recordIdOf = (column: string, kindColumn: string, idColumn: string, kind: string) =>
  uuid(column).generatedAlwaysAs(sql.raw(`case when "${kindColumn}" = '${kind}' then "${idColumn}" end`));

const changedByTypeCheck = (name: string, column: AnyPgColumn) =>
  check(name, sql`${column} in ('user', 'api_key', 'oauth_client', 'system')`);

/** A to-do of the organization's: due at a time, assigned to a member, linked to records (task_targets). */
export const tasks = pgTable(
  'tasks',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    notes: text('notes'),
    dueAt: at('due_at'),
    assigneeUserId: uuid('assignee_user_id').references(() => users.id, { onDelete: 'set null' }),
    /** low, medium or high; null for none. */
    priority: text('priority'),
    /** open or completed. */
    status: text('status').notNull().default('open'),
    completedAt: at('completed_at'),
    /** Who completed it (as deal_stage_history's changed_by). */
    completedByType: text('completed_by_type'),
    completedById: text('completed_by_id'),
    completedByUserId: uuid('completed_by_user_id'),
    createdByType: text('created_by_type').notNull(),
    createdById: text('created_by_id'),
    createdByUserId: uuid('created_by_user_id'),
    /** When crm.task.due was recorded for the current due_at; a new due_at clears it (the reminder re-armed). */
    dueNotifiedAt: at('due_notified_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('tasks_organization_created_idx').on(t.organizationId, t.createdAt, t.id),
    // Tasks without a due time sort last (as in the domain's sort).
    index('tasks_organization_due_idx').on(t.organizationId, sql`coalesce(${t.dueAt}, '9999-12-31T23:59:59.999Z'::timestamptz)`, t.id),
    index('tasks_organization_assignee_idx').on(t.organizationId, t.assigneeUserId, t.status, t.dueAt),
    // The due reminders still to record, soonest first (jobs: crm.tasks-due).
    index('tasks_due_pending_idx').on(t.dueAt).where(sql`${t.status} = 'open' and ${t.dueNotifiedAt} is null and ${t.dueAt} is not null`),
    check('tasks_status_check', sql`${t.status} in ('open', 'completed')`),
    check('tasks_completed_check', sql`(${t.status} = 'completed') = (${t.completedAt} is not null)`),
    check('tasks_priority_check', sql`${t.priority} in ('low', 'medium', 'high')`),
    changedByTypeCheck('tasks_completed_by_check', t.completedByType),
    changedByTypeCheck('tasks_created_by_check', t.createdByType),
  ],
);

/** The records a task is linked to (Twenty's task targets): contacts, companies, deals, conversations. */
export const taskTargets = pgTable(
  'task_targets',
  {
    taskId: uuid('task_id')
      .notNull()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id').notNull(),
    recordKind: text('record_kind').notNull(),
    recordId: uuid('record_id').notNull(),
    contactId: recordIdOf('contact_id', 'record_kind', 'record_id', 'contact').references(() => contacts.id, { onDelete: 'cascade' }),
    companyId: recordIdOf('company_id', 'record_kind', 'record_id', 'company').references(() => companies.id, { onDelete: 'cascade' }),
    dealId: recordIdOf('deal_id', 'record_kind', 'record_id', 'deal').references(() => deals.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.taskId, t.recordKind, t.recordId] }),
    index('task_targets_record_idx').on(t.recordId, t.recordKind, t.taskId),
    index('task_targets_contact_idx').on(t.contactId).where(sql`${t.contactId} is not null`),
    index('task_targets_company_idx').on(t.companyId).where(sql`${t.companyId} is not null`),
    index('task_targets_deal_idx').on(t.dealId).where(sql`${t.dealId} is not null`),
    check('task_targets_kind_check', sql`${t.recordKind} in ('contact', 'company', 'deal', 'conversation')`),
  ],
);

/** Comments on a record (a contact's notes among them), with their author. */
export const comments = pgTable(
  'comments',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    recordKind: text('record_kind').notNull(),
    recordId: uuid('record_id').notNull(),
    contactId: recordIdOf('contact_id', 'record_kind', 'record_id', 'contact').references(() => contacts.id, { onDelete: 'cascade' }),
    companyId: recordIdOf('company_id', 'record_kind', 'record_id', 'company').references(() => companies.id, { onDelete: 'cascade' }),
    dealId: recordIdOf('deal_id', 'record_kind', 'record_id', 'deal').references(() => deals.id, { onDelete: 'cascade' }),
    taskId: recordIdOf('task_id', 'record_kind', 'record_id', 'task').references(() => tasks.id, { onDelete: 'cascade' }),
    /** Who wrote it (as deal_stage_history's changed_by): only they edit it. */
    authorType: text('author_type').notNull(),
    authorId: text('author_id'),
    authorUserId: uuid('author_user_id'),
    body: text('body').notNull(),
    createdAt: createdAt(),
    editedAt: at('edited_at'),
  },
  (t) => [
    index('comments_record_idx').on(t.recordId, t.createdAt, t.id),
    index('comments_organization_created_idx').on(t.organizationId, t.createdAt, t.id),
    index('comments_contact_idx').on(t.contactId).where(sql`${t.contactId} is not null`),
    index('comments_company_idx').on(t.companyId).where(sql`${t.companyId} is not null`),
    index('comments_deal_idx').on(t.dealId).where(sql`${t.dealId} is not null`),
    index('comments_task_idx').on(t.taskId).where(sql`${t.taskId} is not null`),
    check('comments_kind_check', sql`${t.recordKind} in ('contact', 'company', 'deal', 'task', 'conversation')`),
    changedByTypeCheck('comments_author_type_check', t.authorType),
  ],
);

/**
 * The labels of relationships an organization uses ("works at" from contact to company), each with its
 * optional inverse ("employs"): a link reads by its name from its `from` record, by the inverse from
 * its `to` record; a label without an inverse reads the same both ways.
 */
export const relationshipLabels = pgTable(
  'relationship_labels',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    inverseName: text('inverse_name'),
    fromKind: text('from_kind').notNull(),
    toKind: text('to_kind').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('relationship_labels_name_key').on(t.organizationId, t.fromKind, t.toKind, sql`lower(${t.name})`),
    index('relationship_labels_organization_created_idx').on(t.organizationId, t.createdAt, t.id),
    check('relationship_labels_from_kind_check', sql`${t.fromKind} in ('contact', 'company', 'deal')`),
    check('relationship_labels_to_kind_check', sql`${t.toKind} in ('contact', 'company', 'deal')`),
  ],
);

/** A link between two records with a label, once per pair and label. */
export const relationships = pgTable(
  'relationships',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    labelId: uuid('label_id')
      .notNull()
      .references(() => relationshipLabels.id, { onDelete: 'cascade' }),
    fromKind: text('from_kind').notNull(),
    fromId: uuid('from_id').notNull(),
    toKind: text('to_kind').notNull(),
    toId: uuid('to_id').notNull(),
    fromContactId: recordIdOf('from_contact_id', 'from_kind', 'from_id', 'contact').references(() => contacts.id, { onDelete: 'cascade' }),
    fromCompanyId: recordIdOf('from_company_id', 'from_kind', 'from_id', 'company').references(() => companies.id, {
      onDelete: 'cascade',
    }),
    fromDealId: recordIdOf('from_deal_id', 'from_kind', 'from_id', 'deal').references(() => deals.id, { onDelete: 'cascade' }),
    toContactId: recordIdOf('to_contact_id', 'to_kind', 'to_id', 'contact').references(() => contacts.id, { onDelete: 'cascade' }),
    toCompanyId: recordIdOf('to_company_id', 'to_kind', 'to_id', 'company').references(() => companies.id, { onDelete: 'cascade' }),
    toDealId: recordIdOf('to_deal_id', 'to_kind', 'to_id', 'deal').references(() => deals.id, { onDelete: 'cascade' }),
    createdByType: text('created_by_type').notNull(),
    createdById: text('created_by_id'),
    createdByUserId: uuid('created_by_user_id'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('relationships_pair_key').on(t.labelId, t.fromId, t.toId),
    index('relationships_from_idx').on(t.fromId, t.createdAt, t.id),
    index('relationships_to_idx').on(t.toId, t.createdAt, t.id),
    index('relationships_organization_created_idx').on(t.organizationId, t.createdAt, t.id),
    index('relationships_from_contact_idx').on(t.fromContactId).where(sql`${t.fromContactId} is not null`),
    index('relationships_from_company_idx').on(t.fromCompanyId).where(sql`${t.fromCompanyId} is not null`),
    index('relationships_from_deal_idx').on(t.fromDealId).where(sql`${t.fromDealId} is not null`),
    index('relationships_to_contact_idx').on(t.toContactId).where(sql`${t.toContactId} is not null`),
    index('relationships_to_company_idx').on(t.toCompanyId).where(sql`${t.toCompanyId} is not null`),
    index('relationships_to_deal_idx').on(t.toDealId).where(sql`${t.toDealId} is not null`),
    check('relationships_not_self_check', sql`${t.fromId} <> ${t.toId}`),
    changedByTypeCheck('relationships_created_by_check', t.createdByType),
  ],
);

/** Where an organization's events are POSTed (Svix's model: an endpoint, its filter and its signing secret). */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    description: text('description').notNull().default(''),
    /** The event types it receives; empty means every type. */
    eventTypes: text('event_types').array().notNull().default(sql`'{}'::text[]`),
    enabled: boolean('enabled').notNull().default(true),
    disabledReason: text('disabled_reason'),
    disabledAt: at('disabled_at'),
    /** `whsec_...`, sealed (it must be read back to sign). */
    secretSealed: text('secret_sealed').notNull(),
    /** The secret before the last rotation: it keeps signing beside the new one until previous_secret_expires_at. */
    previousSecretSealed: text('previous_secret_sealed'),
    previousSecretExpiresAt: at('previous_secret_expires_at'),
    /** Failed attempts since the last success. */
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    /** The first failed attempt since the last success; null while the last attempt succeeded. */
    failingSince: at('failing_since'),
    lastSuccessAt: at('last_success_at'),
    lastFailureAt: at('last_failure_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('webhook_endpoints_organization_idx').on(t.organizationId, t.createdAt)],
);

/**
 * One event (or test send) to one endpoint: the unit that is retried. The row is its own job: the
 * delivery engine claims due rows with a lease (locked_until), so a worker that dies mid-attempt
 * leaves the row to be claimed again once the lease lapses.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    endpointId: uuid('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    /** The webhook-id header: the event's id, or a test send's own id. Stable across attempts. */
    messageId: uuid('message_id').notNull(),
    eventId: uuid('event_id').references(() => events.id, { onDelete: 'cascade' }),
    eventType: text('event_type').notNull(),
    /** The body of a test send (an event's body is read from the event). */
    payload: jsonb('payload').$type<Record<string, unknown>>(),
    test: boolean('test').notNull().default(false),
    status: text('status').notNull(),
    attempts: integer('attempts').notNull().default(0),
    /** When the next attempt is due; set while pending. */
    nextAttemptAt: at('next_attempt_at'),
    /** The next attempt was asked for by hand: when it fails the delivery is failed, not rescheduled. */
    manual: boolean('manual').notNull().default(false),
    lockedUntil: at('locked_until'),
    lockedBy: uuid('locked_by'),
    lastAttemptAt: at('last_attempt_at'),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    /**
     * The delivery's latest attempt, kept in its own row instead of a webhook_attempts row: a delivery
     * that succeeds at its first attempt (nearly all) writes no attempt row. The next attempt moves it to
     * webhook_attempts (the outcome write, engine/write-outcomes.ts); the view webhook_attempt_log reads
     * both. Null before the first attempt, and for deliveries whose attempts all went to webhook_attempts
     * (those made before this column).
     */
    latestAttempt: jsonb('latest_attempt').$type<FoldedAttempt>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_endpoint_message_key').on(t.endpointId, t.messageId),
    index('webhook_deliveries_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index('webhook_deliveries_organization_idx').on(t.organizationId, t.createdAt, t.id),
    index('webhook_deliveries_message_idx').on(t.messageId),
    index('webhook_deliveries_event_idx').on(t.eventId),
    index('webhook_deliveries_created_idx').on(t.createdAt),
    check('webhook_deliveries_status_check', sql`${t.status} in ('pending', 'succeeded', 'failed')`),
  ],
);

/** A delivery's latest attempt as its row keeps it (webhook_deliveries.latest_attempt): webhook_attempts' columns, by name. */
export type FoldedAttempt = {
  id: string;
  trigger: string;
  attempted_at: string;
  status_code: number | null;
  duration_ms: number;
  response_body: string | null;
  error: string | null;
};

/**
 * A delivery's attempts before its latest (which its row keeps, latest_attempt): when, the answer's
 * status and first 4 KB, how long it took, what went wrong. Read both through the view
 * webhook_attempt_log (its migration's custom SQL).
 */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id').notNull(),
    deliveryId: uuid('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    endpointId: uuid('endpoint_id').notNull(),
    /** scheduled (the retry schedule), manual (the retry route) or test (the test route). */
    trigger: text('trigger').notNull(),
    attemptedAt: at('attempted_at').notNull(),
    statusCode: integer('status_code'),
    durationMs: integer('duration_ms').notNull(),
    responseBody: text('response_body'),
    error: text('error'),
  },
  (t) => [
    index('webhook_attempts_delivery_idx').on(t.deliveryId, t.attemptedAt),
    index('webhook_attempts_attempted_idx').on(t.attemptedAt),
  ],
);

/**
 * Every attempt of every delivery: webhook_attempts' rows and each delivery's latest attempt, kept in
 * its row (webhook_deliveries.latest_attempt). Made by the custom SQL of migration 0040; a filter on
 * delivery_id reaches both sides (the deliveries' by their primary key).
 */
export const webhookAttemptLog = pgView('webhook_attempt_log', {
  id: uuid('id').notNull(),
  organizationId: uuid('organization_id').notNull(),
  deliveryId: uuid('delivery_id').notNull(),
  endpointId: uuid('endpoint_id').notNull(),
  trigger: text('trigger').notNull(),
  attemptedAt: at('attempted_at').notNull(),
  statusCode: integer('status_code'),
  durationMs: integer('duration_ms').notNull(),
  responseBody: text('response_body'),
  error: text('error'),
}).existing();

/*
 * Lists (static, of one kind of record) and segments (a saved filter over contacts): docs/crm.md
 * "Lists" and "Segments". An entry names its record by kind and id, with a generated column per kind
 * whose foreign key deletes the entry with its record, as task_targets do.
 */
export const lists = pgTable(
  'lists',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** contact, company or deal: every entry is a record of this kind. */
    kind: text('kind').notNull(),
    description: text('description'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('lists_organization_name_key').on(t.organizationId, sql`lower(${t.name})`),
    index('lists_organization_created_idx').on(t.organizationId, t.createdAt, t.id),
    index('lists_organization_updated_idx').on(t.organizationId, t.updatedAt, t.id),
    index('lists_organization_name_idx').on(t.organizationId, sql`(lower(${t.name}) collate "C")`, t.id),
    check('lists_kind_check', sql`${t.kind} in ('contact', 'company', 'deal')`),
  ],
);

export const listEntries = pgTable(
  'list_entries',
  {
    listId: uuid('list_id')
      .notNull()
      .references(() => lists.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id').notNull(),
    recordKind: text('record_kind').notNull(),
    recordId: uuid('record_id').notNull(),
    contactId: recordIdOf('contact_id', 'record_kind', 'record_id', 'contact').references(() => contacts.id, { onDelete: 'cascade' }),
    companyId: recordIdOf('company_id', 'record_kind', 'record_id', 'company').references(() => companies.id, { onDelete: 'cascade' }),
    dealId: recordIdOf('deal_id', 'record_kind', 'record_id', 'deal').references(() => deals.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.listId, t.recordId] }),
    // A list's page (newest entry first) and a record's lists (the segment filter `lists`).
    index('list_entries_list_created_idx').on(t.listId, t.createdAt, t.recordId),
    index('list_entries_record_idx').on(t.recordId, t.listId),
    index('list_entries_contact_idx').on(t.contactId).where(sql`${t.contactId} is not null`),
    index('list_entries_company_idx').on(t.companyId).where(sql`${t.companyId} is not null`),
    index('list_entries_deal_idx').on(t.dealId).where(sql`${t.dealId} is not null`),
    check('list_entries_kind_check', sql`${t.recordKind} in ('contact', 'company', 'deal')`),
  ],
);

export const segments = pgTable(
  'segments',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    /** The filter as validated (domain/segments/filter.ts): {and|or: [...]}. */
    filter: jsonb('filter').$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('segments_organization_name_key').on(t.organizationId, sql`lower(${t.name})`),
    index('segments_organization_created_idx').on(t.organizationId, t.createdAt, t.id),
    index('segments_organization_updated_idx').on(t.organizationId, t.updatedAt, t.id),
    index('segments_organization_name_idx').on(t.organizationId, sql`(lower(${t.name}) collate "C")`, t.id),
  ],
);

/**
 * Canned responses (domain/canned-responses): a reply an agent inserts with `/shortcut`, shared by the
 * organization (owner_user_id null) or one member's own. A shortcut is unique among the shared ones and
 * among each member's own.
 */
export const cannedResponses = pgTable(
  'canned_responses',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    ownerUserId: uuid('owner_user_id').references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    shortcut: text('shortcut').notNull(),
    body: text('body').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('canned_responses_shared_shortcut_key').on(t.organizationId, t.shortcut).where(sql`${t.ownerUserId} is null`),
    uniqueIndex('canned_responses_own_shortcut_key')
      .on(t.organizationId, t.ownerUserId, t.shortcut)
      .where(sql`${t.ownerUserId} is not null`),
    index('canned_responses_organization_shortcut_idx').on(t.organizationId, t.shortcut, t.id),
    check('canned_responses_shortcut_check', sql`${t.shortcut} ~ '^[a-z0-9][a-z0-9_-]{0,31}$'`),
  ],
);

/**
 * Broadcasts (domain/broadcasts): a template sent to an audience through the messages' own accept
 * path. `next_run_at` is when the runner takes it next (its audience frozen at the first run, then a
 * batch per run); `lease_until` keeps two runners off one broadcast. Status: draft, scheduled, sending,
 * paused, completed, stopped, failed.
 */
export const broadcasts = pgTable(
  'broadcasts',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    channelId: uuid('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    templateName: text('template_name').notNull(),
    templateLanguage: text('template_language').notNull(),
    /** The template body's parameters in order, each text with `{{contact.field|default}}` placeholders. */
    variables: jsonb('variables').$type<string[]>().notNull().default([]),
    /** The template header's parameter, if it has one: {type: text, text} or {type: image|video|document, link, filename?}, placeholders allowed. */
    header: jsonb('header').$type<Record<string, unknown>>(),
    /** The template buttons' parameters: [{index, value}] (a URL suffix, a quick reply's payload, a copy-code), placeholders allowed. */
    buttons: jsonb('buttons').$type<Array<Record<string, unknown>>>().notNull().default([]),
    /**
     * An A/B test (domain/broadcasts/variants.ts): {variants: [template, ...2-5], test_share, metric, decide_at}; null: none.
     * The template columns then hold variant 0's.
     */
    abTest: jsonb('ab_test').$type<Record<string, unknown>>(),
    /** The variant chosen at decide_at (its index), and when; null until then. */
    winnerVariant: integer('winner_variant'),
    decidedAt: at('decided_at'),
    /** {segment_id?, list_id?, tags?, contact_ids?, phones?}: the union of what is given. */
    audience: jsonb('audience').$type<Record<string, unknown>>().notNull(),
    requireConsent: boolean('require_consent').notNull().default(false),
    perMinute: integer('per_minute'),
    sendAt: at('send_at'),
    status: text('status').notNull(),
    nextRunAt: at('next_run_at'),
    leaseUntil: at('lease_until'),
    startedAt: at('started_at'),
    finishedAt: at('finished_at'),
    failureReason: text('failure_reason'),
    /** {start, end} "HH:MM" in the organization's time zone: no sends inside (domain/broadcasts/quiet-hours.ts); may cross midnight. */
    quietHours: jsonb('quiet_hours').$type<{ start: string; end: string }>(),
    /** Recipients the provider refused for its per-user marketing limit (131049) are sent again this many days later; null: never. */
    retryMarketingLimitDays: integer('retry_marketing_limit_days'),
    /** Skip recipients whose conversation on the channel is open and assigned to a person. */
    skipOpenConversations: boolean('skip_open_conversations').notNull().default(false),
    /** Why the broadcast paused by itself (the provider paused or disabled its template); null when a person paused it. */
    pauseReason: text('pause_reason'),
    /** How many retry-failed rounds it had: a round's messages have their own Idempotency-Keys. */
    retryRound: integer('retry_round').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('broadcasts_organization_created_idx').on(t.organizationId, t.createdAt, t.id),
    index('broadcasts_due_idx').on(t.nextRunAt).where(sql`${t.nextRunAt} is not null`),
    check('broadcasts_status_check', sql`${t.status} in ('draft', 'scheduled', 'sending', 'paused', 'completed', 'stopped', 'failed')`),
  ],
);

/**
 * A broadcast's audience as frozen when it started, one row per recipient in send order (`seq`).
 * `status` is the recipient's own (pending, skipped with `reason`, failed when the accept refused);
 * once a message exists its status is the message's, read through `message_id` (DECISIONS).
 */
export const broadcastRecipients = pgTable(
  'broadcast_recipients',
  {
    id: uuid('id').primaryKey(),
    broadcastId: uuid('broadcast_id')
      .notNull()
      .references(() => broadcasts.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id').notNull(),
    seq: integer('seq').notNull(),
    contactId: uuid('contact_id'),
    /** E.164 with `+`, or what was given when it is not a valid number. */
    phone: text('phone'),
    status: text('status').notNull(),
    reason: text('reason'),
    /** The template parameters as resolved for this recipient. */
    parameters: jsonb('parameters').$type<string[]>(),
    /** The header and button components as resolved for this recipient (the provider's wire shape); null when the template has none. */
    components: jsonb('components').$type<Array<Record<string, unknown>>>(),
    /** The A/B variant sent (its index); null without a test, and for the rest of the audience until the winner is chosen. */
    variant: integer('variant'),
    messageId: uuid('message_id'),
    /** The first customer message in the recipient's conversation within 72 hours of the broadcast message (domain/broadcasts/replies.ts). */
    repliedAt: at('replied_at'),
    /** The retry round its message belongs to (0: the first send); part of the message's Idempotency-Key after 0. */
    round: integer('round').notNull().default(0),
    /** When a recipient refused for the per-user marketing limit (131049) is sent again; null: not to be. */
    retryAt: at('retry_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('broadcast_recipients_seq_key').on(t.broadcastId, t.seq),
    index('broadcast_recipients_pending_idx')
      .on(t.broadcastId, t.seq)
      .where(sql`${t.status} in ('pending', 'deferred') and ${t.messageId} is null`),
    // A reply finds its recipient by message.
    index('broadcast_recipients_message_idx').on(t.messageId).where(sql`${t.messageId} is not null`),
    index('broadcast_recipients_retry_idx').on(t.retryAt).where(sql`${t.retryAt} is not null`),
    // held: the rest of an A/B test's audience, waiting for the winner; deferred: over the messaging tier, sent when the window moves.
    check('broadcast_recipients_status_check', sql`${t.status} in ('pending', 'held', 'deferred', 'skipped', 'failed')`),
  ],
);

/**
 * Satisfaction surveys (domain/csat): one per resolution of a conversation while the organization's
 * survey is on. pending (decided with the resolution; the conversation.csat-request job sends it), sent
 * (request_message_id; answerable until expires_at), answered (rating 1-5, the answer's message),
 * expired, or not_sent (reason: window_closed, refused, no_contact).
 */
export const csatSurveys = pgTable(
  'csat_surveys',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    conversationId: uuid('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    channelId: uuid('channel_id').notNull(),
    contactId: uuid('contact_id'),
    /** Who had the conversation when it was resolved (the rating is theirs in reports). */
    assigneeUserId: uuid('assignee_user_id'),
    status: text('status').notNull().default('pending'),
    reason: text('reason'),
    requestMessageId: uuid('request_message_id'),
    requestedAt: at('requested_at').notNull(),
    expiresAt: at('expires_at'),
    rating: integer('rating'),
    comment: text('comment'),
    answerMessageId: uuid('answer_message_id'),
    answeredAt: at('answered_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // The survey an inbound message may answer: the conversation's newest sent one.
    index('csat_surveys_conversation_idx').on(t.conversationId, t.requestedAt),
    // Listing and reports: an organization's answers by time.
    index('csat_surveys_organization_answered_idx').on(t.organizationId, t.answeredAt, t.id).where(sql`${t.status} = 'answered'`),
    check('csat_surveys_status_check', sql`${t.status} in ('pending', 'sent', 'answered', 'expired', 'not_sent')`),
    check('csat_surveys_rating_check', sql`${t.rating} is null or ${t.rating} between 1 and 5`),
  ],
);

/**
 * Automation rules (domain/automations, docs/automations.md): a trigger, conditions (all must hold)
 * and actions run in order. `trigger_minutes`: the wait of a `no_reply` trigger. The webhook secret
 * (sealed) signs the rule's call_webhook actions.
 */
export const automationRules = pgTable(
  'automation_rules',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    enabled: boolean('enabled').notNull(),
    trigger: text('trigger').notNull(),
    triggerMinutes: integer('trigger_minutes'),
    conditions: jsonb('conditions').$type<unknown[]>().notNull(),
    actions: jsonb('actions').$type<unknown[]>().notNull(),
    webhookSecretSealed: text('webhook_secret_sealed').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('automation_rules_organization_idx').on(t.organizationId, t.createdAt, t.id),
    index('automation_rules_trigger_idx').on(t.organizationId, t.trigger).where(sql`${t.enabled}`),
  ],
);

/**
 * One run of a rule for one trigger (an event, or a conversation left without a reply): unique per
 * (rule, trigger_key), so a retried job resumes the run instead of acting twice. `actions` holds each
 * action's outcome as it is done; `automated_messages` counts the messages it sent (the loop guard).
 */
export const automationRuns = pgTable(
  'automation_runs',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    ruleId: uuid('rule_id')
      .notNull()
      .references(() => automationRules.id, { onDelete: 'cascade' }),
    triggerKey: text('trigger_key').notNull(),
    trigger: text('trigger').notNull(),
    eventId: uuid('event_id'),
    conversationId: uuid('conversation_id'),
    messageId: uuid('message_id'),
    status: text('status').notNull(),
    matched: boolean('matched'),
    conditions: jsonb('conditions').$type<unknown[]>().notNull(),
    actions: jsonb('actions').$type<unknown[]>().notNull(),
    automatedMessages: integer('automated_messages').notNull().default(0),
    error: text('error'),
    createdAt: createdAt(),
    finishedAt: at('finished_at'),
  },
  (t) => [
    uniqueIndex('automation_runs_rule_trigger_key').on(t.ruleId, t.triggerKey),
    index('automation_runs_rule_created_idx').on(t.ruleId, t.createdAt, t.id),
    index('automation_runs_conversation_idx').on(t.conversationId, t.createdAt).where(sql`${t.automatedMessages} > 0`),
  ],
);

/**
 * Teams of members (domain/teams): a channel routes its conversations to one; the team's policy
 * (manual, round_robin, least_busy) assigns them to its online members under their capacity.
 * `last_assigned_user_id` is round robin's cursor.
 */
export const teams = pgTable(
  'teams',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    assignmentPolicy: text('assignment_policy').notNull().default('manual'),
    /** Open conversations a member holds at most (a member's own capacity beats it); null: no limit. */
    defaultCapacity: integer('default_capacity'),
    lastAssignedUserId: uuid('last_assigned_user_id'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('teams_organization_name_key').on(t.organizationId, sql`lower(${t.name})`),
    check('teams_assignment_policy_check', sql`${t.assignmentPolicy} in ('manual', 'round_robin', 'least_busy')`),
    check('teams_default_capacity_check', sql`${t.defaultCapacity} is null or ${t.defaultCapacity} >= 0`),
  ],
);

/** A team's members; the row goes with the membership (leaving the organization leaves its teams). */
export const teamMembers = pgTable(
  'team_members',
  {
    teamId: uuid('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id').notNull(),
    userId: uuid('user_id').notNull(),
    /** Open conversations this member holds at most; null: the team's default_capacity. */
    capacity: integer('capacity'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.teamId, t.userId] }),
    index('team_members_member_idx').on(t.organizationId, t.userId),
    foreignKey({ columns: [t.organizationId, t.userId], foreignColumns: [memberships.organizationId, memberships.userId] }).onDelete(
      'cascade',
    ),
    check('team_members_capacity_check', sql`${t.capacity} is null or ${t.capacity} >= 0`),
  ],
);

/**
 * A bot (domain/bots): an external URL that receives a conversation's customer messages, signed like
 * webhooks, and answers through the API. Its trigger says which conversations it takes.
 */
export const bots = pgTable(
  'bots',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    url: text('url').notNull(),
    /** `whsec_...`, sealed (it must be read back to sign). */
    secretSealed: text('secret_sealed').notNull(),
    /** The channels it serves; empty: every channel of the organization. */
    channelIds: uuid('channel_ids').array().notNull().default(sql`'{}'::uuid[]`),
    /** `all` (any customer message) or `keyword`. */
    triggerType: text('trigger_type').notNull(),
    /** With `keyword`: equals, contains, starts_with or regex. */
    triggerOperator: text('trigger_operator'),
    /** With `keyword`: the keywords (or patterns), any of which starts it. */
    triggerValues: text('trigger_values').array().notNull().default(sql`'{}'::text[]`),
    /** A session ends after this many minutes without a customer message; 0: never. */
    expireMinutes: integer('expire_minutes').notNull().default(0),
    /** The customer's message that ends the session (compared trimmed, ignoring case); null: none. */
    stopKeyword: text('stop_keyword'),
    /** Customer messages within this many ms of each other go to the bot as one delivery. */
    debounceMs: integer('debounce_ms').notNull().default(0),
    /** A session the stop keyword or the bot's hand-off ended leaves the conversation with people (no trigger restarts it). */
    keepOpen: boolean('keep_open').notNull().default(true),
    enabled: boolean('enabled').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('bots_organization_idx').on(t.organizationId, t.createdAt),
    check('bots_trigger_type_check', sql`${t.triggerType} in ('all', 'keyword')`),
    check('bots_trigger_operator_check', sql`${t.triggerOperator} in ('equals', 'contains', 'starts_with', 'regex')`),
  ],
);

/** A bot owning a conversation from started_at to ended_at (with why); at most one open per conversation. */
export const botSessions = pgTable(
  'bot_sessions',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    botId: uuid('bot_id')
      .notNull()
      .references(() => bots.id, { onDelete: 'cascade' }),
    conversationId: uuid('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    startedAt: at('started_at').notNull(),
    endedAt: at('ended_at'),
    /** expired, stop_keyword, human_took_over, handoff or bot_disabled. */
    endReason: text('end_reason'),
    /** The last customer message's time + the bot's expire_minutes; null: it does not expire. */
    expiresAt: at('expires_at'),
  },
  (t) => [
    uniqueIndex('bot_sessions_open_conversation_key').on(t.conversationId).where(sql`${t.endedAt} is null`),
    index('bot_sessions_expiry_idx').on(t.expiresAt).where(sql`${t.endedAt} is null and ${t.expiresAt} is not null`),
    index('bot_sessions_bot_idx').on(t.botId).where(sql`${t.endedAt} is null`),
  ],
);

/**
 * Customer messages going to a bot as one signed POST (its id is the webhook-id the bot dedupes by).
 * `pending` gathers messages until due_at (the debounce); `sending` is closed and retried by its job
 * (bot.deliver) until `delivered`; `cancelled` when the session ended before it went.
 */
export const botDeliveries = pgTable(
  'bot_deliveries',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    botId: uuid('bot_id')
      .notNull()
      .references(() => bots.id, { onDelete: 'cascade' }),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => botSessions.id, { onDelete: 'cascade' }),
    conversationId: uuid('conversation_id').notNull(),
    messageIds: uuid('message_ids').array().notNull(),
    status: text('status').notNull().default('pending'),
    dueAt: at('due_at').notNull(),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    lastStatusCode: integer('last_status_code'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('bot_deliveries_pending_session_key').on(t.sessionId).where(sql`${t.status} = 'pending'`),
    check('bot_deliveries_status_check', sql`${t.status} in ('pending', 'sending', 'delivered', 'cancelled')`),
  ],
);
