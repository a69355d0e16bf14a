/**
 * Operations that go through a channel's provider: QR pairing and logout (gateway), onboarding
 * (official embedded signup and number registration), and the provider profile lookup.
 */
import { eq } from 'drizzle-orm';
import QRCode from 'qrcode';
import { channels } from '../../db/schema.ts';
import type { Platform, ProviderError } from '../../providers/provider.ts';
import { normalizePhone } from '../../lib/phone.ts';
import type { Actor } from '../actor.ts';
import { DomainError, invalid } from '../errors.ts';
import { assertOperation } from './capabilities.ts';
import {
  applyStatus,
  connectionOf,
  connectVerifiedChannel,
  createChannel,
  loadChannel,
  recordProviderFault,
  reloadChannel,
  rebindOfficialChannel,
  type ChannelDeps,
  type ChannelRow,
} from './channels.ts';
import { channelStatusOf } from '../../providers/gateway/adapter.ts';

/** A provider refusal as the caller sees it: 503 when worth retrying, else 422 with the provider's words. */
export function providerRefusal(error: ProviderError): DomainError {
  return new DomainError(error.retryable ? 'unavailable' : 'unsupported', `provider refused: ${error.title} (code ${error.code})`, {
    extra: { provider_error: { code: error.code, title: error.title } },
  });
}

export function callbackUrlOf(deps: ChannelDeps, channelId: string): string {
  return `${deps.baseUrl}/v1/providers/chatapp_unofficial/webhook/${channelId}`;
}

export type QrView = { qr: string; qr_image: string; expires_at: string };

async function renderQr(qr: string, expiresAt: Date): Promise<QrView> {
  return { qr, qr_image: await QRCode.toDataURL(qr, { errorCorrectionLevel: 'M', margin: 2, width: 320 }), expires_at: expiresAt.toISOString() };
}

/** Starts pairing a gateway channel: registers our callback, starts the session, returns the QR. */
export async function connectChannel(deps: ChannelDeps, actor: Actor, channelId: string): Promise<{ channel: ChannelRow; qr: QrView | null }> {
  const row = await loadChannel(deps.db, actor, channelId);
  const platform = row.platform as Platform;
  assertOperation(platform, 'channel.connect', 'channel connect');
  if (row.status === 'connected') throw new DomainError('conflict', 'channel is already connected; disconnect it first to pair another phone');
  const adapter = deps.providers.get(platform);
  const connection = connectionOf(row, deps.sealer);
  const started = await adapter.startPairing!(connection, { url: callbackUrlOf(deps, row.id), secret: connection.credentials.callback_secret ?? '' });
  if (!started.ok) {
    await recordProviderFault(deps, row, started.error);
    throw providerRefusal(started.error);
  }
  const status = channelStatusOf(started.value.status);
  await applyStatus(deps, row, status, status === 'connected' ? 'gateway session already paired' : 'pairing started: scan the QR code', started.value.status);
  const channel = await reloadChannel(deps.db, row.id);
  if (channel.status !== 'pairing') return { channel, qr: null };
  return { channel, qr: await currentQr(deps, channel) };
}

async function currentQr(deps: ChannelDeps, row: ChannelRow): Promise<QrView> {
  const result = await deps.providers.get(row.platform as Platform).getQr!(connectionOf(row, deps.sealer));
  if (!result.ok) {
    await recordProviderFault(deps, row, result.error);
    throw providerRefusal(result.error);
  }
  return renderQr(result.value.qr, result.value.expiresAt);
}

/** The QR to scan now (the gateway issues a new one when the last one lapsed). */
export async function channelQr(deps: ChannelDeps, actor: Actor, channelId: string): Promise<QrView> {
  const row = await loadChannel(deps.db, actor, channelId);
  assertOperation(row.platform as Platform, 'channel.qr', 'channel qr');
  if (row.status === 'connected') throw new DomainError('conflict', 'channel is already paired; no QR code to scan');
  if (row.status !== 'pairing') throw new DomainError('conflict', `channel is ${row.status}: POST /v1/channels/${row.id}/connect first`);
  return currentQr(deps, row);
}

/** Logs a gateway channel out of its phone. */
export async function disconnectChannel(deps: ChannelDeps, actor: Actor, channelId: string): Promise<ChannelRow> {
  const row = await loadChannel(deps.db, actor, channelId);
  assertOperation(row.platform as Platform, 'channel.logout', 'channel disconnect');
  const result = await deps.providers.get(row.platform as Platform).logout!(connectionOf(row, deps.sealer));
  if (!result.ok) {
    await recordProviderFault(deps, row, result.error);
    throw providerRefusal(result.error);
  }
  await applyStatus(deps, row, 'disconnected', 'logged out by the user', 'LOGOUT');
  return reloadChannel(deps.db, row.id);
}

export type ProfileView = { phone: string; exists: boolean; chatapp_id: string | null; name: string | null };

