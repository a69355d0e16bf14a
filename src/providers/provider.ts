/**
 * The provider interface: what Parley asks of a chat-app provider, in Parley's own types. Each
 * platform is one folder (official/, gateway/) exporting one ProviderModule that states everything
 * platform-specific, with an adapter that speaks its provider's HTTP wire protocol; registry.ts
 * lists the modules. Callers never test a platform's name, they read its module.
 */
import type { z } from 'zod';
import type { Executor } from '../db/client.ts';
import type { TargetPolicy } from '../lib/safe-fetch.ts';
import type { SandboxProvisioning } from '../sandbox/contract.ts';
import type { CapabilityRow, Engine, EngineChoice, EngineRow, MessageType } from './capabilities.ts';
import type { EmbeddedEngine } from './gateway/embedded/engine.ts';
import type { CallCalls, ProfileCalls } from './profiles.ts';
import type { Platform } from './registry.ts';

/** A platform's name: a key of the registry (channels.platform). */
export type { Platform };

/** Where a channel stands with its provider (the status machine is in domain/channels/status.ts). */
/** Every state a channel can be in (the dashboard's status colours are checked against this list). */
export const CHANNEL_STATUSES = ['pending', 'connected', 'disconnected', 'error', 'pairing'] as const;
export type ChannelStatus = (typeof CHANNEL_STATUSES)[number];

/** What an adapter needs of one channel: its non-secret settings and its decrypted credentials. */
export type ChannelConnection = {
  channelId: string;
  organizationId: string;
  platform: Platform;
  /** Bound to the built-in sandbox (its loopback address is then an allowed target). */
  sandbox: boolean;
  settings: Record<string, unknown>;
  credentials: Record<string, string>;
};

/** A message in Parley's normalized shape, ready for an adapter to translate. */
export type OutboundMessage = {
  /** Parley's message id; adapters pass it as the idempotency key where the provider has one. */
  id: string;
  /** Recipient: international digits without `+`. */
  to: string;
  type: string;
  content: Record<string, unknown>;
  /**
   * A presence's: the provider id of the customer's latest message in the conversation, which it
   * answers when its content names none (the official API shows typing as it marks one read).
   */
  answering?: string;
};

/**
 * Whom a provider error concerns, as the provider module classifies it (callers act on it without
 * knowing the platform): only this message; sends to this recipient (a per-recipient rate limit);
 * the whole channel (throughput limits, or an account-level fault when `channelFault`); or the
 * template the message uses (`templateStatus` says what it became).
 */
export type ProviderErrorScope = 'message' | 'recipient' | 'channel' | 'template';

export type ProviderError = {
  /** The provider's error code, as a string (e.g. "131047"). */
  code: string;
  title: string;
  message?: string;
  /** Worth trying again later (throughput limits, 5xx, network faults, errors the provider says are transient). */
  retryable: boolean;
  /** How long to wait before trying again, where the provider says so (Retry-After) or its limit implies it. */
  retryAfterSeconds?: number;
  /** The channel itself is broken (e.g. an expired token, a locked account): mark it `error`. */
  channelFault?: boolean;
  /**
   * The provider holds sends back for now, through no fault of the message (a throughput or rate
   * limit, maintenance): with scope `channel` every send of the channel waits retryAfterSeconds, with
   * scope `recipient` the sends to that recipient; the message is tried again then and spends no
   * attempt doing so (dispatch bounds the wait by MESSAGE_HOLD_SECONDS instead).
   */
  hold?: boolean;
  /** Whom the error concerns; `message` when unset. */
  scope?: ProviderErrorScope;
  /** With scope `template`: the status the provider gave the template (it refuses sends of it until it changes). */
  templateStatus?: 'paused' | 'disabled';
  /** The provider's own wording for the end user, where it gives one. */
  userTitle?: string;
  userMessage?: string;
  /** The numbers (international digits) the error is about, where it names some (a group's participants not on the network, or not in it). */
  participants?: string[];
};

/**
 * Where an inbound message's media can be fetched, as the platform's inbound half saw it. `source`
 * is the platform's own (opaque to the domain, never shown to users: it may hold decryption keys)
 * and is handed back to its adapter's downloadMedia.
 */
export type InboundMedia = { source: Record<string, unknown>; mimeType?: string; fileName?: string; size?: number };

/** Downloaded media, streamed: the declared type and size are the provider's word, not trusted. */
export type MediaDownload = { body: AsyncIterable<Uint8Array>; mimeType?: string; size?: number };

