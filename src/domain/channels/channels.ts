/**
 * Channels: one connected chat-app number of one organization. Credentials are sealed at rest and
 * never leave this module in a record; adapters get them through connectionOf().
 */
import { and, eq, isNotNull, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.ts';
import { afterCursor, newestFirst, toPage, type Page, type PageResult } from '../../db/paginate.ts';
import { channels, channelStatusHistory } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { randomToken, type Sealer } from '../../lib/crypto.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import { normalizePhone } from '../../lib/phone.ts';
import { assertSafeTarget, UnsafeTargetError, type TargetPolicy } from '../../lib/safe-fetch.ts';
import type { ProviderRegistry } from '../../providers/registry.ts';
import type { ChannelConnection, Platform, ProviderError } from '../../providers/provider.ts';
import type { SandboxProvisioning } from '../../sandbox/contract.ts';
import type { Actor } from '../actor.ts';
import { invalid, notFound } from '../errors.ts';
import { INITIAL_STATUS, recordInitialStatus, transitionChannel, type ChannelStatus } from './status.ts';

export type ChannelRow = typeof channels.$inferSelect;

export type ChannelDeps = {
  db: Db;
  sealer: Sealer;
  clock: Clock;
  providers: ProviderRegistry;
  sandbox: SandboxProvisioning | undefined;
  baseUrl: string;
  official: { apiBase: string | undefined; apiVersion: string };
  /** Where provider addresses may point (the current config's rule, whatever the channel's history). */
  targets: TargetPolicy;
};

/** Settings a user may see and set, per platform. Secrets go in credentials. */
export const PUBLIC_SETTINGS: Record<Platform, readonly string[]> = {
  chatapp_official: ['api_base', 'api_version', 'phone_number_id', 'waba_id', 'throughput_per_second'],
  chatapp_unofficial: ['gateway_base', 'session', 'throughput_per_second'],
};
const CREDENTIAL_KEYS: Record<Platform, readonly string[]> = {
  chatapp_official: ['access_token', 'app_secret'],
  chatapp_unofficial: ['api_key'],
};

export type ChannelRecord = {
  id: string;
  platform: Platform;
  name: string;
  status: ChannelStatus;
  status_reason: string | null;
  status_changed_at: string;
  display_phone_number: string | null;
  sandbox: boolean;
  settings: Record<string, unknown>;
  /** Which credentials are set (never their values). */
  credentials_set: string[];
  health: {
    last_error_code: string | null;
    last_error_message: string | null;
    last_error_at: string | null;
    reconnect_attempts: number;
    last_checked_at: string | null;
  };
  created_at: string;
  updated_at: string;
};

export function presentChannel(row: ChannelRow, sealer: Sealer): ChannelRecord {
  const platform = row.platform as Platform;
  const visible = Object.fromEntries(Object.entries(row.settings).filter(([k]) => PUBLIC_SETTINGS[platform].includes(k)));
  return {
    id: row.id,
    platform,
    name: row.name,
    status: row.status as ChannelStatus,
    status_reason: row.statusReason,
    status_changed_at: row.statusChangedAt.toISOString(),
    display_phone_number: row.displayPhoneNumber,
    sandbox: row.sandbox,
    settings: visible,
    credentials_set: Object.keys(openCredentials(row, sealer)).filter((k) => CREDENTIAL_KEYS[platform].includes(k)).sort(),
    health: {
      last_error_code: row.lastErrorCode,
      last_error_message: row.lastErrorMessage,
      last_error_at: row.lastErrorAt?.toISOString() ?? null,
      reconnect_attempts: row.reconnectAttempts,
      last_checked_at: row.lastCheckedAt?.toISOString() ?? null,
    },
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

function openCredentials(row: ChannelRow, sealer: Sealer): Record<string, string> {
  return row.credentialsEncrypted ? (JSON.parse(sealer.open(row.credentialsEncrypted)) as Record<string, string>) : {};
}

/** What an adapter needs to talk to the channel's provider. */
export function connectionOf(row: ChannelRow, sealer: Sealer): ChannelConnection {
  return {
    channelId: row.id,
    organizationId: row.organizationId,
    platform: row.platform as Platform,
    sandbox: row.sandbox,
    settings: row.settings,
    credentials: openCredentials(row, sealer),
  };
}

/** Loads a channel of the actor's organization; another organization's id is simply not found. */
export async function loadChannel(db: Executor, actor: Actor, channelId: string): Promise<ChannelRow> {
  if (!isUuid(channelId)) throw notFound('channel');
  const [row] = await db
    .select()
    .from(channels)
    .where(and(eq(channels.id, channelId), eq(channels.organizationId, actor.organizationId)))
    .limit(1);
  if (!row) throw notFound('channel');
  return row;
}

export async function listChannels(db: Executor, actor: Actor, page: Page & { platform?: Platform; status?: string }): Promise<PageResult<ChannelRow>> {
  const rows = await db
    .select()
    .from(channels)
    .where(
      and(
        eq(channels.organizationId, actor.organizationId),
        page.platform ? eq(channels.platform, page.platform) : undefined,
        page.status ? eq(channels.status, page.status) : undefined,
        afterCursor(channels.createdAt, channels.id, page.cursor),
      ),
    )
    .orderBy(...newestFirst(channels.createdAt, channels.id))
    .limit(page.limit + 1);
  return toPage(rows, page.limit, (r) => r);
}

export type CreateChannelInput = {
  platform: Platform;
  name: string;
  displayPhoneNumber?: string;
  settings?: Record<string, unknown>;
  credentials?: Record<string, string>;
  /** Internal: the provider address is the sandbox's (embedded signup played by the sandbox). */
  sandbox?: boolean;
};

function pickKnown(values: Record<string, unknown> | undefined, keys: readonly string[], what: string, pointer: string) {
  const unknown = Object.keys(values ?? {}).filter((k) => !keys.includes(k));
  if (unknown.length > 0) {
    throw invalid(`unknown ${what} ${unknown.join(', ')}; expected ${keys.join(', ')}`, unknown.map((k) => ({ pointer: `${pointer}/${k}`, location: 'body' as const, message: `unknown ${what}` })));
  }
  return { ...values };
}

function assertDisplayNumber(value: string | null | undefined): void {
  if (value === undefined || value === null || normalizePhone(value)) return;
  throw invalid('display_phone_number must be a phone number in international format', [{ pointer: '/display_phone_number', location: 'body', message: 'not a phone number' }]);
}

async function assertProviderAddress(url: unknown, pointer: string, deps: ChannelDeps): Promise<void> {
  if (url === undefined) return;
  try {
    await assertSafeTarget(String(url), deps.targets);
  } catch (err) {
    if (err instanceof UnsafeTargetError) throw invalid(`${pointer.slice(1).replace('/', '.')} ${err.message}`, [{ pointer, location: 'body', message: err.message }]);
    throw err;
  }
}

/**
 * Creates a channel. Without credentials, and with the sandbox on, it is bound to the sandbox: an
 * official one is `connected` at once, an unofficial one `disconnected` until paired. With
 * credentials, an official channel is checked against its provider and `connected` when they work.
 */
export async function createChannel(deps: ChannelDeps, actor: Actor, input: CreateChannelInput): Promise<ChannelRow> {
  const platform = input.platform;
  assertDisplayNumber(input.displayPhoneNumber);
  const settings = pickKnown(input.settings, PUBLIC_SETTINGS[platform], 'setting', '/settings');
  const credentials = pickKnown(input.credentials, CREDENTIAL_KEYS[platform], 'credential', '/credentials') as Record<string, string>;
  const bindSandbox = Object.keys(credentials).length === 0 && !settings.gateway_base && !settings.phone_number_id;
  if (bindSandbox && !deps.sandbox && platform === 'chatapp_unofficial') {
    throw invalid('settings.gateway_base and credentials.api_key are required (the sandbox is off)', [
      { pointer: '/settings/gateway_base', location: 'body', message: 'required' },
      { pointer: '/credentials/api_key', location: 'body', message: 'required' },
    ]);
  }
  if (!bindSandbox) {
    if (platform === 'chatapp_official') {
      const missing = (['phone_number_id'] as const).filter((k) => !settings[k]).map((k) => `/settings/${k}`);
      if (!credentials.access_token) missing.push('/credentials/access_token');
      if (!settings.api_base && !deps.official.apiBase) missing.push('/settings/api_base');
      if (missing.length) throw invalid(`missing ${missing.map((m) => m.slice(1).replace('/', '.')).join(', ')}`, missing.map((pointer) => ({ pointer, location: 'body', message: 'required' })));
      await assertProviderAddress(settings.api_base, '/settings/api_base', deps);
    } else {
      const missing: string[] = [];
      if (!settings.gateway_base) missing.push('/settings/gateway_base');
      if (!credentials.api_key) missing.push('/credentials/api_key');
      if (missing.length) throw invalid(`missing ${missing.map((m) => m.slice(1).replace('/', '.')).join(', ')}`, missing.map((pointer) => ({ pointer, location: 'body', message: 'required' })));
      await assertProviderAddress(settings.gateway_base, '/settings/gateway_base', deps);
    }
  }

  const id = uuidv7();
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    let status: ChannelStatus = INITIAL_STATUS[platform];
    let reason = platform === 'chatapp_official' ? 'awaiting credential check' : 'not paired yet';
    let displayPhoneNumber = input.displayPhoneNumber ?? null;
    let providerRef: string | null = null;
    if (bindSandbox && deps.sandbox) {
      if (platform === 'chatapp_official') {
        const number = await deps.sandbox.provisionOfficialNumber(tx, { displayPhoneNumber: input.displayPhoneNumber });
        Object.assign(settings, { api_base: number.apiBase, api_version: number.apiVersion, phone_number_id: number.phoneNumberId, waba_id: number.wabaId });
        credentials.access_token = number.accessToken;
        displayPhoneNumber = number.displayPhoneNumber;
        status = 'connected';
        reason = 'bound to the sandbox provider';
      } else {
        const session = await deps.sandbox.provisionGatewaySession(tx);
        Object.assign(settings, { gateway_base: session.gatewayBase, session: session.session });
        credentials.api_key = session.apiKey;
        reason = 'bound to the sandbox gateway; not paired yet';
      }
    } else if (platform === 'chatapp_official') {
      settings.api_base ??= deps.official.apiBase;
      settings.api_version ??= deps.official.apiVersion;
    } else {
      settings.session ??= id;
    }
    if (platform === 'chatapp_unofficial') credentials.callback_secret ??= randomToken(32);
    providerRef = String(platform === 'chatapp_official' ? settings.phone_number_id : settings.session);
    const [created] = await tx
      .insert(channels)
      .values({
        id,
        organizationId: actor.organizationId,
        platform,
        name: input.name,
        status,
        statusReason: reason,
        statusChangedAt: now,
        displayPhoneNumber,
        providerRef,
        // A number or session the sandbox just provisioned is this channel's alone; any other claim is bound once verified.
        boundRef: bindSandbox ? providerRef : null,
        settings,
        credentialsEncrypted: deps.sealer.seal(JSON.stringify(credentials)),
        sandbox: bindSandbox || input.sandbox === true,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await recordInitialStatus(tx, { id, organizationId: actor.organizationId, platform, status }, reason, now);
    return created!;
  });
  if (row.platform === 'chatapp_official' && row.status === 'pending') return verifyOfficialCredentials(deps, row);
  return row;
}

/** Why a verified channel is not connected: its number is bound to another channel (of any organization; the message says no more). */
export const NUMBER_IN_USE: ProviderError = {
  code: 'number_in_use',
  title: 'this phone number is already connected to another channel; remove that channel, then connect this one again',
  retryable: false,
  channelFault: true,
};

/**
 * Checks an official channel's credentials against its provider and moves it to connected or error.
 * When the provider is one the installation trusts (OFFICIAL_API_BASE, or the sandbox for a sandbox
 * channel), a successful check also binds the number to the channel exclusively; a number bound
 * to another channel leaves this one in `error` (number_in_use). A channel pointed at any other
 * api_base answers for itself only: it connects, but never holds its number exclusively.
 */
export async function verifyOfficialCredentials(deps: ChannelDeps, row: ChannelRow): Promise<ChannelRow> {
  const adapter = deps.providers.get('chatapp_official');
  const health = await adapter.checkHealth(connectionOf(row, deps.sealer));
  if (health.ok) await connectVerifiedChannel(deps, row, 'credentials verified with the provider');
  else await recordProviderFault(deps, row, health.error);
  return reloadChannel(deps.db, row.id);
}

/** Connects an official channel its provider just vouched for, binding its number first; `in_use` leaves it in error. */
export async function connectVerifiedChannel(deps: ChannelDeps, row: ChannelRow, reason: string): Promise<'connected' | 'in_use'> {
  if ((await bindNumber(deps, row)) === 'in_use') {
    await recordProviderFault(deps, row, NUMBER_IN_USE);
    return 'in_use';
  }
  await applyStatus(deps, row, 'connected', reason, null);
  return 'connected';
}

/** True when the channel's provider is one whose word on a number's owner the installation trusts: OFFICIAL_API_BASE or the built-in sandbox. */
function trustedProvider(deps: Pick<ChannelDeps, 'official' | 'sandbox' | 'baseUrl'>, row: ChannelRow): boolean {
  if (row.sandbox) return true;
  const base = row.settings.api_base;
  if (typeof base !== 'string') return false;
  if (deps.official.apiBase !== undefined && sameBase(base, deps.official.apiBase)) return true;
  // The built-in sandbox checks a token against the number like the real provider does.
  return deps.sandbox !== undefined && sameBase(base, `${deps.baseUrl}/sandbox/official`);
}

function sameBase(a: string, b: string): boolean {
  return a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
}

/** Binds a verified channel's number to it, unless another channel holds it. */
async function bindNumber(deps: ChannelDeps, row: ChannelRow): Promise<'bound' | 'in_use' | 'unverifiable'> {
  if (!row.providerRef || !trustedProvider(deps, row)) return 'unverifiable';
  if (row.boundRef === row.providerRef) return 'bound';
  try {
    const claimed = await deps.db
      .update(channels)
      .set({ boundRef: row.providerRef, updatedAt: deps.clock.now() })
      .where(
        and(
          eq(channels.id, row.id),
          eq(channels.providerRef, row.providerRef),
          sql`not exists (select 1 from ${channels} other where other.platform = ${row.platform} and other.bound_ref = ${row.providerRef} and other.id <> ${row.id})`,
        ),
      )
      .returning({ id: channels.id });
    return claimed.length > 0 ? 'bound' : 'in_use';
  } catch (err) {
    // Two channels verified at the same moment: the unique index lets one bind.
    if (isUniqueViolation(err)) return 'in_use';
    throw err;
  }
}

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } } | undefined;
  return e?.code === '23505' || e?.cause?.code === '23505';
}

