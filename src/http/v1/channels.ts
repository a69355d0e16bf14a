import { z } from 'zod';
import { channelDeps, type Container } from '../../container.ts';
import { capabilitiesOf, MESSAGE_TYPES, OPERATIONS } from '../../domain/channels/capabilities.ts';
import {
  channelStatusHistoryOf,
  createChannel,
  deleteChannel,
  listChannels,
  loadChannel,
  presentChannel,
  updateChannel,
} from '../../domain/channels/channels.ts';
import { channelQr, connectChannel, disconnectChannel, lookupProviderProfile } from '../../domain/channels/pairing.ts';
import { PLATFORMS } from '../../providers/provider.ts';
import { actorOf, type App } from '../app.ts';
import { errorResponses } from '../errors.ts';
import { dataOf, listOf, PageQuerySchema, PathId } from '../schemas.ts';

const PlatformSchema = z.enum(PLATFORMS as unknown as ['chatapp_official', 'chatapp_unofficial']);
const StatusSchema = z.enum(['pending', 'connected', 'disconnected', 'error', 'pairing']);

export const ChannelSchema = z
  .object({
    id: z.uuid().meta({ description: 'Opaque channel id (channel_id elsewhere)' }),
    platform: PlatformSchema,
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
      description: 'Non-secret provider settings: official api_base, api_version, phone_number_id, waba_id; unofficial gateway_base, session; both throughput_per_second',
    }),
    credentials_set: z.array(z.string()).meta({ description: 'Names of the credentials stored (their values are never returned)' }),
    health: z.object({
      last_error_code: z.string().nullable().meta({ description: "The provider's code of the last error" }),
      last_error_message: z.string().nullable(),
      last_error_at: z.string().nullable(),
      reconnect_attempts: z.number().int().meta({ description: 'Failed health checks in a row (3 mark a connected channel disconnected)' }),
      last_checked_at: z.string().nullable(),
    }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Channel' });

const Settings = z
  .object({
    api_base: z.url().optional().meta({ description: "official: the provider API's base URL (default OFFICIAL_API_BASE)" }),
    api_version: z.string().regex(/^v\d+\.\d+$/).optional().meta({ example: 'v23.0' }),
    phone_number_id: z.string().regex(/^\d{1,32}$/).optional(),
    waba_id: z.string().regex(/^\d{1,32}$/).optional().meta({ description: 'official: business account id (templates)' }),
    gateway_base: z.url().optional().meta({ description: 'unofficial: the gateway base URL (https, public address)' }),
    session: z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/).optional().meta({ description: 'unofficial: the gateway session name (default the channel id)' }),
    throughput_per_second: z.number().positive().max(1000).optional().meta({ description: 'Outbound pacing (default 80 official, 5 unofficial)' }),
  })
  .strict();

const Credentials = z
  .object({
    access_token: z.string().min(1).max(4096).optional().meta({ description: 'official: bearer token' }),
    app_secret: z.string().min(1).max(512).optional().meta({ description: "official: the app secret, for a channel on its own app (webhook path with the channel id)" }),
    api_key: z.string().min(1).max(4096).optional().meta({ description: 'unofficial: the gateway API key' }),
  })
  .strict()
  .meta({ description: 'Write-only: stored encrypted, never returned or logged' });

const CreateChannelBody = z
  .object({
    platform: PlatformSchema,
    name: z.string().trim().min(1).max(200),
    display_phone_number: z.string().max(40).optional(),
    settings: Settings.optional(),
    credentials: Credentials.optional(),
  })
  .meta({
    id: 'CreateChannelRequest',
    description:
      'With the sandbox on, a channel without credentials is bound to it (official: connected at once; unofficial: pair with connect + qr). Official channels with credentials are checked against the provider.',
    examples: [
      { platform: 'chatapp_official', name: 'Support line' },
      { platform: 'chatapp_official', name: 'Sales', settings: { phone_number_id: '106540352242922', waba_id: '102290129340398' }, credentials: { access_token: 'EAAG...' } },
      { platform: 'chatapp_unofficial', name: 'Field team', settings: { gateway_base: 'https://gateway.example.com' }, credentials: { api_key: 'gw_...' } },
    ],
  });

const UpdateChannelBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    display_phone_number: z.string().max(40).nullable().optional(),
    settings: Settings.optional(),
    credentials: Credentials.optional(),
  })
  .meta({ id: 'UpdateChannelRequest', description: 'Fields to change; settings and credentials are merged. New official credentials are checked again.', examples: [{ name: 'Support (EU)' }] });

const QrSchema = z
  .object({
    qr: z.string().meta({ description: 'The raw QR string' }),
    qr_image: z.string().meta({ description: 'The QR as a PNG data URL' }),
    expires_at: z.string().meta({ description: 'When it lapses; read it again for a new one' }),
  })
  .meta({ id: 'ChannelQr' });

const ChannelParams = z.object({ channelID: PathId });
const channelErrors = errorResponses([400, 401, 403, 404, 409, 422, 503]);