/** A file to upload: its bytes, its MIME type as the provider's table names it, and the name it was given. */
export type MediaFile = { bytes: Uint8Array<ArrayBuffer>; mimeType: string; fileName?: string };

export type Result<T> = { ok: true; value: T } | { ok: false; error: ProviderError };

export type ProviderProfile = { exists: boolean; chatappId?: string; name?: string };

/** A participant of a group: its phone (international digits) and privacy id where known, and its role. */
export type GroupParticipant = { phone: string | null; lid: string | null; role: 'member' | 'admin' | 'superadmin' };

/** A group the channel's number is in, as its engine reports it (groups.manage). */
export type ProviderGroup = {
  /** The chat network's id: `<digits>@g.us` (GROUP_RECIPIENT). */
  id: string;
  subject: string;
  description: string | null;
  /** The creator's phone, where known. */
  owner: string | null;
  createdAt: Date | null;
  /** Only admins may send messages. */
  announcement: boolean;
  /** Only admins may change the subject, description and picture. */
  locked: boolean;
  /** Members (not only admins) may add participants. */
  membersCanAdd: boolean;
  /** New members need an admin's approval (joining by link). */
  joinApproval: boolean;
  /** Disappearing messages: their lifetime in seconds, 0 when off. */
  ephemeralSeconds: number;
  size: number;
  participants: GroupParticipant[];
  /** The channel's own number's role in it (null: the engine could not tell). */
  role: GroupParticipant['role'] | null;
};

/** What a group change asks (each field given is changed). */
export type GroupChange = {
  subject?: string;
  /** null (or empty) removes it. */
  description?: string | null;
  announcement?: boolean;
  locked?: boolean;
  membersCanAdd?: boolean;
  joinApproval?: boolean;
  ephemeralSeconds?: number;
};

export type GroupParticipantAction = 'add' | 'remove' | 'promote' | 'demote';

/** One participant's outcome of a participants change: the chat network answers each on its own. */
export type GroupParticipantResult = { phone: string; ok: boolean; error?: { code: string; title: string } };

/**
 * The group calls of an engine (capability `groups.manage`). A refusal's code says what it is:
 * `group_not_found` (the number is not in that group), `not_admin` (only admins may), `participant_not_on_network`
 * and `not_participant` (naming `participants`), `invite_not_found` (a code no group has); any other is
 * the engine's.
 */
export type GroupCalls = {
  list(connection: ChannelConnection): Promise<Result<ProviderGroup[]>>;
  get(connection: ChannelConnection, groupId: string): Promise<Result<ProviderGroup>>;
  create(connection: ChannelConnection, input: { subject: string; participants: string[] }): Promise<Result<ProviderGroup>>;
  update(connection: ChannelConnection, groupId: string, change: GroupChange): Promise<Result<ProviderGroup>>;
  /** Sets the group's picture from an image URL (fetched under the target policy), or removes it (null). */
  setPicture(connection: ChannelConnection, groupId: string, imageUrl: string | null): Promise<Result<{ changed: true }>>;
  participants(
    connection: ChannelConnection,
    groupId: string,
    action: GroupParticipantAction,
    participants: string[],
  ): Promise<Result<GroupParticipantResult[]>>;
  /** The group's invite code; `revoke` makes a new one (the old link stops working). */
  invite(connection: ChannelConnection, groupId: string, options: { revoke: boolean }): Promise<Result<{ code: string }>>;
  /** Joins by invite code: the group's id, or null when the group's admins must approve the request first. */
  join(connection: ChannelConnection, code: string): Promise<Result<{ groupId: string | null }>>;
  leave(connection: ChannelConnection, groupId: string): Promise<Result<{ left: true }>>;
};

/** A business label as the engine holds it: its id (the engine's), name and color (0-19, the chat app's palette). */
export type ProviderLabel = { id: string; name: string; color: number };

/**
 * The label calls of an engine (capability `labels.manage`). A chat is a contact's phone (international
 * digits) or a group id. Refusals: `label_not_found`, `chat_not_found`; any other is the engine's.
 */
