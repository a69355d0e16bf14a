/**
 * Operations that go through a channel's provider: QR pairing and logout (platforms that pair),
 * onboarding (embedded signup and number registration), and the provider profile lookup. Each
 * is refused as `unsupported` where the platform's support matrix row lacks it.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { channels } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { normalizePhone } from '../../lib/phone.ts';
import type { PairingCode, ProviderError, QrCode } from '../../providers/provider.ts';
import { platformsWith, providerModule, type ProviderRegistry } from '../../providers/registry.ts';
import type { Actor } from '../actor.ts';
import { DomainError, invalid } from '../errors.ts';
import { assertOperation } from './capabilities.ts';
import {
  applyReportedStatus,
  applyStatus,
  connectionOf,
  connectVerifiedChannel,
  createChannel,
  loadChannel,
  recordProviderFault,
  reloadChannel,
  rebindChannel,
  type ChannelDeps,
  type ChannelRow,
} from './channels.ts';

/** What the operations that call a channel's provider need. */
export type ProviderCallDeps = { db: Db; sealer: Sealer; clock: Clock; providers: ProviderRegistry };

/** What pairing needs: provider calls, and the address the provider calls back for a channel. */
export type PairingDeps = ProviderCallDeps & { callbackUrl(channel: ChannelRow): string };

/** A provider refusal as the caller sees it: unavailable when worth retrying, else unsupported with the provider's words. */
export function providerRefusal(error: ProviderError): DomainError {
  const said = error.retryable ? 'provider unavailable' : 'provider refused';
  return new DomainError(error.retryable ? 'unavailable' : 'unsupported', `${said}: ${error.title} (code ${error.code})`, {
    extra: { provider_error: { code: error.code, title: error.title } },
  });
}

/** Records the refusal as the channel's last error (an error that breaks the channel moves it to `error`), then refuses. */
async function refuse(deps: ProviderCallDeps, row: ChannelRow, error: ProviderError): Promise<never> {
  await recordProviderFault(deps, row, error);
  throw providerRefusal(error);
}

export type ConnectResult = { channel: ChannelRow; qr: QrCode | null; pairingCode: PairingCode | null };

/**
 * Starts pairing a channel: registers our callback, starts the session, returns the QR to scan (none
 * when already paired) and, when a phone number is given, the code that phone can type instead.
 */
export async function connectChannel(
  deps: PairingDeps,
  actor: Actor,
  input: { channelId: string; phoneNumber?: string },
): Promise<ConnectResult> {
  const row = await loadChannel(deps.db, actor, input.channelId);
  assertOperation(row.platform, 'channel.connect', 'channel connect');
  let phone: string | undefined;
  if (input.phoneNumber !== undefined) {
    assertOperation(row.platform, 'channel.pairing_code', 'pairing by code');
    phone = normalizePhone(input.phoneNumber)?.slice(1);
    if (!phone)
      throw invalid(`phone_number ${JSON.stringify(input.phoneNumber)} is not a valid phone number`, [
        { pointer: '/phone_number', message: 'not a valid phone number (write it with its country code)' },
      ]);
  }
  if (row.status === 'connected')
    throw new DomainError('conflict', 'channel is already connected; disconnect it first to pair another phone');
  const connection = connectionOf(row, deps.sealer);
  const asked = deps.clock.now();
  const started = await deps.providers.get(row.platform).startPairing!(connection, {
    url: deps.callbackUrl(row),
    secret: connection.credentials.callback_secret ?? '',
  });
  if (!started.ok) return refuse(deps, row, started.error);
  const status = providerModule(row.platform).status.fromSession?.(started.value.status) ?? 'pairing';
  // The session's answer counts as a report of when it was asked (a late callback older than it changes nothing).
  await applyReportedStatus(
    deps,
    row,
    status,
    status === 'connected' ? 'gateway session already paired' : 'pairing started: scan the QR code',
    started.value.status,
    asked,
    { always: true },
  );
  const channel = await reloadChannel(deps.db, row.id);
  if (channel.status !== 'pairing') return { channel, qr: null, pairingCode: null };
  const qr = await currentQr(deps, channel);
  if (phone === undefined) return { channel, qr, pairingCode: null };
  const requestCode = deps.providers.get(row.platform).requestPairingCode;
  // The support matrix and the adapter are the module's: a row naming channel.pairing_code comes with the call.
  if (!requestCode) throw new Error(`platform ${row.platform} lists channel.pairing_code without an adapter call for it`);
  const code = await requestCode(connectionOf(channel, deps.sealer), phone);
  if (!code.ok) return refuse(deps, channel, code.error);
  return { channel, qr, pairingCode: code.value };
}

async function currentQr(deps: ProviderCallDeps, row: ChannelRow): Promise<QrCode> {
  const result = await deps.providers.get(row.platform).getQr!(connectionOf(row, deps.sealer));
  if (!result.ok) return refuse(deps, row, result.error);
  return result.value;
}

/** The QR to scan now (the gateway issues a new one when the last one lapsed). */
export async function channelQr(deps: ProviderCallDeps, actor: Actor, input: { channelId: string }): Promise<QrCode> {
  const row = await loadChannel(deps.db, actor, input.channelId);
  assertOperation(row.platform, 'channel.qr', 'channel qr');
  if (row.status === 'connected') throw new DomainError('conflict', 'channel is already paired; no QR code to scan');
  // Why there is no QR is the channel's status reason (a connection the network refused names its cause and the next try).
  if (row.status !== 'pairing')
    throw new DomainError(
      'conflict',
      `no QR code: the channel is ${row.status}${row.statusReason ? ` (${row.statusReason})` : ''}; connect starts pairing`,
    );
  return currentQr(deps, row);
}

