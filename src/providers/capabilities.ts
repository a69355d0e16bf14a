/**
 * The words a provider module states its support matrix row in (see ProviderModule.capabilities):
 * every message type and operation Parley knows. Which of them a platform supports is its module's
 * to say; domain/channels/capabilities.ts answers from those rows.
 */

/** Message types every chat-app platform so far sends (each module still lists its own). */
export const COMMON_MESSAGE_TYPES = [
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

/** Message types Parley sends, on some platform or other. */
export const MESSAGE_TYPES = [
  ...COMMON_MESSAGE_TYPES,
  'link',
  'poll',
  'presence',
  'edit_message',
  'delete_message',
  'message_status_query',
  'message_media_download',
  'flow',
] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

export const OPERATIONS = [
  'messages.send',
  'messages.read',
  'groups.send',
  'groups.manage',
  'presence.subscribe',
  'channel.connect',
  'channel.qr',
  'channel.pairing_code',
  'channel.logout',
  'bizapi.register_phone',
  'bizapi.exchange_code',
  'templates.submit',
  'templates.sync',
  'contacts.lookup',
  'media.fetch',
  'media.upload',
  // Contacts and profiles (unofficial channels: docs/channels.md, Profiles, blocking and privacy).
  'profiles.read',
  'profile.update',
  'contacts.block',
  'privacy.settings',
  'contacts.lid',
  // Calls (docs/channels.md, Calls).
  'calls.events',
  'calls.reject',
  // Business labels and status posts (docs/channels.md, Labels and Status).
  'labels.manage',
  'status.post',
  'status.receive',
  // Chats of a linked phone (docs/channels.md, Chats): archive, pin, mute, unread, delete; earlier messages on demand.
  'chats.manage',
  'chats.history',
  // A message starred on the phone, or pinned in its chat for everyone.
  'messages.star',
  'messages.pin',
  'messages.forward',
] as const;
export type Operation = (typeof OPERATIONS)[number];

/**
 * A group as a message's `to` (platforms with `groups.send`): the chat network's group id,
 * `<digits>@g.us` (older groups `<digits>-<digits>@g.us`), as inbound group messages name it in
 * `content.group.id`.
 */
export const GROUP_RECIPIENT = /^\d{5,20}(-\d{5,20})?@g\.us$/;

/**
 * The engines a channel runs on: the platform's official API, the embedded linked-device engine
 * (a session inside Parley), an HTTP gateway of the user's own, or the built-in sandbox. A platform's
 * module says which of them serves a channel (ProviderModule.engines).
 */
export const ENGINES = ['official', 'embedded', 'http_gateway', 'sandbox'] as const;
export type Engine = (typeof ENGINES)[number];

/** One platform's row of the support matrix: what its channels accept, whichever engine serves them. */
export type CapabilityRow = {
  message_types: readonly MessageType[];
  operations: readonly Operation[];
  /** Business-initiated messages outside this many hours since the customer's last message must be templates; null: no window. */
  customer_service_window_hours: number | null;
};

/**
 * How one engine serves the platform's message types: each is sent as the chat network's own kind of
 * message (native), in a simplified form, or answered by Parley itself; the types listed in neither
 * list here are native.
 */
export type EngineRow = {
  /** Types the engine sends in a simplified form (plain text with numbered options, etc.). */
  simplified_types: readonly MessageType[];
  /** Types Parley answers from its own records (source: parley): nothing reaches the chat network. */
  parley_types: readonly MessageType[];
};

/** What an engine is chosen by: the channel's settings and whether it is bound to the sandbox, nothing else. */
export type EngineChoice = { sandbox: boolean; settings: Record<string, unknown> };
