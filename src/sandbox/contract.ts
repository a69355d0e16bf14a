/**
 * What the rest of Parley may ask of the built-in sandbox provider. Only channel creation uses it
 * (to bind a new channel to the sandbox, as an account holder would sign up with a provider);
 * everything else talks to the sandbox over HTTP, through the real adapters.
 */
import type { Executor } from '../db/client.ts';

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
