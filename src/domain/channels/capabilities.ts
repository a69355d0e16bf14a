/**
 * The channel support matrix: which message types and operations each platform supports, as its
 * provider module states them. The validator, the route guards, GET /v1/channels/{id}/capabilities
 * and the docs all read these rows, so they cannot disagree.
 */
import { MESSAGE_TYPES, OPERATIONS, type MessageType, type Operation } from '../../providers/capabilities.ts';
import type { Platform } from '../../providers/provider.ts';
import { providerModule } from '../../providers/registry.ts';
import { DomainError } from '../errors.ts';

export { MESSAGE_TYPES, OPERATIONS, type MessageType, type Operation };

export type Capabilities = {
  platform: Platform;
  message_types: MessageType[];
  simplified_types: MessageType[];
  operations: Operation[];
  /** Business-initiated messages outside the window must be templates. */
  customer_service_window_hours: number | null;
};

export function capabilitiesOf(platform: Platform | string): Capabilities {
  const module = providerModule(platform);
  const row = module.capabilities;
  return {
    platform: module.platform,
    message_types: [...row.message_types],
    simplified_types: [...row.simplified_types],
    operations: [...row.operations],
    customer_service_window_hours: row.customer_service_window_hours,
  };
}

export function supportsType(platform: Platform | string, type: MessageType): boolean {
  return providerModule(platform).capabilities.message_types.includes(type);
}

export function supportsOperation(platform: Platform | string, operation: Operation): boolean {
  return providerModule(platform).capabilities.operations.includes(operation);
}

/** Throws an `unsupported` error naming the operation and the platform. */
export function assertOperation(platform: Platform | string, operation: Operation, label: string = operation): void {
  if (!supportsOperation(platform, operation)) {
    throw new DomainError('unsupported', `${label} is not supported on ${platform} channels`, { extra: { operation, platform } });
  }
}

/** Throws an `unsupported` error naming each field of well-formed content the platform cannot send (its module's contentRules). */
export function assertSendable(platform: Platform | string, type: MessageType, content: Record<string, unknown>): void {
  const refused = providerModule(platform).contentRules?.[type]?.(content) ?? [];
  if (refused.length === 0) return;
  throw new DomainError(
    'unsupported',
    `content of a ${type} message cannot be sent on ${platform} channels: ${refused.map((r) => `${r.pointer.slice('/content/'.length)}: ${r.message}`).join('; ')}`,
    { extra: { message_type: type, platform }, fieldErrors: refused },
  );
}

export function assertMessageType(platform: Platform | string, type: MessageType): void {
  if (!supportsType(platform, type)) {
    throw new DomainError('unsupported', `message type ${type} is not supported on ${platform} channels`, {
      extra: { message_type: type, platform },
      fieldErrors: [{ pointer: '/type', message: `not supported on ${platform}` }],
    });
  }
}