/** The channel, or undefined when there is none; a failing database still throws (it is no answer). */
export async function findChannel(db: Executor, id: string): Promise<ChannelRow | undefined> {
  const [row] = await db.select().from(channels).where(eq(channels.id, id)).limit(1);
  return row;
}

export async function reloadChannel(db: Executor, id: string): Promise<ChannelRow> {
  const [row] = await db.select().from(channels).where(eq(channels.id, id)).limit(1);
  if (!row) throw notFound('channel');
  return row;
}

/** Applies a status change in its own transaction. */
export async function applyStatus(deps: { db: Db; clock: Clock }, row: ChannelRow, to: ChannelStatus, reason: string, reasonCode: string | null) {
  return deps.db.transaction((tx) =>
    transitionChannel(tx, { id: row.id, organizationId: row.organizationId, platform: row.platform as Platform, status: row.status }, to, reason, reasonCode, deps.clock.now()),
  );
}

/**
 * Keeps a provider error as the channel's last error; an error that breaks the channel itself
 * (an invalid token, a refused address) moves it to `error` with the provider's reason.
 */
export async function recordProviderFault(deps: { db: Db; clock: Clock }, row: ChannelRow, error: ProviderError): Promise<void> {
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    await tx
      .update(channels)
      .set({ lastErrorCode: error.code, lastErrorMessage: error.title.slice(0, 1000), lastErrorAt: now, updatedAt: now })
      .where(eq(channels.id, row.id));
    if (error.channelFault) {
      await transitionChannel(tx, { id: row.id, organizationId: row.organizationId, platform: row.platform as Platform, status: row.status }, 'error', error.title, error.code, now);
    }
  });
}

