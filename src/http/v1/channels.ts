import { z } from 'zod';
import { MESSAGING_TIERS } from '../../domain/broadcasts/sending-rules.ts';
import { channelCapabilities, ENGINES, MESSAGE_TYPES, OPERATIONS } from '../../domain/channels/capabilities.ts';
import {
  channelStatusOf,
  createChannel,
  deleteChannel,
  getChannel,
  listChannels,
  updateChannel,
  type ChannelDeps,
  type ChannelRow,
} from '../../domain/channels/channels.ts';
import { channelQr, connectChannel, disconnectChannel, lookupProviderProfile, type PairingDeps } from '../../domain/channels/pairing.ts';
import { PLATFORMS, platformsWith, providerModule } from '../../providers/registry.ts';
import { registerChannelMediaRoute } from './channel-media.ts';
import { actorOf } from '../auth/actor.ts';
import type { App } from '../types.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import { presentChannel, presentStatus, presentQr, presentProfile } from './channels.presenters.ts';

/** The platforms the registry lists (channels.platform). */
const PlatformSchema = z.enum(PLATFORMS);
const StatusSchema = z.enum(['pending', 'connected', 'disconnected', 'error', 'pairing']);
const EngineSchema = z.enum(ENGINES).meta({
  description:
    "What serves the channel, decided by its settings: `official` the provider's business API; `embedded` a linked-device session inside Parley (your own phone pairs with Parley: no gateway_base, not the sandbox); `http_gateway` an HTTP gateway of your own (settings.gateway_base); `sandbox` the built-in sandbox provider.",
});