export type LabelCalls = {
  /** Creates or changes a label (the id is Parley's choice for a new one; the engine may answer another). */
  save(connection: ChannelConnection, label: ProviderLabel): Promise<Result<ProviderLabel>>;
  remove(connection: ChannelConnection, labelId: string): Promise<Result<{ removed: true }>>;
  /** Puts a label on a chat, or on one message of it (messageId), or takes it off. */
  assign(
    connection: ChannelConnection,
    input: { labelId: string; chat: string; messageId?: string; action: 'add' | 'remove' },
  ): Promise<Result<{ changed: true }>>;
};

/** A status post (a story): text on a colored background, or an image or video from a URL, shown to the recipients. */
export type StatusPost =
  | { type: 'text'; text: string; backgroundColor: string; font: number; recipients: string[] }
  | { type: 'image' | 'video'; url: string; caption?: string; recipients: string[] };

/** A chat as its engine names it: a number's international digits, or a group id (`<digits>@g.us`). */
export type ChatChange = {
  archived?: boolean;
  pinned?: boolean;
  /** Muted until then; null unmutes. */
  mutedUntil?: Date | null;
  /** true: marked unread; false: read (on the phone too). */
  unread?: boolean;
};

/**
 * A message of a chat as the phone's chat actions need it: the newest one (archive, read and delete name the
 * range of messages they cover), or the oldest Parley holds (history asks for the ones before it).
 */
export type ChatMessageRef = {
  /** The provider's message id. */
  id: string;
  /** Sent by the business (the channel's number). */
  fromMe: boolean;
  /** In a group, the sender of a message not the business's: international digits. */
  participant?: string;
  timestamp: Date;
};

/**
 * The chat calls of an engine (capabilities `chats.manage`, `chats.history`). A refusal's code says what it
 * is: `chat_not_found` (the phone has no such chat), `not_on_network` (the number has no account); any other
 * is the engine's.
 */
export type ChatCalls = {
  /** Archives, pins, mutes or marks (un)read a chat on the phone: each field given. */
  modify(connection: ChannelConnection, chat: string, change: ChatChange, last: ChatMessageRef | null): Promise<Result<{ changed: true }>>;
  /** Deletes the chat on the phone (and its messages there). */
  remove(connection: ChannelConnection, chat: string, last: ChatMessageRef | null): Promise<Result<{ deleted: true }>>;
  /**
   * Asks the phone for up to `count` messages of the chat before `oldest` (chats.history): they arrive
   * later as messages of the chat (the phone sends them when it is online), not in the answer.
   */
  history(connection: ChannelConnection, chat: string, oldest: ChatMessageRef, count: number): Promise<Result<{ requested: true }>>;
  /** Stars or unstars a message of the chat on the phone (messages.star). */
  star(connection: ChannelConnection, chat: string, message: ChatMessageRef, starred: boolean): Promise<Result<{ changed: true }>>;
  /** Pins a message in its chat for everyone for `seconds` (86400, 604800 or 2592000), or unpins it (messages.pin). */
  pin(
    connection: ChannelConnection,
    chat: string,
    message: ChatMessageRef,
    pin: { pinned: boolean; seconds: number },
  ): Promise<Result<{ changed: true }>>;
};

/** A contact's presence as the chat network reports it. */
export const PRESENCES = ['available', 'unavailable', 'composing', 'recording', 'paused'] as const;
export type Presence = (typeof PRESENCES)[number];

/** The statuses a provider may give a template (Parley's own `draft` is never the provider's). */
export const PROVIDER_TEMPLATE_STATUSES = ['pending', 'approved', 'rejected', 'paused', 'disabled'] as const;
export type ProviderTemplateStatus = (typeof PROVIDER_TEMPLATE_STATUSES)[number];

export type ProviderTemplate = {
  providerTemplateId: string;
  name: string;
  language: string;
  category: string;
  components: unknown[];
  status: ProviderTemplateStatus;
  reason?: string;
};

/**
 * What a status report says about billing, as the provider sent it (official: the status's `pricing`
 * and `conversation`, its billing conversation, not Parley's).
 */
export type StatusPricing = { billable?: boolean; pricing_model?: string; category?: string; type?: string };
export type StatusConversation = { id: string; origin?: { type?: string }; expiration_timestamp?: string };

/**
 * An error a provider reports beside the messages (official: a webhook's `value.errors`);
 * `channelFault` is the provider module's classification: the channel itself is broken.
 */
export type ReportedError = { code: string; title: string; message?: string; details?: string; href?: string; channelFault?: true };

export type QrCode = { qr: string; expiresAt: Date };

/** A code the phone types instead of scanning the QR; it lapses with the QR. */
export type PairingCode = { code: string; expiresAt: Date };