export type UpdateChannelInput = {
  name?: string;
  displayPhoneNumber?: string | null;
  settings?: Record<string, unknown>;
  credentials?: Record<string, string>;
};

/** Changes name, settings or credentials; new official credentials are checked again. */
export async function updateChannel(deps: ChannelDeps, actor: Actor, channelId: string, input: UpdateChannelInput): Promise<ChannelRow> {
  const row = await loadChannel(deps.db, actor, channelId);
  const platform = row.platform as Platform;
  assertDisplayNumber(input.displayPhoneNumber);
  const settingsPatch = pickKnown(input.settings, PUBLIC_SETTINGS[platform], 'setting', '/settings');
  const credentialsPatch = pickKnown(input.credentials, CREDENTIAL_KEYS[platform], 'credential', '/credentials') as Record<string, string>;
  if (row.sandbox && (settingsPatch.api_base || settingsPatch.gateway_base || settingsPatch.phone_number_id || settingsPatch.session)) {
    throw invalid('a sandbox-bound channel cannot be pointed at another provider; create a new channel', [{ pointer: '/settings', location: 'body', message: 'provider address of a sandbox channel' }]);
  }
  await assertProviderAddress(settingsPatch.api_base, '/settings/api_base', deps);
  await assertProviderAddress(settingsPatch.gateway_base, '/settings/gateway_base', deps);
  const credentials = { ...openCredentials(row, deps.sealer), ...credentialsPatch };
  const settings = { ...row.settings, ...settingsPatch };
  const providerRef = String(platform === 'chatapp_official' ? settings.phone_number_id : settings.session);
  const now = deps.clock.now();
  const [updated] = await deps.db
    .update(channels)
    .set({
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.displayPhoneNumber !== undefined ? { displayPhoneNumber: input.displayPhoneNumber } : {}),
      settings,
      providerRef,
      // Another number, or another provider to vouch for it, is a new claim: bound again once verified.
      ...(providerRef !== row.boundRef || settingsPatch.api_base !== undefined ? { boundRef: null } : {}),
      credentialsEncrypted: deps.sealer.seal(JSON.stringify(credentials)),
      updatedAt: now,
    })
    .where(and(eq(channels.id, row.id), eq(channels.organizationId, actor.organizationId)))
    .returning();
  const changedAccess = Object.keys(credentialsPatch).length > 0 || settingsPatch.api_base !== undefined || settingsPatch.phone_number_id !== undefined;
  if (platform === 'chatapp_official' && changedAccess) return verifyOfficialCredentials(deps, updated!);
  return updated!;
}