export const ChannelSchema = z
  .object({
    id: z.uuid().meta({ description: 'Opaque channel id (channel_id elsewhere)' }),
    platform: PlatformSchema,
    engine: EngineSchema,
    name: z.string(),
    status: StatusSchema.meta({
      description:
        'official: pending -> connected -> disconnected | error; unofficial: disconnected -> pairing -> connected -> disconnected. See GET /v1/channels/{channelID}/status for the history.',
    }),
    status_reason: z.string().nullable(),
    status_changed_at: z.string(),
    display_phone_number: z.string().nullable(),
    sandbox: z.boolean().meta({ description: 'Bound to the built-in sandbox provider' }),
    settings: z.record(z.string(), z.unknown()).meta({
      description:
        'Non-secret provider settings: official api_base, api_version, phone_number_id, waba_id; unofficial gateway_base, session, group_messages; both throughput_per_second',
    }),
    credentials_set: z.array(z.string()).meta({ description: 'Names of the credentials stored (their values are never returned)' }),
    health: z.object({
      last_error_code: z.string().nullable().meta({ description: "The provider's code of the last error" }),
      last_error_message: z.string().nullable(),
      last_error_at: z.string().nullable(),
      held_until: z.string().nullable().meta({
        description:
          'While the provider holds every send of the channel back (a throughput or rate limit, maintenance: its code is last_error_code), when the hold ends; the sends wait, spending none of their attempts. Null when not held. A hold of one recipient (pair rate limit) shows as the last error only.',
      }),
      reconnect_attempts: z.number().int().meta({
        description:
          'Failed health checks in a row (3 mark a connected channel disconnected); on the embedded engine, its reconnect attempts since the connection was lost or could not be made (last_error_message names why and the next try)',
      }),
      next_retry_at: z.string().nullable().meta({
        description:
          'When the engine tries to connect again by itself (the embedded engine after a lost connection, or one the network kept from the chat service: last_error_code names the cause, e.g. dns_failure, network_unreachable, connection_refused, tls_failure, connection_timed_out); null when it does not',
      }),
      last_checked_at: z.string().nullable(),
    }),
    limits: z
      .object({
        messaging_tier: z.string().nullable().meta({
          description:
            'Official: business-initiated conversations the number may open in a moving 24 hours (250, 1000, 2000, 10000, 100000 or unlimited), read from the provider (messaging_limit_tier) or set here; null when not known (broadcasts count nothing against it)',
        }),
        messaging_tier_source: z.enum(['provider', 'api']).nullable(),
        daily_broadcast_cap: z.number().int().nullable().meta({
          description: 'Linked-device channels: broadcast messages a moving 24 hours (null: the default, 1000)',
        }),
      })
      .meta({ description: 'What broadcasts keep to (docs/broadcasts.md, The provider’s limits)' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Channel' });

const modules = PLATFORMS.map(providerModule);

/** Every platform's settings (its module's schema); the domain checks which belong to the channel's platform. */
const Settings = z
  .object({
    ...(Object.assign({}, ...modules.map((m) => m.settings.schema.shape)) as z.ZodRawShape),
    throughput_per_second: z
      .number()
      .positive()
      .max(1000)
      .optional()
      .meta({ description: `Outbound pacing (default ${modules.map((m) => `${m.pacing.throughputPerSecond} ${m.platform}`).join(', ')})` }),
  })
  .strict();

/** Every platform's credentials (its module's schema). */
const Credentials = z
  .object(Object.assign({}, ...modules.map((m) => m.settings.credentials.shape)) as z.ZodRawShape)
  .strict()
  .meta({ description: 'Write-only: stored encrypted, never returned or logged' });

const [credentialsPlatform] = platformsWith('bizapi.exchange_code');
const [pairingPlatform] = platformsWith('channel.connect');

const CreateChannelBody = z
  .object({
    platform: PlatformSchema,
    name: z.string().trim().min(1).max(200),
    display_phone_number: z.string().max(40).optional(),
    settings: Settings.optional(),
    credentials: Credentials.optional(),
    sandbox: z.boolean().optional().meta({
      description:
        "true: bind the channel to the built-in sandbox provider (PROVIDER_SANDBOX on; no provider address or credentials). Unset: an official channel without credentials is the sandbox's; an unofficial channel without gateway_base runs on the embedded engine (pair your phone with connect + qr).",
    }),
  })
  .meta({
    id: 'CreateChannelRequest',
    description:
      'Official channels with credentials are checked against the provider. Unofficial channels: with settings.gateway_base they use that HTTP gateway; with "sandbox": true the sandbox gateway; otherwise the embedded engine, which pairs your own phone (connect + qr, or a pairing code).',
    examples: [
      { platform: credentialsPlatform, name: 'Support line' },
      { platform: pairingPlatform, name: 'Shop phone' },
      { platform: pairingPlatform, name: 'Try-out', sandbox: true },
      {
        platform: credentialsPlatform,
        name: 'Sales',
        settings: { phone_number_id: '106540352242922', waba_id: '102290129340398' },
        credentials: { access_token: 'EAAG...' },
      },
      {
        platform: pairingPlatform,
        name: 'Field team',
        settings: { gateway_base: 'https://gateway.example.com' },
        credentials: { api_key: 'gw_...' },
      },
    ],
  });

const UpdateChannelBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    display_phone_number: z.string().max(40).nullable().optional(),
    settings: Settings.optional(),
    credentials: Credentials.optional(),
    messaging_tier: z.enum(MESSAGING_TIERS).nullable().optional().meta({
      description:
        'Official channels: the number’s messaging tier as the broadcasts count it, overriding what the provider reports; null: the provider’s again',
    }),
    daily_broadcast_cap: z.number().int().min(1).max(100_000).nullable().optional().meta({
      description: 'Linked-device channels: broadcast messages a moving 24 hours (protection against bans); null: the default, 1000',
    }),
  })
  .meta({
    id: 'UpdateChannelRequest',
    description: 'Fields to change; settings and credentials are merged. New official credentials are checked again.',
    examples: [{ name: 'Support (EU)' }, { messaging_tier: '2000' }],
  });

export const QrSchema = z
  .object({
    qr: z.string().meta({ description: 'The raw QR string' }),
    qr_image: z.string().meta({ description: 'The QR as a PNG data URL' }),
    expires_at: z.string().meta({ description: 'When it lapses; read it again for a new one' }),
  })
  .meta({ id: 'ChannelQr' });

const PairingCodeSchema = z
  .object({
    code: z.string().meta({ description: 'Typed on the phone (Linked devices → Link with phone number instead)', example: 'K7QD-2M9X' }),
    expires_at: z.string().meta({ description: 'It lapses with the QR; connect again for a new one' }),
  })
  .meta({ id: 'ChannelPairingCode' });

const ConnectBody = z
  .object({
    phone_number: z.string().min(1).max(40).optional().meta({
      description:
        'The phone to pair by code instead of QR (where the platform lists channel.pairing_code); the answer then carries pairing_code',
    }),
  })
  .strict()
  .meta({ id: 'ConnectChannelRequest', examples: [{}, { phone_number: '+49 30 1234567' }] });

export const ConnectSchema = z.object({ channel: ChannelSchema, qr: QrSchema.nullable(), pairing_code: PairingCodeSchema.nullable() });

const HistoryEntrySchema = z.object({
  from: z.string().nullable(),
  to: z.string(),
  reason: z.string().nullable(),
  reason_code: z.string().nullable(),
  at: z.string(),
});

export const ChannelStatusSchema = z.object({
  status: StatusSchema,
  status_reason: z.string().nullable(),
  status_changed_at: z.string(),
  health: ChannelSchema.shape.health,
  history: z.array(HistoryEntrySchema),
});

export const CapabilitiesSchema = z
  .object({
    platform: PlatformSchema,
    engine: EngineSchema,
    message_types: z.array(z.enum(MESSAGE_TYPES)).meta({ description: 'Every type the channel takes (POST /v1/messages)' }),
    native_types: z.array(z.enum(MESSAGE_TYPES)).meta({ description: "Types the engine sends as the chat network's own kind of message" }),
    simplified_types: z.array(z.enum(MESSAGE_TYPES)).meta({
      description:
        'Types the engine sends in a simplified form: plain text (numbered options, the product ids, a request to reply), not as the interactive message',
    }),
    parley_types: z.array(z.enum(MESSAGE_TYPES)).meta({
      description:
        'Types Parley answers from its own records (source: parley), sending nothing to the chat network: on the embedded engine, message_status_query (the statuses Parley holds) and message_media_download (media is stored when it arrives)',
    }),
    operations: z.array(z.enum(OPERATIONS)),
    customer_service_window_hours: z.number().nullable(),
  })
  .meta({
    id: 'ChannelCapabilities',
    description:
      "What the channel's engine supports: each type of message_types is in exactly one of native_types, simplified_types and parley_types.",
  });

export const ProfileSchema = z
  .object({ phone: z.string(), exists: z.boolean(), chatapp_id: z.string().nullable(), name: z.string().nullable() })
  .meta({ id: 'ProviderProfile' });

export type CreateChannelRequest = z.input<typeof CreateChannelBody>;
export type UpdateChannelRequest = z.input<typeof UpdateChannelBody>;

const ChannelParams = z.object({ channelID: PathId });
const channelErrors = errorResponses([400, 401, 403, 404, 409, 422, 503]);

/** What the channel routes use: channel records (create, change, read) and the calls that go through a channel's provider. */
export type ChannelRouteDeps = { channels: ChannelDeps; pairing: PairingDeps };

export async function registerChannelRoutes(app: App, { channels: deps, pairing }: ChannelRouteDeps) {
  const present = (row: ChannelRow) => presentChannel(row, deps.sealer, deps.clock.now());

  app.get(
    '/v1/channels',
    {
      config: { auth: { permission: 'channels:read' } },
      schema: {
        tags: ['channels'],
        summary: 'List channels',
        querystring: PageQuerySchema.extend({ platform: PlatformSchema.optional(), status: StatusSchema.optional() }),
        response: { 200: listOf(ChannelSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const page = await listChannels(deps, actorOf(request), request.query);
      return { data: page.items.map(present), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.post(
    '/v1/channels',
    {
      config: { auth: { permission: 'channels:write' } },
      schema: {
        tags: ['channels'],
        summary: 'Create a channel',
        body: CreateChannelBody,
        response: { 201: dataOf(ChannelSchema), ...channelErrors },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const row = await inputFrom(
        'body',
        createChannel(deps, actorOf(request), {
          platform: b.platform,
          name: b.name,
          displayPhoneNumber: b.display_phone_number,
          settings: b.settings,
          credentials: b.credentials as Record<string, string> | undefined,
          sandbox: b.sandbox,
        }),
      );
      return reply.code(201).send({ data: present(row) });
    },
  );

  app.get(
    '/v1/channels/:channelID',
    {
      config: { auth: { permission: 'channels:read' } },
      schema: {
        tags: ['channels'],
        summary: 'Get a channel',
        params: ChannelParams,
        response: { 200: dataOf(ChannelSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({ data: present(await getChannel(deps, actorOf(request), { channelId: request.params.channelID })) }),
  );

  app.patch(
    '/v1/channels/:channelID',
    {
      config: { auth: { permission: 'channels:write' } },
      schema: {
        tags: ['channels'],
        summary: 'Update a channel',
        params: ChannelParams,
        body: UpdateChannelBody,
        response: { 200: dataOf(ChannelSchema), ...channelErrors },
      },
    },
    async (request) => {
      const b = request.body;
      const row = await inputFrom(
        'body',
        updateChannel(deps, actorOf(request), {
          channelId: request.params.channelID,
          name: b.name,
          displayPhoneNumber: b.display_phone_number,
          settings: b.settings,
          credentials: b.credentials as Record<string, string> | undefined,
          messagingTier: b.messaging_tier,
          dailyBroadcastCap: b.daily_broadcast_cap,
        }),
      );
      return { data: present(row) };
    },
  );

  app.delete(
    '/v1/channels/:channelID',
    {
      config: { auth: { permission: 'channels:write' } },
      schema: {
        tags: ['channels'],
        summary: 'Delete a channel',
        description: 'Logs a paired gateway out first. Its templates are deleted; messages keep their history.',
        params: ChannelParams,
        response: { 204: z.null().describe('Deleted'), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request, reply) => {
      await deleteChannel(deps, actorOf(request), { channelId: request.params.channelID });
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/channels/:channelID/status',
    {
      config: { auth: { permission: 'channels:read' } },
      schema: {
        tags: ['channels'],
        summary: "A channel's status, health and status history",
        params: ChannelParams,
        response: {
          200: dataOf(ChannelStatusSchema),
          ...errorResponses([401, 403, 404]),
        },
      },
    },
    async (request) => {
      const { channel, history } = await channelStatusOf(deps, actorOf(request), { channelId: request.params.channelID });
      return { data: presentStatus(present(channel), history) };
    },
  );

  app.get(
    '/v1/channels/:channelID/capabilities',
    {
      config: { auth: { permission: 'channels:read' } },
      schema: {
        tags: ['channels'],
        summary: 'What the channel supports',
        description:
          "Message types and operations, read from the same support matrix that validation uses, and how the channel's engine sends each type: natively, in a simplified form (as text), or answered by Parley from its own records.",
        params: ChannelParams,
        response: {
          200: dataOf(CapabilitiesSchema),
          ...errorResponses([401, 403, 404]),
        },
      },
    },
    async (request) => {
      const row = await getChannel(deps, actorOf(request), { channelId: request.params.channelID });
      return { data: channelCapabilities(row) };
    },
  );

  app.post(
    '/v1/channels/:channelID/connect',
    {
      config: { auth: { permission: 'channels:write' } },
      schema: {
        tags: ['channels'],
        summary: 'Start pairing a gateway channel (unofficial only)',
        description:
          'Registers the callback with the gateway and starts its session; the channel goes to `pairing` and the answer carries the QR to scan. ' +
          'With `phone_number`, it also carries the pairing code that phone can type instead (platforms listing `channel.pairing_code`; 422 elsewhere). The body is optional. 422 on official channels. ' +
          '503 when no QR can come yet: on the embedded engine, the network kept the session from the chat service (provider_error.code names the cause: dns_failure, network_unreachable, connection_refused, connection_reset, tls_failure, connection_timed_out; the detail says when the engine tries again by itself).',
        params: ChannelParams,
        body: ConnectBody.nullish(),
        response: { 200: dataOf(ConnectSchema), ...channelErrors },
      },
    },
    async (request) => {
      const result = await inputFrom(
        'body',
        connectChannel(pairing, actorOf(request), { channelId: request.params.channelID, phoneNumber: request.body?.phone_number }),
      );
      return {
        data: {
          channel: present(result.channel),
          qr: result.qr ? await presentQr(result.qr) : null,
          pairing_code: result.pairingCode
            ? { code: result.pairingCode.code, expires_at: result.pairingCode.expiresAt.toISOString() }
            : null,
        },
      };
    },
  );

  app.get(
    '/v1/channels/:channelID/qr',
    {
      config: { auth: { permission: 'channels:read' } },
      schema: {
        tags: ['channels'],
        summary: 'The QR code to pair a gateway channel (unofficial only)',
        description:
          'The raw string and a PNG data URL, with its expiry; a lapsed QR is replaced by a new one. 409 when the channel is not pairing, naming why (its status and status reason: e.g. the chat network it cannot reach and the next try); 503 while the engine waits to try again.',
        params: ChannelParams,
        response: { 200: dataOf(QrSchema), ...channelErrors },
      },
    },
    async (request) => ({ data: await presentQr(await channelQr(pairing, actorOf(request), { channelId: request.params.channelID })) }),
  );

  app.post(
    '/v1/channels/:channelID/disconnect',
    {
      config: { auth: { permission: 'channels:write' } },
      schema: {
        tags: ['channels'],
        summary: 'Log a gateway channel out of its phone (unofficial only)',
        params: ChannelParams,
        response: { 200: dataOf(ChannelSchema), ...channelErrors },
      },
    },
    async (request) => ({ data: present(await disconnectChannel(pairing, actorOf(request), { channelId: request.params.channelID })) }),
  );

  app.post(
    '/v1/channels/:channelID/contacts/lookup',
    {
      config: { auth: { permission: 'contacts:read' } },
      schema: {
        tags: ['channels'],
        summary: 'Look up a number with the provider',
        description:
          "Asks the channel's provider whether the number is on the chat app and its profile name (provider data, not the CRM: see POST /v1/contacts/lookup).",
        params: ChannelParams,
        body: z
          .object({ phone: z.string().min(1).max(40).meta({ example: '+49 30 1234567' }) })
          .meta({ id: 'ChannelContactLookupRequest' }),
        response: {
          200: dataOf(ProfileSchema),
          ...channelErrors,
        },
      },
    },
    async (request) => ({
      data: presentProfile(
        await inputFrom(
          'body',
          lookupProviderProfile(pairing, actorOf(request), { channelId: request.params.channelID, phone: request.body.phone }),
        ),
      ),
    }),
  );
  await registerChannelMediaRoute(app, pairing);
}