/** A check's answer; `messagingTier` is the number's messaging tier where the provider says it (official: `messaging_limit_tier`, e.g. TIER_1K). */
export type HealthCheck = { ok: true; status: string; messagingTier?: string } | { ok: false; error: ProviderError };

/** Onboarding results (official): what the embedded-signup code exchange yields. */
export type SignupExchange = {
  accessToken: string;
  wabaId: string;
  phoneNumbers: Array<{ phoneNumberId: string; displayPhoneNumber: string; verifiedName?: string }>;
};

/** What a provider holds for a send made with Parley's message id as its idempotency key. */
export type SendRecord = { found: true; providerMessageId: string } | { found: false };

/** Asks a provider whether it holds a send made with this message id (see ProviderAdapter.findSend). */
export type SendFinder = (connection: ChannelConnection, messageId: string) => Promise<Result<SendRecord>>;

/**
 * How a send whose answer was lost (the process died mid-call, the call timed out) can be settled
 * with this provider, as far as its API allows (docs/messages.md, "Never twice").
 */
export type SendGuarantees = {
  /** A send repeated with the same idempotency key is answered with the first one's result and sends nothing. */
  idempotentResend: boolean;
  /**
   * False where the provider cannot be asked about a send (findSend is then not used, and only a status
   * naming the message settles a lost answer); true when unset.
   */
  askable?: boolean;
};

/**
 * A provider's inbound half (its inbound.ts): checks a delivery's signature over the raw body, then
 * normalizes it into Parley's events, once, on receipt.
 */
export type ProviderInbound = {
  /** The request header carrying the signature (lower-case). */
  signatureHeader: string;
  /** The request header carrying the provider's own delivery id, where it sends one: retries are stored once. */
  deliveryIdHeader?: string;
  verify(rawBody: Buffer, signature: string | undefined, secrets: readonly string[]): boolean;
  normalize(payload: unknown): InboundEvent[];
};

export interface ProviderAdapter {
  readonly platform: Platform;
  readonly sends: SendGuarantees;
  readonly inbound: ProviderInbound;
  /**
   * Sends one message. `providerMessageId` is the provider's id for it; absent when the provider
   * gives the request no message of its own (the official mark-as-read answers `{success: true}`).
   */
  send(connection: ChannelConnection, message: OutboundMessage): Promise<Result<{ providerMessageId?: string }>>;
  /**
   * Whether the provider holds a send made with this message id, where its API can be asked; absent
   * where it cannot (then only a status webhook naming the message can settle a lost answer).
   */
  findSend?: SendFinder;
  /** The guarantees of one channel's engine, where a platform's engines differ (default: `sends`). */
  sendsOf?(connection: ChannelConnection): SendGuarantees;
  fetchMedia(connection: ChannelConnection, mediaId: string): Promise<Result<{ url: string; mimeType: string }>>;
  /**
   * Uploads a file to the provider for sending by id (capability `media.upload`); answers the
   * provider's media id. The file is already held to the provider's limits for its kind.
   */
  uploadMedia?(connection: ChannelConnection, file: MediaFile): Promise<Result<{ mediaId: string }>>;
  /** Downloads an inbound message's media from the `source` its inbound half gave (InboundMedia). */
  downloadMedia?(connection: ChannelConnection, source: Record<string, unknown>): Promise<Result<MediaDownload>>;
  /** Whether a number is on the chat app, where the provider's API can be asked (capability `contacts.lookup`). */
  lookupProfile?(connection: ChannelConnection, phone: string): Promise<Result<ProviderProfile>>;
  checkHealth(connection: ChannelConnection): Promise<HealthCheck>;
  /** Official only (see capabilities). */
  listTemplates?(connection: ChannelConnection): Promise<Result<ProviderTemplate[]>>;
  submitTemplate?(
    connection: ChannelConnection,
    template: { name: string; language: string; category: string; components: unknown[] },
  ): Promise<Result<{ providerTemplateId: string; status: ProviderTemplateStatus }>>;
  registerPhone?(connection: ChannelConnection, pin: string): Promise<Result<{ registered: true }>>;
  /** Embedded signup (capability `bizapi.exchange_code`): the signup code for a business token, its account and numbers. */
  exchangeCode?(input: {
    apiBase: string;
    version: string;
    appId: string;
    appSecret: string;
    code: string;
    wabaId?: string;
  }): Promise<Result<SignupExchange>>;
  /** Unofficial only: start pairing and read the current QR. */
  startPairing?(connection: ChannelConnection, callback: { url: string; secret: string }): Promise<Result<{ status: string }>>;
  getQr?(connection: ChannelConnection): Promise<Result<QrCode>>;
  /** A pairing code for the phone (international digits without `+`), while pairing (capability `channel.pairing_code`). */
  requestPairingCode?(connection: ChannelConnection, phone: string): Promise<Result<PairingCode>>;
  logout?(connection: ChannelConnection): Promise<Result<{ status: string }>>;
  /** Groups the channel's number is in (capability `groups.manage`). */
  groups?: GroupCalls;
  /** Asks for a contact's presence updates (capability `presence.subscribe`): they arrive as `presence.update` events. */
  subscribePresence?(connection: ChannelConnection, phone: string): Promise<Result<{ subscribed: true }>>;
  /**
   * The channel's settings changed: hands them to the engine that honours them (the embedded engine
   * reads them again; an HTTP gateway is sent them). Absent where the platform's settings need no engine.
   */
  applySettings?(connection: ChannelConnection): Promise<Result<{ applied: true }>>;
  /** Contacts and profiles (operations profiles.read, profile.update, contacts.block, privacy.settings, contacts.lid). */
  profiles?: ProfileCalls;
  /** Calls (operation calls.reject). */
  calls?: CallCalls;
  /** Business labels (capability `labels.manage`). */
  labels?: LabelCalls;
  /** Posts a status (a story) to the recipients (capability `status.post`): its id on the chat network. */
  postStatus?(connection: ChannelConnection, post: StatusPost): Promise<Result<{ id: string }>>;
  /** Chats of a linked phone (operations chats.manage, chats.history). */
  chats?: ChatCalls;
}

