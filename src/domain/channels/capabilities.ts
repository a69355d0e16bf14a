/**
 * The channel support matrix: which message types and operations each platform supports, as its
 * provider module states them. The validator, the route guards, GET /v1/channels/{id}/capabilities
 * and the docs all read these rows, so they cannot disagree.
 */
import {
  ENGINES,
  MESSAGE_TYPES,
  OPERATIONS,
  type Engine,
  type EngineChoice,
  type MessageType,
  type Operation,
} from '../../providers/capabilities.ts';
import type { Platform } from '../../providers/provider.ts';
import { providerModule } from '../../providers/registry.ts';
import { DomainError } from '../errors.ts';

export { ENGINES, MESSAGE_TYPES, OPERATIONS, type Engine, type MessageType, type Operation };

/** A platform's row: what its channels accept, whichever engine serves them. */
export type PlatformCapabilities = {
  platform: Platform;
  message_types: MessageType[];
  operations: Operation[];
  /** Business-initiated messages outside the window must be templates. */
  customer_service_window_hours: number | null;
};

/**
 * One channel's capabilities: its platform's row, and how its engine sends each type (every type
 * is in exactly one of native_types, simplified_types and parley_types).
 */
export type Capabilities = PlatformCapabilities & {
  engine: Engine;
  native_types: MessageType[];
  simplified_types: MessageType[];
  parley_types: MessageType[];
};

export function capabilitiesOf(platform: Platform | string): PlatformCapabilities {
  const module = providerModule(platform);
  const row = module.capabilities;
  return {
    platform: module.platform,
    message_types: [...row.message_types],
    operations: [...row.operations],
    customer_service_window_hours: row.customer_service_window_hours,
  };
}

/** The engine serving a channel, as its platform's module decides from the channel's settings. */
export function engineOf(channel: EngineChoice & { platform: Platform | string }): Engine {
  return providerModule(channel.platform).engines.of(channel);
}

/** The capabilities of a channel's engine (GET /v1/channels/{id}/capabilities). */
export function channelCapabilities(channel: EngineChoice & { platform: Platform | string }): Capabilities {
  return engineCapabilities(channel.platform, engineOf(channel));
}

/** The capabilities of one engine of a platform (the docs' table is made from these). */
export function engineCapabilities(platform: Platform | string, engine: Engine): Capabilities {
  const base = capabilitiesOf(platform);
  const row = providerModule(platform).engines.rows[engine];
  if (!row) throw new Error(`platform ${platform} has no engine ${engine}`);
  const simplified = new Set<MessageType>(row.simplified_types);
  const parley = new Set<MessageType>(row.parley_types);
  return {
    platform: base.platform,
    engine,
    message_types: base.message_types,
    native_types: base.message_types.filter((t) => !simplified.has(t) && !parley.has(t)),
    simplified_types: base.message_types.filter((t) => simplified.has(t)),
    parley_types: base.message_types.filter((t) => parley.has(t)),
    operations: base.operations,
    customer_service_window_hours: base.customer_service_window_hours,
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
