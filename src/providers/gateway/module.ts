/**
 * The paired-gateway platform (docs/gateway-protocol.md): everything Parley needs to know about
 * it, in one place (see ProviderModule). Channels connect by pairing a phone with a QR code.
 */
import { z } from 'zod';
import { COMMON_MESSAGE_TYPES } from '../capabilities.ts';
import type { ProviderModule } from '../provider.ts';
import { createGatewayAdapter, HTTP_GATEWAY_SENDS } from './adapter.ts';
import { gatewayInbound } from './inbound.ts';
import { channelStatusOf } from './mapping.ts';

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
    simplified_types: ['template', 'buttons', 'list', 'cta_url', 'media_carousel', 'product_carousel'],
    operations: [
      'messages.send',
      'messages.read',
      'channel.connect',
      'channel.qr',
      'channel.pairing_code',
      'channel.logout',
      'contacts.lookup',
      'media.fetch',
    ],
    customer_service_window_hours: null,
  },
  settings: {
    schema: z.object({
      gateway_base: z.url().optional().meta({ description: 'unofficial: the gateway base URL (https, public address)' }),
      session: z
        .string()
        .regex(/^[A-Za-z0-9_.-]{1,100}$/)
        .optional()
        .meta({ description: 'unofficial: the gateway session name (default the channel id)' }),
      group_messages: z
        .boolean()
        .optional()
        .meta({ description: 'unofficial (embedded engine): store messages of groups the phone is in too (default false)' }),
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
