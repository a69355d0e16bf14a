/**
 * The provider adapter interface: what Parley asks of a chat-app provider, in Parley's own types.
 * Each platform has one implementation (official/, gateway/) that speaks its provider's HTTP wire
 * protocol; callers never test a platform's name, they read its capabilities.
 */
export type Platform = 'chatapp_official' | 'chatapp_unofficial';
export const PLATFORMS: readonly Platform[] = ['chatapp_official', 'chatapp_unofficial'];

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
  /** Whom the error concerns; `message` when unset. */
  scope?: ProviderErrorScope;
  /** With scope `template`: the status the provider gave the template (it refuses sends of it until it changes). */
  templateStatus?: 'paused' | 'disabled';
  /** The provider's own wording for the end user, where it gives one. */
  userTitle?: string;
  userMessage?: string;
};

export type Result<T> = { ok: true; value: T } | { ok: false; error: ProviderError };

export type ProviderProfile = { exists: boolean; chatappId?: string; name?: string };

export type ProviderTemplate = {
  providerTemplateId: string;
  name: string;
  language: string;
  category: string;
  components: unknown[];
  /** Lower-case: approved, pending, rejected, paused, disabled. */
  status: string;
  reason?: string;
};

export type QrCode = { qr: string; expiresAt: Date };

export type HealthCheck = { ok: true; status: string } | { ok: false; error: ProviderError };

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
};

export interface ProviderAdapter {
  readonly platform: Platform;
  readonly sends: SendGuarantees;
  send(connection: ChannelConnection, message: OutboundMessage): Promise<Result<{ providerMessageId: string }>>;
  /**
   * Whether the provider holds a send made with this message id, where its API can be asked; absent
   * where it cannot (then only a status webhook naming the message can settle a lost answer).
   */
  findSend?: SendFinder;
  fetchMedia(connection: ChannelConnection, mediaId: string): Promise<Result<{ url: string; mimeType: string }>>;
  lookupProfile(connection: ChannelConnection, phone: string): Promise<Result<ProviderProfile>>;
  checkHealth(connection: ChannelConnection): Promise<HealthCheck>;
  /** Official only (see capabilities). */
  listTemplates?(connection: ChannelConnection): Promise<Result<ProviderTemplate[]>>;
  submitTemplate?(
    connection: ChannelConnection,
    template: { name: string; language: string; category: string; components: unknown[] },
  ): Promise<Result<{ providerTemplateId: string; status: string }>>;
  registerPhone?(connection: ChannelConnection, pin: string): Promise<Result<{ registered: true }>>;
  /** Unofficial only: start pairing and read the current QR. */
  startPairing?(connection: ChannelConnection, callback: { url: string; secret: string }): Promise<Result<{ status: string }>>;
  getQr?(connection: ChannelConnection): Promise<Result<QrCode>>;
  logout?(connection: ChannelConnection): Promise<Result<{ status: string }>>;
}

/** Events a provider reports, normalized. `ref` routes them to a channel (phone_number_id or session id). */
export type InboundEvent =
  | {
      kind: 'message.status';
      ref: string;
      providerMessageId: string;
      status: 'sent' | 'delivered' | 'read' | 'failed';
      timestamp: Date;
      error?: { code: string; title: string; message?: string };
      /** Parley's message id, where the provider echoes it back (official: biz_opaque_callback_data). */
      callbackData?: string;
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
    }
  | {
      kind: 'template.status';
      ref: string;
      providerTemplateId: string;
      name?: string;
      language?: string;
      status: string;
      reason?: string;
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
    };
