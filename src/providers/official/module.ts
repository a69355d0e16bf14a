/**
 * The business cloud API platform: everything Parley needs to know about it, in one place (see
 * ProviderModule). Channels connect with a token the provider vouches for; no pairing.
 */
import { z } from 'zod';
import { COMMON_MESSAGE_TYPES, type EngineRow } from '../capabilities.ts';
import type { ProviderModule } from '../provider.ts';
import { createOfficialAdapter } from './adapter.ts';
import { officialInbound } from './inbound.ts';

/** The provider sends every type it takes as its own kind of message. */
const NATIVE: EngineRow = { simplified_types: [], parley_types: [] };

/** The provider's API cannot mark a message forwarded. */
const notForwarded = (content: Record<string, unknown>) =>
  content.forwarded === undefined
    ? []
    : [{ pointer: '/content/forwarded', message: 'official channels cannot mark a message forwarded (unofficial channels can)' }];

export const officialProvider: ProviderModule = {
  platform: 'chatapp_official',
  capabilities: {
    // presence: typing only, as the read receipt's typing indicator (contentRules).
    message_types: [...COMMON_MESSAGE_TYPES, 'flow', 'presence'],
    // No contacts.lookup: the published API has no call that says whether a number is on the app.
    operations: [
      'messages.send',
      'messages.read',
      'bizapi.register_phone',
      'bizapi.exchange_code',
      'templates.submit',
      'templates.sync',
      'media.fetch',
      'media.upload',
    ],
    customer_service_window_hours: 24,
  },
  contentRules: {
    // The provider's API has no mentions nor forwards (a linked device's messages do).
    text: (content) => [
      ...(content.mentions === undefined
        ? []
        : [{ pointer: '/content/mentions', message: 'official channels cannot mention people (unofficial channels can)' }]),
      ...notForwarded(content),
    ],
    image: notForwarded,
    video: notForwarded,
    audio: notForwarded,
    document: notForwarded,
    sticker: notForwarded,
    location: notForwarded,
    presence: (content) =>
      content.state === 'typing'
        ? []
        : [
            {
              pointer: '/content/state',
              message: `official channels show typing only (the provider's typing indicator), not ${String(content.state)}`,
            },
          ],
  },
  engines: {
    of: (channel) => (channel.sandbox ? 'sandbox' : 'official'),
    // The sandbox plays the provider's API, with its types.
    rows: { official: NATIVE, sandbox: NATIVE },
  },
  settings: {
    schema: z.object({
      api_base: z.url().optional().meta({ description: "official: the provider API's base URL (default OFFICIAL_API_BASE)" }),
      api_version: z
        .string()
        .regex(/^v\d+\.\d+$/)
        .optional()
        .meta({ example: 'v23.0' }),
      phone_number_id: z
        .string()
        .regex(/^\d{1,32}$/)
        .optional(),
      waba_id: z
        .string()
        .regex(/^\d{1,32}$/)
        .optional()
        .meta({ description: 'official: business account id (templates)' }),
    }),
    credentials: z.object({
      access_token: z.string().min(1).max(4096).optional().meta({ description: 'official: bearer token' }),
      app_secret: z
        .string()
        .min(1)
        .max(512)
        .optional()
        .meta({ description: 'official: the app secret, for a channel on its own app (webhook path with the channel id)' }),
    }),
    required: ['/settings/phone_number_id', '/credentials/access_token', '/settings/api_base'],
    address: 'api_base',
    ref: 'phone_number_id',
    ownProvider: 'phone_number_id',
    // Without credentials a channel can only be the sandbox's.
    bare: 'sandbox',
    installationDefaults: (config) => ({
      ...(config.official.apiBase !== undefined ? { api_base: config.official.apiBase } : {}),
      api_version: config.official.apiVersion,
    }),
  },
  pacing: { throughputPerSecond: 80 },
  // No idempotency key and no way to look a send up: only a status webhook echoing
  // biz_opaque_callback_data can settle a send whose answer was lost.
  sends: { idempotentResend: false },
  connection: 'credentials',
  status: {
    initial: 'pending',
    initialReason: 'awaiting credential check',
    transitions: {
      pending: ['connected', 'error', 'disconnected'],
      connected: ['disconnected', 'error'],
      disconnected: ['connected', 'error', 'pending'],
      error: ['connected', 'disconnected', 'pending'],
    },
  },
  async bindSandbox(sandbox, db, input) {
    const number = await sandbox.provisionOfficialNumber(db, { displayPhoneNumber: input.displayPhoneNumber });
    return {
      settings: { api_base: number.apiBase, api_version: number.apiVersion, phone_number_id: number.phoneNumberId, waba_id: number.wabaId },
      credentials: { access_token: number.accessToken },
      displayPhoneNumber: number.displayPhoneNumber,
      status: 'connected',
      reason: 'bound to the sandbox provider',
    };
  },
  createAdapter: createOfficialAdapter,
  inbound: officialInbound,
};