export async function registerChannelRoutes(app: App, container: Container) {
  const deps = channelDeps(container);
  const present = (row: Parameters<typeof presentChannel>[0]) => presentChannel(row, container.sealer);

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
      const page = await listChannels(deps.db, actorOf(request), request.query);
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
      const row = await createChannel(deps, actorOf(request), {
        platform: b.platform,
        name: b.name,
        displayPhoneNumber: b.display_phone_number,
        settings: b.settings,
        credentials: b.credentials as Record<string, string> | undefined,
      });
      return reply.code(201).send({ data: present(row) });
    },
  );

  app.get(
    '/v1/channels/:channelID',
    {
      config: { auth: { permission: 'channels:read' } },
      schema: { tags: ['channels'], summary: 'Get a channel', params: ChannelParams, response: { 200: dataOf(ChannelSchema), ...errorResponses([401, 403, 404]) } },
    },
    async (request) => ({ data: present(await loadChannel(deps.db, actorOf(request), request.params.channelID)) }),
  );

  app.patch(
    '/v1/channels/:channelID',
    {
      config: { auth: { permission: 'channels:write' } },
      schema: { tags: ['channels'], summary: 'Update a channel', params: ChannelParams, body: UpdateChannelBody, response: { 200: dataOf(ChannelSchema), ...channelErrors } },
    },
    async (request) => {
      const b = request.body;
      const row = await updateChannel(deps, actorOf(request), request.params.channelID, {
        name: b.name,
        displayPhoneNumber: b.display_phone_number,
        settings: b.settings,
        credentials: b.credentials as Record<string, string> | undefined,
      });
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
      await deleteChannel(deps, actorOf(request), request.params.channelID);
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
          200: dataOf(
            z.object({
              status: StatusSchema,
              status_reason: z.string().nullable(),
              status_changed_at: z.string(),
              health: ChannelSchema.shape.health,
              history: z.array(z.object({ from: z.string().nullable(), to: z.string(), reason: z.string().nullable(), reason_code: z.string().nullable(), at: z.string() })),
            }),
          ),
          ...errorResponses([401, 403, 404]),
        },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const channel = present(await loadChannel(deps.db, actor, request.params.channelID));
      const history = await channelStatusHistoryOf(deps.db, actor, channel.id);
      return { data: { status: channel.status, status_reason: channel.status_reason, status_changed_at: channel.status_changed_at, health: channel.health, history } };
    },
  );

  app.get(
    '/v1/channels/:channelID/capabilities',
    {
      config: { auth: { permission: 'channels:read' } },
      schema: {
        tags: ['channels'],
        summary: 'What the channel supports',
        description: 'Message types and operations, read from the same support matrix that validation uses.',
        params: ChannelParams,
        response: {
          200: dataOf(
            z
              .object({
                platform: PlatformSchema,
                message_types: z.array(z.enum(MESSAGE_TYPES)),
                simplified_types: z.array(z.enum(MESSAGE_TYPES)).meta({ description: 'Types the platform renders in a simplified form' }),
                operations: z.array(z.enum(OPERATIONS)),
                customer_service_window_hours: z.number().nullable(),
              })
              .meta({ id: 'ChannelCapabilities' }),
          ),
          ...errorResponses([401, 403, 404]),
        },
      },
    },
    async (request) => {
      const row = await loadChannel(deps.db, actorOf(request), request.params.channelID);
      return { data: capabilitiesOf(row.platform as 'chatapp_official') };
    },
  );

  app.post(
    '/v1/channels/:channelID/connect',
    {
      config: { auth: { permission: 'channels:write' } },
      schema: {
        tags: ['channels'],
        summary: 'Start pairing a gateway channel (unofficial only)',
        description: 'Registers the callback with the gateway and starts its session; the channel goes to `pairing` and the answer carries the QR to scan. 422 on official channels.',
        params: ChannelParams,
        response: { 200: dataOf(z.object({ channel: ChannelSchema, qr: QrSchema.nullable() })), ...channelErrors },
      },
    },
    async (request) => {
      const result = await connectChannel(deps, actorOf(request), request.params.channelID);
      return { data: { channel: present(result.channel), qr: result.qr } };
    },
  );

  app.get(
    '/v1/channels/:channelID/qr',
    {
      config: { auth: { permission: 'channels:read' } },
      schema: {
        tags: ['channels'],
        summary: 'The QR code to pair a gateway channel (unofficial only)',
        description: 'The raw string and a PNG data URL, with its expiry; a lapsed QR is replaced by a new one. 409 when the channel is not pairing.',
        params: ChannelParams,
        response: { 200: dataOf(QrSchema), ...channelErrors },
      },
    },
    async (request) => ({ data: await channelQr(deps, actorOf(request), request.params.channelID) }),
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
    async (request) => ({ data: present(await disconnectChannel(deps, actorOf(request), request.params.channelID)) }),
  );

  app.post(
    '/v1/channels/:channelID/contacts/lookup',
    {
      config: { auth: { permission: 'contacts:read' } },
      schema: {
        tags: ['channels'],
        summary: 'Look up a number with the provider',
        description: "Asks the channel's provider whether the number is on the chat app and its profile name (provider data, not the CRM: see POST /v1/contacts/lookup).",
        params: ChannelParams,
        body: z.object({ phone: z.string().min(1).max(40).meta({ example: '+49 30 1234567' }) }).meta({ id: 'ChannelContactLookupRequest' }),
        response: {
          200: dataOf(z.object({ phone: z.string(), exists: z.boolean(), chatapp_id: z.string().nullable(), name: z.string().nullable() }).meta({ id: 'ProviderProfile' })),
          ...channelErrors,
        },
      },
    },
    async (request) => ({ data: await lookupProviderProfile(deps, actorOf(request), request.params.channelID, request.body.phone) }),
  );
}
