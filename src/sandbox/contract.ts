/**
 * What the rest of Parley may ask of the built-in sandbox provider. Channel creation binds a new
 * channel to the sandbox (as an account holder would sign up with a provider); dispatch may ask it
 * what it received from a channel bound to it (see SandboxSendRecords). Everything else talks to the
 * sandbox over HTTP, through the real adapters.
 */
import type { Executor } from '../db/client.ts';
import type { ChannelConnection, Result, SendRecord } from '../providers/provider.ts';

export type SandboxOfficialNumber = {
  apiBase: string;
  apiVersion: string;
  phoneNumberId: string;
  wabaId: string;
  displayPhoneNumber: string;
  accessToken: string;
};

export type SandboxGatewaySession = { gatewayBase: string; session: string; apiKey: string };

export type SandboxProvisioning = {
  /** Creates a sandbox number with its business account and a bearer token for it. */
  provisionOfficialNumber(db: Executor, input?: { displayPhoneNumber?: string }): Promise<SandboxOfficialNumber>;
  /** Creates a gateway session (STOPPED) and the API key that may drive it. */
  provisionGatewaySession(db: Executor): Promise<SandboxGatewaySession>;
  /** The app secret the sandbox signs official webhooks with (X-Hub-Signature-256). */
  officialAppSecret: string;
  /** The verify token the sandbox uses for the official webhook challenge. */
  officialVerifyToken: string;
};

/**
 * The sandbox's own records of the sends it accepted. Being the provider, it knows for certain
 * whether a send whose answer was lost reached it, on either platform, even where the real
 * provider's API offers no lookup (the official one): a sandbox-bound channel never has to fail a
 * message as outcome unknown. Adapters never use this; dispatch does, for sandbox-bound channels.
 */
export type SandboxSendRecords = {
  findSend(db: Executor, connection: ChannelConnection, messageId: string): Promise<Result<SendRecord>>;
};