/** Deletes a channel (a gateway session is logged out first, best effort). Its templates go with it. */
export async function deleteChannel(deps: ChannelDeps, actor: Actor, channelId: string): Promise<void> {
  const row = await loadChannel(deps.db, actor, channelId);
  const adapter = deps.providers.get(row.platform as Platform);
  if (adapter.logout && row.status !== 'disconnected') await adapter.logout(connectionOf(row, deps.sealer)).catch(() => undefined);
  await deps.db.delete(channels).where(and(eq(channels.id, row.id), eq(channels.organizationId, actor.organizationId)));
}

export type StatusHistoryEntry = { from: string | null; to: string; reason: string | null; reason_code: string | null; at: string };

export async function channelStatusHistoryOf(db: Executor, actor: Actor, channelId: string, limit = 50): Promise<StatusHistoryEntry[]> {
  const row = await loadChannel(db, actor, channelId);
  const rows = await db
    .select()
    .from(channelStatusHistory)
    .where(eq(channelStatusHistory.channelId, row.id))
    .orderBy(sql`${channelStatusHistory.createdAt} desc, ${channelStatusHistory.id} desc`)
    .limit(limit);
  return rows.map((h) => ({ from: h.fromStatus, to: h.toStatus, reason: h.reason, reason_code: h.reasonCode, at: h.createdAt.toISOString() }));
}