/** What an adapter is built with. */
export type AdapterOptions = {
  /** Where calls may go, decided by the current config and the URL (never by a flag stored on the channel). */
  targets: TargetPolicy;
  /** One call's time limit (15 s when unset). */
  timeoutMs?: number;
  /** The engine holding linked-device sessions inside Parley (unofficial channels without a gateway_base); built by the container. */
  embedded?: EmbeddedEngine;
};

/** A new channel bound to the built-in sandbox: what the sandbox provisioned for it. */
export type SandboxBinding = {
  settings: Record<string, unknown>;
  credentials: Record<string, string>;
  displayPhoneNumber?: string;
  /** Where the channel starts (default: the module's initial status). */
  status?: ChannelStatus;
  reason: string;
};

/** Installation-wide provider settings from the config, which a module may use as channel defaults. */
export type ProviderDefaultsConfig = { official: { apiBase: string | undefined; apiVersion: string } };

/**
 * Everything platform-specific, stated once by the platform's folder. Domain code reads these
 * (through registry.ts) and never tests a platform's name: a new engine is a new folder and one
 * registry line.
 */
export type ProviderModule = {
  readonly platform: Platform;
  /** Its row of the support matrix: what its channels accept, whichever engine serves them (the validator reads it). */
  readonly capabilities: CapabilityRow;
  /**
   * What it cannot send of well-formed content of a type it lists, field by field (pointers under
   * /content): refused at accept as `unsupported`, naming them.
   */
  readonly contentRules?: Partial<Record<MessageType, (content: Record<string, unknown>) => Array<{ pointer: string; message: string }>>>;
  /**
   * The engines its channels run on: which one serves a channel (its settings decide), and how each
   * sends the platform's types (native, simplified, or answered by Parley).
   */
  readonly engines: {
    of(channel: EngineChoice): Engine;
    rows: Partial<Record<Engine, EngineRow>>;
  };
  readonly settings: {
    /** Non-secret settings a user may see and set (each optional), with their validation. */
    schema: z.ZodObject;
    /** Credentials a user may set (write-only, stored sealed), with their validation. */
    credentials: z.ZodObject;
    /** Credentials the channel makes for itself (never set by a user, never listed). */
    generated?: readonly string[];
    /** Settings and credentials (JSON pointers) a channel on a provider of the user's own must have, in the order they are named. */
    required: readonly string[];
    /** The setting holding the provider's base address (checked against the target policy). */
    address: string;
    /** The setting naming the channel at its provider: provider events are routed by it (channels.provider_ref). */
    ref: string;
    /** The setting that points a channel at a provider of the user's own (with credentials, the channel is not the sandbox's). */
    ownProvider: string;
    /**
     * What a channel created with neither this setting nor credentials (and no `sandbox` choice) is:
     * `sandbox` — bound to the built-in sandbox (when it is on); `embedded` — served by the engine Parley
     * runs itself (nothing to set: a phone pairs with it). `"sandbox": true` in the create body always
     * asks for the sandbox.
     */
    bare: 'sandbox' | 'embedded';
    /** Defaults from the installation's config (e.g. the provider's base address). */
    installationDefaults?(config: ProviderDefaultsConfig): Record<string, unknown>;
    /** Defaults of one channel not bound to the sandbox. */
    channelDefaults?(channelId: string): Record<string, unknown>;
  };
  /** Outbound pacing when the channel sets no throughput_per_second. */
  readonly pacing: { throughputPerSecond: number };
  /** The idempotency rule: what the provider guarantees about a send repeated with the same key. */
  readonly sends: SendGuarantees;
  /**
   * How a channel gets connected: its credentials are checked with the provider (checkHealth) when
   * set or changed, or a phone pairs with it (startPairing, QR).
   */
  readonly connection: 'credentials' | 'pairing';
  readonly status: {
    /** A new channel's status, and why. */
    initial: ChannelStatus;
    initialReason: string;
    /** The platform's status machine: the moves allowed from each status. */
    transitions: Readonly<Record<string, readonly ChannelStatus[]>>;
    /** The provider's session state (health check, pairing answer) as a channel status, where its health check reports one. */
    fromSession?(state: string): ChannelStatus;
  };
  /** Binds a new channel to the built-in sandbox's side of this platform; absent where the sandbox has none. */
  bindSandbox?(sandbox: SandboxProvisioning, db: Executor, input: { displayPhoneNumber?: string }): Promise<SandboxBinding>;
  /** Its adapter's calls (the registry adds `platform`, `sends` and `inbound` from this module). */
  createAdapter(options: AdapterOptions): AdapterCalls;
  /** Its inbound half (inbound.ts): verify a delivery, then normalize it. */
  readonly inbound: ProviderInbound;
};