/** Asks the channel's provider whether a number is on the app, and its profile name. */
export async function lookupProviderProfile(deps: ChannelDeps, actor: Actor, channelId: string, phone: string): Promise<ProfileView> {
  const row = await loadChannel(deps.db, actor, channelId);
  assertOperation(row.platform as Platform, 'contacts.lookup', 'channel contact lookup');
  const normalized = normalizePhone(phone);
  if (!normalized) throw invalid(`phone ${JSON.stringify(phone)} is not a valid phone number`, [{ pointer: '/phone', location: 'body', message: 'not a valid phone number' }]);
  const digits = normalized.slice(1);
  const result = await deps.providers.get(row.platform as Platform).lookupProfile(connectionOf(row, deps.sealer), digits);
  if (!result.ok) {
    await recordProviderFault(deps, row, result.error);
    throw providerRefusal(result.error);
  }
  return { phone: normalized, exists: result.value.exists, chatapp_id: result.value.chatappId ?? null, name: result.value.name ?? null };
}

/** Registers an official channel's number with its PIN; success connects the channel. */
export async function registerPhone(deps: ChannelDeps, actor: Actor, channelId: string, pin: string): Promise<ChannelRow> {
  const row = await loadChannel(deps.db, actor, channelId);
  assertOperation(row.platform as Platform, 'bizapi.register_phone', 'bizapi register-phone');
  const result = await deps.providers.get(row.platform as Platform).registerPhone!(connectionOf(row, deps.sealer), pin);
  if (!result.ok) {
    await recordProviderFault(deps, row, result.error);
    throw providerRefusal(result.error);
  }
  await deps.db.update(channels).set({ settings: { ...row.settings, registered: true } }).where(eq(channels.id, row.id));
  await connectVerifiedChannel(deps, await reloadChannel(deps.db, row.id), 'phone number registered');
  return reloadChannel(deps.db, row.id);
}

export type ExchangeCodeInput = {
  code: string;
  /** The number's two-step PIN: when given, the number is registered right after the exchange. */
  pin?: string;
  wabaId?: string;
  phoneNumberId?: string;
  channelId?: string;
  name?: string;
};

/**
 * Embedded signup: exchanges the signup code for a business token, finds the business account and
 * its numbers, and creates (or re-points) the channel, connected.
 */
export async function exchangeSignupCode(
  deps: ChannelDeps & { app: { appId: string | undefined; appSecret: string | undefined } },
  actor: Actor,
  input: ExchangeCodeInput,
): Promise<ChannelRow> {
  const useSandbox = !deps.official.apiBase && deps.sandbox !== undefined;
  const apiBase = deps.official.apiBase ?? (deps.sandbox ? `${deps.baseUrl}/sandbox/official` : undefined);
  if (!apiBase) throw new DomainError('unsupported', 'embedded signup needs OFFICIAL_API_BASE (or the sandbox)');
  const appId = deps.app.appId ?? (useSandbox ? 'sandbox-app' : undefined);
  const appSecret = deps.app.appSecret ?? (useSandbox ? deps.sandbox?.officialAppSecret : undefined);
  if (!appId || !appSecret) throw new DomainError('unsupported', 'embedded signup needs OFFICIAL_APP_ID and OFFICIAL_APP_SECRET');
  if (input.channelId) {
    const existing = await loadChannel(deps.db, actor, input.channelId);
    assertOperation(existing.platform as Platform, 'bizapi.exchange_code', 'bizapi exchange-code');
  }
  const exchanged = await deps.providers.official.exchangeCode({
    apiBase,
    version: deps.official.apiVersion,
    appId,
    appSecret,
    code: input.code,
    wabaId: input.wabaId,
  });
  if (!exchanged.ok) throw providerRefusal(exchanged.error);
  const { accessToken, wabaId, phoneNumbers } = exchanged.value;
  const number = input.phoneNumberId ? phoneNumbers.find((n) => n.phoneNumberId === input.phoneNumberId) : phoneNumbers[0];
  if (!number) {
    throw invalid(
      input.phoneNumberId ? `phone_number_id ${input.phoneNumberId} is not in business account ${wabaId}` : `business account ${wabaId} has no phone numbers`,
      [{ pointer: '/phone_number_id', location: 'body', message: 'not found in the business account' }],
    );
  }
  const settings = { api_base: apiBase, api_version: deps.official.apiVersion, phone_number_id: number.phoneNumberId, waba_id: wabaId };
  const credentials = { access_token: accessToken };
  const channel = input.channelId
    ? await rebindOfficialChannel(deps, await loadChannel(deps.db, actor, input.channelId), {
        settings,
        credentials,
        displayPhoneNumber: number.displayPhoneNumber,
        sandbox: useSandbox,
      })
    : await createChannel(deps, actor, {
        platform: 'chatapp_official',
        name: input.name ?? number.verifiedName ?? number.displayPhoneNumber,
        displayPhoneNumber: number.displayPhoneNumber,
        settings,
        credentials,
        sandbox: useSandbox,
      });
  const fresh = await reloadChannel(deps.db, channel.id);
  if (fresh.status !== 'connected' && fresh.status !== 'error') await connectVerifiedChannel(deps, fresh, 'embedded signup completed');
  if (input.pin) return registerPhone(deps, actor, channel.id, input.pin);
  return reloadChannel(deps.db, channel.id);
}
