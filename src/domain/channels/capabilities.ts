/**
 * The channel support matrix: which message types and operations each platform supports. The
 * validator, the route guards, GET /v1/channels/{id}/capabilities and the docs all read this one
 * table, so they cannot disagree.
 */
import type { Platform } from '../../providers/provider.ts';
import { DomainError } from '../errors.ts';

/** Types both platforms send. */
const BOTH = [
  'text',
  'image',
  'video',
  'audio',
  'document',
  'sticker',
  'location',
  'location_request',
  'contact',
  'reaction',
  'mark_as_read',
  'address',
  'single_product',
  'multi_product',
  'catalog',
  'template',
  'buttons',
  'list',
  'cta_url',
  'media_carousel',
  'product_carousel',
] as const;
/** Types only a paired gateway can send. */
const GATEWAY_ONLY = ['link', 'poll', 'presence', 'edit_message', 'delete_message', 'message_status_query', 'message_media_download'] as const;

export const MESSAGE_TYPES = [...BOTH, ...GATEWAY_ONLY] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

export const OPERATIONS = [
  'messages.send',
  'messages.read',
  'channel.connect',
  'channel.qr',
  'channel.logout',
  'bizapi.register_phone',
  'bizapi.exchange_code',
  'templates.submit',
  'templates.sync',
  'contacts.lookup',
  'media.fetch',
] as const;
export type Operation = (typeof OPERATIONS)[number];

/** Types a gateway renders in simplified form (plain text with numbered options, etc.). */
const SIMPLIFIED_ON_GATEWAY: readonly MessageType[] = ['template', 'buttons', 'list', 'cta_url', 'media_carousel', 'product_carousel'];

export type Capabilities = {
  platform: Platform;
  message_types: MessageType[];
  simplified_types: MessageType[];
  operations: Operation[];
  /** Business-initiated messages outside the 24-hour window must be templates. */
  customer_service_window_hours: number | null;
};

const MATRIX: Record<Platform, Capabilities> = {
  chatapp_official: {
    platform: 'chatapp_official',
    message_types: [...BOTH],
    simplified_types: [],
    operations: ['messages.send', 'messages.read', 'bizapi.register_phone', 'bizapi.exchange_code', 'templates.submit', 'templates.sync', 'contacts.lookup', 'media.fetch'],
    customer_service_window_hours: 24,
  },
  chatapp_unofficial: {
    platform: 'chatapp_unofficial',
    message_types: [...BOTH, ...GATEWAY_ONLY],
    simplified_types: [...SIMPLIFIED_ON_GATEWAY],
    operations: ['messages.send', 'messages.read', 'channel.connect', 'channel.qr', 'channel.logout', 'contacts.lookup', 'media.fetch'],
    customer_service_window_hours: null,
  },
};

export function capabilitiesOf(platform: Platform): Capabilities {
  return MATRIX[platform];
}

export function supportsType(platform: Platform, type: MessageType): boolean {
  return MATRIX[platform].message_types.includes(type);
}

export function supportsOperation(platform: Platform, operation: Operation): boolean {
  return MATRIX[platform].operations.includes(operation);
}

/** Throws an `unsupported` error naming the operation and the platform. */
export function assertOperation(platform: Platform, operation: Operation, label: string = operation): void {
  if (!supportsOperation(platform, operation)) {
    throw new DomainError('unsupported', `${label} is not supported on ${platform} channels`, { extra: { operation, platform } });
  }
}

export function assertMessageType(platform: Platform, type: MessageType): void {
  if (!supportsType(platform, type)) {
    throw new DomainError('unsupported', `message type ${type} is not supported on ${platform} channels`, {
      extra: { message_type: type, platform },
      fieldErrors: [{ pointer: '/type', location: 'body', message: `not supported on ${platform}` }],
    });
  }
}