/** The channel a provider event belongs to: the one its number is bound to (a claim never verified receives nothing). */
export async function findChannelByRef(db: Executor, platform: Platform, ref: string): Promise<ChannelRow | undefined> {
  const [row] = await db
    .select()
    .from(channels)
    .where(and(eq(channels.platform, platform), eq(channels.boundRef, ref)))
    .limit(1);
  return row;
}

/** Bound official channels of one business account (template decisions are routed by it; a claim never verified receives none). */
export async function findChannelsByWaba(db: Executor, wabaId: string): Promise<ChannelRow[]> {
  return db
    .select()
    .from(channels)
    .where(and(eq(channels.platform, 'chatapp_official'), isNotNull(channels.boundRef), sql`${channels.settings}->>'waba_id' = ${wabaId}`));
}

/** Points an official channel at new provider settings and credentials (embedded signup again). */
export async function rebindOfficialChannel(
  deps: ChannelDeps,
  row: ChannelRow,
  input: { settings: Record<string, unknown>; credentials: Record<string, string>; displayPhoneNumber: string; sandbox: boolean },
): Promise<ChannelRow> {
  const now = deps.clock.now();
  const [updated] = await deps.db
    .update(channels)
    .set({
      settings: { ...row.settings, ...input.settings },
      providerRef: String(input.settings.phone_number_id),
      boundRef: String(input.settings.phone_number_id) === row.boundRef && input.sandbox === row.sandbox ? row.boundRef : null,
      credentialsEncrypted: deps.sealer.seal(JSON.stringify({ ...openCredentials(row, deps.sealer), ...input.credentials })),
      displayPhoneNumber: input.displayPhoneNumber,
      sandbox: input.sandbox,
      updatedAt: now,
    })
    .where(eq(channels.id, row.id))
    .returning();
  return verifyOfficialCredentials(deps, updated!);
}