/** An adapter as its platform's folder writes it (adapter.ts). */
export type AdapterCalls = Omit<ProviderAdapter, 'platform' | 'sends' | 'inbound'>;

/**
 * Events a provider reports, normalized. Most name their channel by `ref` (the phone_number_id or the
 * gateway session); reports about a business account name it by `account`, and one of its numbers by
 * `phone` (display digits) where they say which.
 */
export type InboundEvent =
  | {
      kind: 'message.status';
      ref: string;
      providerMessageId: string;
      status: 'sent' | 'delivered' | 'read' | 'failed';
      timestamp: Date;
      /**
       * Why it failed; `scope`, `channelFault` and `templateStatus` are the provider module's
       * classification (as for a refused send): a failure about the channel or a template has
       * consequences beyond this message.
       */
      error?: { code: string; title: string; message?: string } & Pick<ProviderError, 'scope' | 'channelFault' | 'templateStatus'>;
      /** Parley's message id, where the provider echoes it back (official: biz_opaque_callback_data). */
      callbackData?: string;
      /** What the provider says about billing the message, where the report carries it. */
      pricing?: StatusPricing;
      conversation?: StatusConversation;
    }
  | {
      kind: 'message.inbound';
      ref: string;
      providerMessageId: string;
      from: string;
      profileName?: string;
      /** Other ids the provider gave for the sender (e.g. a business-scoped user id). */
      identities?: Array<{ type: string; value: string }>;
      timestamp: Date;
      type: string;
      content: Record<string, unknown>;
      replyTo?: string;
      /** The message carries media: where the platform's adapter can download it (downloadMedia), stored when it arrives. */
      media?: InboundMedia;
      /**
       * The chat it was written in when that is not the sender's own: a group (`<digits>@g.us`), or the
       * contacts' status posts (`status@broadcast`). The conversation is the chat's; the sender (`from`)
       * stays the message's.
       */
      chat?: string;
      /**
       * A notice about the chat rather than something the customer wrote (official: a `system` message
       * saying the customer's security code changed): stored and announced like a message, but it
       * opens no customer-service window and is not unread.
       */
      notice?: true;
      /** A message of the chat's history (the phone's sync, or earlier messages asked for): stored at its own time, never unread. */
      history?: true;
    }
  | {
      /**
       * A message the business sent from another device of its own (the phone itself, a linked
       * device): kept in the conversation as an outbound message that Parley did not send.
       */
      kind: 'message.echo';
      ref: string;
      providerMessageId: string;
      /** The customer it went to: international digits without `+`. */
      to: string;
      timestamp: Date;
      type: string;
      content: Record<string, unknown>;
      replyTo?: string;
      media?: InboundMedia;
      /**
       * Parley's message id, where the provider's id shows it (the echo of Parley's own send): the send
       * is then known sent even if its answer was lost, and nothing new is stored.
       */
      callbackData?: string;
      /** A message of the chat's history: stored at its own time. */
      history?: true;
    }
  | {
      /** The sender changed the text of an earlier message (ours or theirs). */
      kind: 'message.edited';
      ref: string;
      /** The edited message's provider id. */
      providerMessageId: string;
      content: Record<string, unknown>;
      timestamp: Date;
    }
  | {
      /** A message was starred or unstarred on the linked phone (there, or through the API coming back). */
      kind: 'message.starred';
      ref: string;
      providerMessageId: string;
      starred: boolean;
      timestamp: Date;
    }
  | {
      /** The sender deleted an earlier message for everyone. */
      kind: 'message.deleted';
      ref: string;
      providerMessageId: string;
      timestamp: Date;
    }
  | {
      /** The customer now writes from another number (no chat message: the contact's identity moves). */
      kind: 'contact.number_changed';
      ref: string;
      providerMessageId: string;
      /** The old and the new number: international digits without `+`. */
      from: string;
      to: string;
      timestamp: Date;
      /** The provider's own words, where it gives them. */
      description?: string;
    }
  | {
      /**
       * A call to the channel's number and what became of it (embedded: the library's `call` event;
       * HTTP gateway: the `call` callback): kept as a `call` message in the caller's conversation.
       */
      kind: 'call';
      ref: string;
      /** The chat network's id of the call: every event of one call names it. */
      callId: string;
      /** The caller: international digits without `+`. */
      from: string;
      profileName?: string;
      /** Other ids the provider gave for the caller (a privacy id: linked_id). */
      identities?: Array<{ type: string; value: string }>;
      /** offer: it rings; accept: answered (on the phone or another device); reject: refused; timeout: nobody answered; terminate: ended. */
      status: 'offer' | 'accept' | 'reject' | 'timeout' | 'terminate';
      video: boolean;
      /** A group call: the group's id (`<digits>@g.us`). */
      group?: string;
      timestamp: Date;
    }
  | {
      /**
       * What the phone knows of people (embedded: its history sync's contacts and privacy-id mappings):
       * applied to contacts the CRM already has (a privacy id linked, a name where it has none), never
       * making new ones.
       */
      kind: 'contact.profiles';
      ref: string;
      /** The phone (international digits without `+`), the privacy id, the name (address book, or the one they set). */
      profiles: Array<{ phone: string; lid?: string; name?: string }>;
    }
  | {
      /**
       * A provider's report on a template (official: message_template_status_update). Every documented
       * event is mapped by the platform's module: most give the template a status; some keep it and say
       * something else (a quality warning, a lock); an event the provider does not document is a note only.
       */
      kind: 'template.status';
      account: string;
      providerTemplateId: string;
      name?: string;
      language?: string;
      /** The provider's own name of what happened (APPROVED, FLAGGED, LOCKED, ...), kept as the template's last note. */
      event: string;
      /** The status the event gives the template; absent when it keeps the status it has. */
      status?: ProviderTemplateStatus;
      /** The template is archived: it cannot be sent, and the status it had is kept for `restore`. */
      archive?: true;
      /** The template returns to the status it had before it was archived (the provider does not say which). */
      restore?: true;
      /** The provider's quality warning on the template was raised (true) or lifted (false). */
      flagged?: boolean;
      reason?: string;
      /** Upper-case, as the provider names it (MARKETING, UTILITY, AUTHENTICATION), where the report gives it. */
      category?: string;
      /** An event the provider does not document: logged and kept as the template's note, never a status. */
      unknown?: true;
    }
  | {
      kind: 'template.category';
      account: string;
      providerTemplateId: string;
      name?: string;
      language?: string;
      /** The template's category now (upper-case). */
      category: string;
    }
  | {
      /** The provider's quality score of a template (GREEN, YELLOW, RED, UNKNOWN), kept on the template. */
      kind: 'template.quality';
      account: string;
      providerTemplateId: string;
      name?: string;
      language?: string;
      quality: string;
      previousQuality?: string;
    }
  | {
      kind: 'channel.status';
      ref: string;
      status: 'connected' | 'disconnected' | 'pairing' | 'error';
      reason?: string;
      reasonCode?: string;
      phone?: string;
      /** When the provider says the change happened, where it says so: reports can arrive out of order. */
      timestamp?: Date;
      /**
       * The engine is reconnecting on its own: its attempts so far. The channel's health then shows
       * them, with the reason (the next try's time) as its last error.
       */
      reconnectAttempts?: number;
      /** With reconnectAttempts: when the engine tries again (the channel's health.next_retry_at). */
      nextRetryAt?: Date;
    }
  | {
      /**
       * A report on the health of a business account or one of its numbers. `blocked`: the number cannot
       * send (the channel moves to `error`); `degraded`: it can, and the warning is kept as the channel's
       * last error; `restored`: a block was lifted (an `error` channel whose last move was one of the
       * `lifts` codes returns to `connected`).
       */
      kind: 'channel.health';
      account: string;
      phone?: string;
      effect: 'blocked' | 'degraded' | 'restored';
      /** The provider's own name of what happened (e.g. DISABLED_UPDATE/DISABLE, FLAGGED). */
      code: string;
      message: string;
      lifts?: string[];
      timestamp?: Date;
    }
  | {
      /**
       * A customer stopped or resumed the business's marketing messages on the phone's own control
       * (official: the `user_preferences` webhook, category `marketing_messages`): the contact's
       * marketing suppression is made or lifted (domain/contacts/opt-out.ts).
       */
      kind: 'contact.marketing_preference';
      ref: string;
      /** The customer's number, international digits. */
      from: string;
      profileName?: string;
      value: 'stop' | 'resume';
      timestamp: Date;
    }
  | {
      /**
       * Failures the provider reports for a number beside any message (official: a `messages` change's
       * `value.errors`, system-, app- or account-level): stored, logged and kept as the channel's health.
       */
      kind: 'channel.errors';
      ref: string;
      errors: ReportedError[];
    }
  | {
      /**
       * Something happened to a group the number is in (official: the group lifecycle, settings and
       * participants webhooks): stored and announced as `group.updated`.
       */
      kind: 'group.update';
      ref: string;
      /** The provider's webhook field (group_lifecycle_update, group_settings_update, group_participants_update; unofficial: group). */
      field: string;
      groupId: string;
      /** The provider's name of the change (group_create, group_delete, group_settings_update, group_add_participants, ...). */
      change: string;
      requestId?: string;
      /** What the provider says changed, in its own names (subject, description, added_participants, ...). */
      details: Record<string, unknown>;
      timestamp: Date;
    }
  | {
      /**
       * A chat's state on the phone changed (archived, pinned, muted, marked read or unread, deleted), there or
       * through the API: kept on the chat's conversation, announced as conversation.updated when it changed.
       */
      kind: 'chat.update';
      ref: string;
      /** The chat: a number's international digits, or a group id. */
      chat: string;
      archived?: boolean;
      pinned?: boolean;
      mutedUntil?: Date | null;
      unread?: boolean;
      deleted?: true;
      timestamp: Date;
    }
  | {
      /** A contact's presence changed (unofficial: after presence.subscribe, or in a group's chat): announced as `presence.updated`. */
      kind: 'presence.update';
      ref: string;
      /** The contact: international digits, and the privacy id where known. */
      phone: string;
      lid?: string;
      /** The group it is in, when the presence is in a group's chat. */
      chat?: string;
      presence: Presence;
      lastSeen?: Date;
      timestamp: Date;
    }
  | {
      /** A business label was made, changed or deleted (on the phone, another device or through Parley): kept and announced as `label.updated`. */
      kind: 'label.edit';
      ref: string;
      labelId: string;
      name: string;
      color: number;
      deleted: boolean;
      timestamp: Date;
    }
  | {
      /** A label was put on a chat (or one of its messages), or taken off: kept and announced as `label.assigned` / `label.unassigned`. */
      kind: 'label.association';
      ref: string;
      labelId: string;
      /** A contact's phone (international digits) or a group id. */
      chat: string;
      messageId?: string;
      action: 'add' | 'remove';
      timestamp: Date;
    };