/** Logs a paired channel out of its phone. */
export async function disconnectChannel(deps: ProviderCallDeps, actor: Actor, input: { channelId: string }): Promise<ChannelRow> {
  const row = await loadChannel(deps.db, actor, input.channelId);
  assertOperation(row.platform, 'channel.logout', 'channel disconnect');
  const result = await deps.providers.get(row.platform).logout!(connectionOf(row, deps.sealer));
  if (!result.ok) return refuse(deps, row, result.error);
  await applyStatus(deps, row, 'disconnected', 'logged out by the user', 'LOGOUT');
  return reloadChannel(deps.db, row.id);
}

/** What the provider says about a number: `phone` is the number in E.164. */
export type ProviderProfileLookup = { phone: string; exists: boolean; chatappId: string | null; name: string | null };

/** Asks the channel's provider whether a number is on the app, and its profile name. */
export async function lookupProviderProfile(
  deps: ProviderCallDeps,
  actor: Actor,
  input: { channelId: string; phone: string },
): Promise<ProviderProfileLookup> {
  const row = await loadChannel(deps.db, actor, input.channelId);
  assertOperation(row.platform, 'contacts.lookup', 'channel contact lookup');
  const lookup = deps.providers.get(row.platform).lookupProfile;
  // The support matrix and the adapter are the module's: a row naming contacts.lookup comes with the call.
  if (!lookup) throw new Error(`platform ${row.platform} lists contacts.lookup without an adapter call for it`);
  const normalized = normalizePhone(input.phone);
  if (!normalized)
    throw invalid(`phone ${JSON.stringify(input.phone)} is not a valid phone number`, [
      { pointer: '/phone', message: 'not a valid phone number' },
    ]);
  const result = await lookup(connectionOf(row, deps.sealer), normalized.slice(1));
  if (!result.ok) return refuse(deps, row, result.error);
  return { phone: normalized, exists: result.value.exists, chatappId: result.value.chatappId ?? null, name: result.value.name ?? null };
}

/** Registers a channel's number with its PIN; success connects the channel. */
export async function registerPhone(deps: ChannelDeps, actor: Actor, input: { channelId: string; pin: string }): Promise<ChannelRow> {
  const row = await loadChannel(deps.db, actor, input.channelId);
  assertOperation(row.platform, 'bizapi.register_phone', 'bizapi register-phone');
  const result = await deps.providers.get(row.platform).registerPhone!(connectionOf(row, deps.sealer), input.pin);
  if (!result.ok) return refuse(deps, row, result.error);
  await deps.db
    .update(channels)
    .set({ settings: { ...row.settings, registered: true } })
    .where(eq(channels.id, row.id));
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

/** What embedded signup needs: the channel services and the installation's app credentials. */
export type OnboardingDeps = ChannelDeps & { app: { appId: string | undefined; appSecret: string | undefined } };

/**
 * Embedded signup: exchanges the signup code for a business token, finds the business account and
 * its numbers, and creates (or re-points) the channel, connected. The platform is the one whose
 * support matrix row offers it.
 */
export async function exchangeSignupCode(deps: OnboardingDeps, actor: Actor, input: ExchangeCodeInput): Promise<ChannelRow> {
  const [platform] = platformsWith('bizapi.exchange_code');
  const exchangeCode = platform ? deps.providers.get(platform).exchangeCode : undefined;
  if (!platform || !exchangeCode) throw new DomainError('unsupported', 'no platform offers embedded signup');
  const useSandbox = !deps.official.apiBase && deps.sandbox !== undefined;
  const apiBase = deps.official.apiBase ?? (deps.sandbox ? `${deps.baseUrl}/sandbox/official` : undefined);
  if (!apiBase) throw new DomainError('unsupported', 'embedded signup needs OFFICIAL_API_BASE (or the sandbox)');
  const appId = deps.app.appId ?? (useSandbox ? 'sandbox-app' : undefined);
  const appSecret = deps.app.appSecret ?? (useSandbox ? deps.sandbox?.officialAppSecret : undefined);
  if (!appId || !appSecret) throw new DomainError('unsupported', 'embedded signup needs OFFICIAL_APP_ID and OFFICIAL_APP_SECRET');
  if (input.channelId) {
    const existing = await loadChannel(deps.db, actor, input.channelId);
    assertOperation(existing.platform, 'bizapi.exchange_code', 'bizapi exchange-code');
  }
  const exchanged = await exchangeCode({
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
      input.phoneNumberId
        ? `phone_number_id ${input.phoneNumberId} is not in business account ${wabaId}`
        : `business account ${wabaId} has no phone numbers`,
      [{ pointer: '/phone_number_id', message: 'not found in the business account' }],
    );
  }
  const settings = { api_base: apiBase, api_version: deps.official.apiVersion, phone_number_id: number.phoneNumberId, waba_id: wabaId };
  const credentials = { access_token: accessToken };
  const channel = input.channelId
    ? await rebindChannel(deps, await loadChannel(deps.db, actor, input.channelId), {
        settings,
        credentials,
        displayPhoneNumber: number.displayPhoneNumber,
        sandbox: useSandbox,
      })
    : await createChannel(deps, actor, {
        platform,
        name: input.name ?? number.verifiedName ?? number.displayPhoneNumber,
        displayPhoneNumber: number.displayPhoneNumber,
        settings,
        credentials,
        viaSandbox: useSandbox,
      });
  const fresh = await reloadChannel(deps.db, channel.id);
  if (fresh.status !== 'connected' && fresh.status !== 'error') await connectVerifiedChannel(deps, fresh, 'embedded signup completed');
  if (input.pin) return registerPhone(deps, actor, { channelId: channel.id, pin: input.pin });
  return reloadChannel(deps.db, channel.id);
}
