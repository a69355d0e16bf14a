/**
 * The paired-gateway platform (docs/gateway-protocol.md): everything Parley needs to know about
 * it, in one place (see ProviderModule). Channels connect by pairing a phone with a QR code.
 */
import { z } from 'zod';
import { COMMON_MESSAGE_TYPES, type EngineRow } from '../capabilities.ts';
import type { ProviderModule } from '../provider.ts';
import { createGatewayAdapter, engineOf, HTTP_GATEWAY_SENDS } from './adapter.ts';
import { EMBEDDED_PARLEY_TYPES } from './embedded/outbound.ts';
import { EMBEDDED_SIMPLIFIED_TYPES } from './embedded/simplified.ts';
import { gatewayInbound } from './inbound.ts';
import { channelStatusOf } from './mapping.ts';

/**
 * A gateway takes Parley's types as they are and answers its own queries; what it makes of the
 * interactive ones is its own (the protocol lets it format them in a simplified way).
 */
const HTTP_GATEWAY_ROW: EngineRow = {
  simplified_types: ['template', 'buttons', 'list', 'cta_url', 'media_carousel', 'product_carousel'],
  parley_types: [],
};

export const gatewayProvider: ProviderModule = {
  platform: 'chatapp_unofficial',
  capabilities: {
    message_types: [
      ...COMMON_MESSAGE_TYPES,
      'link',
      'poll',
      'presence',
      'edit_message',
      'delete_message',
      'message_status_query',
      'message_media_download',
    ],
    operations: [
      'messages.send',
      'messages.read',
      'groups.send',
      'groups.manage',
      'presence.subscribe',
      'channel.connect',
      'channel.qr',
      'channel.pairing_code',
      'channel.logout',
      'contacts.lookup',
      'media.fetch',
      'profiles.read',
      'profile.update',
      'contacts.block',
      'privacy.settings',
      'contacts.lid',
      'calls.events',
      'calls.reject',
      'labels.manage',
      'status.post',
      'status.receive',
      'chats.manage',
      'chats.history',
      'messages.star',
      'messages.pin',
      'messages.forward',
    ],
    customer_service_window_hours: null,
  },
  engines: {
    // The sandbox's gateway speaks the HTTP protocol; a channel naming no gateway runs on the embedded engine.
    of: (channel) => (channel.sandbox ? 'sandbox' : engineOf(channel) === 'http' ? 'http_gateway' : 'embedded'),
    rows: {
      // A linked device sends what it cannot send as such as text, and has no status query to ask.
      embedded: { simplified_types: EMBEDDED_SIMPLIFIED_TYPES, parley_types: EMBEDDED_PARLEY_TYPES },
      http_gateway: HTTP_GATEWAY_ROW,
      sandbox: HTTP_GATEWAY_ROW,
    },
  },
  settings: {
    schema: z.object({
      gateway_base: z.url().optional().meta({ description: 'unofficial: the gateway base URL (https, public address)' }),
      session: z
        .string()
        .regex(/^[A-Za-z0-9_.-]{1,100}$/)
        .optional()
        .meta({ description: 'unofficial: the gateway session name (default the channel id)' }),
      group_messages: z.boolean().optional().meta({
        description:
          "unofficial: keep messages of groups the phone is in, each in the group's conversation (default false: groups are ignored; sends to groups, group management and group events work either way)",
      }),
      status_messages: z.boolean().optional().meta({
        description:
          "unofficial: keep contacts' status posts (stories) as inbound messages, in the channel's status@broadcast conversation (default false: status broadcasts are ignored)",
      }),
      always_online: z.boolean().optional().meta({
        description:
          'unofficial: show the account online while the channel is connected (default false: it stays offline, and the phone keeps its notifications)',
      }),
      read_receipts: z.boolean().optional().meta({
        description:
          'unofficial: mark each message Parley keeps as read when it arrives, so the sender sees it read (default false: only a mark_as_read message sends a read receipt)',
      }),
      import_history: z.boolean().optional().meta({
        description:
          'unofficial (embedded engine): import the messages the phone sends a newly linked device (its recent history) as inbound messages and echoes (default false: only the contacts it names are used)',
      }),
      // Calls (docs/channels.md, Calls): read as `settings.reject_calls` and `settings.reject_calls_message`.
      reject_calls: z.boolean().optional().meta({
        description: 'unofficial: reject every call as it rings (default false); the call stays in the conversation as rejected',
      }),
      reject_calls_message: z
        .string()
        .trim()
        .min(1)
        .max(4096)
        .optional()
        .meta({ description: 'unofficial: with reject_calls, a text sent to the caller after the call is rejected' }),
    }),
    credentials: z.object({
      api_key: z.string().min(1).max(4096).optional().meta({ description: 'unofficial: the gateway API key' }),
    }),
    // The secret the gateway signs its callbacks with.
    generated: ['callback_secret'],
    required: ['/settings/gateway_base', '/credentials/api_key'],
    address: 'gateway_base',
    ref: 'session',
    ownProvider: 'gateway_base',
    // No gateway named: the embedded engine pairs the user's own phone (the sandbox gateway is asked for with "sandbox": true).
    bare: 'embedded',
    channelDefaults: (channelId) => ({ session: channelId }),
  },
  pacing: { throughputPerSecond: 5 },
  // The HTTP protocol's rule; the embedded engine's differs (the adapter's sendsOf says which applies).
  sends: HTTP_GATEWAY_SENDS,
  connection: 'pairing',
  status: {
    initial: 'disconnected',
    initialReason: 'not paired yet',
    transitions: {
      disconnected: ['pairing', 'connected', 'error'],
      pairing: ['connected', 'disconnected', 'error'],
      connected: ['disconnected', 'error'],
      error: ['disconnected', 'pairing', 'connected'],
    },
    fromSession: channelStatusOf,
  },
  async bindSandbox(sandbox, db) {
    const session = await sandbox.provisionGatewaySession(db);
    return {
      settings: { gateway_base: session.gatewayBase, session: session.session },
      credentials: { api_key: session.apiKey },
      reason: 'bound to the sandbox gateway; not paired yet',
    };
  },
  createAdapter: createGatewayAdapter,
  inbound: gatewayInbound,
};
