/**
 * Channels: one connected chat-app number of one organization. What differs by platform (settings,
 * credentials, how a channel connects, its status machine) is its provider module's. Credentials
 * are sealed at rest; adapters get them through connectionOf(), presenters learn only their names.
 */
import { isBusinessApi, isLinkedDevice, storeProviderTier } from '../broadcasts/sending-rules.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { and, eq, isNotNull, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.ts';
import { preparedOn } from '../../db/prepared.ts';
import { equalWhereGiven, listPage, newestFirstBy, pageOf } from '../../db/list-query.ts';
import { newestFirst, type Page, type PageResult } from '../../db/paginate.ts';
import { cursorKey } from '../paging.ts';
import { channels, channelStatusHistory } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { randomToken, type Sealer } from '../../lib/crypto.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import { normalizePhone } from '../../lib/phone.ts';
import { assertSafeTarget, UnsafeTargetError, type TargetPolicy } from '../../lib/safe-fetch.ts';
import { providerModule, type ProviderRegistry } from '../../providers/registry.ts';
import type { ChannelConnection, Platform, ProviderError, ProviderModule } from '../../providers/provider.ts';
import type { SandboxProvisioning } from '../../sandbox/contract.ts';
import type { Actor } from '../actor.ts';
import { invalid, notFound, type DomainError, type FieldError } from '../errors.ts';
import { recordInitialStatus, transitionChannel, type ChannelStatus } from './status.ts';

export type ChannelRow = typeof channels.$inferSelect;

/** What reading channels needs. */
export type ChannelReadDeps = { db: Executor };

/** What creating and changing channels needs. */
export type ChannelDeps = {
  db: Db;
  sealer: Sealer;
  clock: Clock;
  providers: ProviderRegistry;
  sandbox: SandboxProvisioning | undefined;
  baseUrl: string;
  official: { apiBase: string | undefined; apiVersion: string };
  /** Each platform's channel defaults from the installation's config (registry.installationDefaults). */
  settingDefaults: Partial<Record<Platform, Record<string, unknown>>>;
  /** Where provider addresses may point (the current config's rule, whatever the channel's history). */
  targets: TargetPolicy;
};

/** Settings every platform takes (outbound pacing), beside its module's own. */
const COMMON_SETTINGS = ['throughput_per_second'] as const;

/** Settings a user may see and set on a platform's channels. Secrets go in credentials. */
export function publicSettingsOf(platform: Platform | string): string[] {
  return [...Object.keys(providerModule(platform).settings.schema.shape), ...COMMON_SETTINGS];
}

/** Credentials a user may set on a platform's channels (write-only). */
export function credentialKeysOf(platform: Platform | string): string[] {
  return Object.keys(providerModule(platform).settings.credentials.shape);
}

/** A channel's settings a user may see. */
export function visibleSettings(row: ChannelRow): Record<string, unknown> {
  const keys = publicSettingsOf(row.platform);
  return Object.fromEntries(Object.entries(row.settings).filter(([k]) => keys.includes(k)));
}

/** Which credentials a channel holds that a user may set (never their values), sorted. */
export function credentialsSet(row: ChannelRow, sealer: Sealer): string[] {
  const keys = credentialKeysOf(row.platform);
  return credentialNamesOf(row, sealer)
    .filter((k) => keys.includes(k))
    .sort();
}

/**
 * The names of the credentials a sealed value holds (never their values), remembered by the sealed
 * value (unique: each sealing has its own IV), since every read of a channel presents them and
 * opening the value costs tens of microseconds. Bounded: forgotten all at once when full.
 */
const credentialNames = new Map<string, string[]>();
function credentialNamesOf(row: ChannelRow, sealer: Sealer): string[] {
  const sealed = row.credentialsEncrypted;
  if (!sealed) return [];
  let names = credentialNames.get(sealed);
  if (!names) {
    names = Object.keys(openCredentials(row, sealer));
    if (credentialNames.size >= 1000) credentialNames.clear();
    credentialNames.set(sealed, names);
  }
  return names;
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

/** A channel of the actor's organization. */
export async function getChannel(deps: ChannelReadDeps, actor: Actor, input: { channelId: string }): Promise<ChannelRow> {
  return loadChannel(deps.db, actor, input.channelId);
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

/** The first page without filters, the common read (prepared: db/prepared.ts). */
const firstPageOf = preparedOn((db) =>
  db
    .select()
    .from(channels)
    .where(eq(channels.organizationId, sql.placeholder('org')))
    .orderBy(...newestFirst(channels.createdAt, channels.id))
    .limit(sql.placeholder('limit'))
    .prepare('channels_first_page'),
);

export async function listChannels(
  deps: ChannelReadDeps,
  actor: Actor,
  page: Page & { platform?: Platform; status?: string },
): Promise<PageResult<ChannelRow>> {
  const firstPage = !page.platform && !page.status && page.cursor === undefined ? firstPageOf(deps.db) : undefined;
  if (firstPage) return pageOf(await firstPage.execute({ org: actor.organizationId, limit: page.limit + 1 }), page.limit);
  return listPage(deps.db.select().from(channels).$dynamic(), {
    where: [
      eq(channels.organizationId, actor.organizationId),
      ...equalWhereGiven([
        [channels.platform, page.platform],
        [channels.status, page.status],
      ]),
    ],
    order: newestFirstBy(channels.createdAt, channels.id),
    after: cursorKey(page.cursor),
    limit: page.limit,
  });
}

export type CreateChannelInput = {
  platform: Platform;
  name: string;
  displayPhoneNumber?: string;
  settings?: Record<string, unknown>;
  credentials?: Record<string, string>;
  /**
   * Bind the channel to the built-in sandbox (true), or not (false); unset: the platform's `bare`
   * rule decides for a channel with no provider address and no credentials.
   */
  sandbox?: boolean;
  /** Internal: the provider address given is the sandbox's (embedded signup played by the sandbox). */
  viaSandbox?: boolean;
};

function pickKnown(values: Record<string, unknown> | undefined, keys: readonly string[], what: string, pointer: string) {
  const unknown = Object.keys(values ?? {}).filter((k) => !keys.includes(k));
  if (unknown.length > 0) {
    throw invalid(
      `unknown ${what} ${unknown.join(', ')}; expected ${keys.join(', ')}`,
      unknown.map((k) => ({ pointer: `${pointer}/${k}`, message: `unknown ${what}` })),
    );
  }
  return { ...values };
}

function assertDisplayNumber(value: string | null | undefined): void {
  if (value === undefined || value === null || normalizePhone(value)) return;
  throw invalid('display_phone_number must be a phone number in international format', [
    { pointer: '/display_phone_number', message: 'not a phone number' },
  ]);
}

/** Values of a platform's settings and credentials, checked with its module's schemas. */
function assertValues(platform: Platform | string, settings: Record<string, unknown>, credentials: Record<string, string>): void {
  const module = providerModule(platform);
  const problems = [
    ...checked(module.settings.schema, settings, '/settings'),
    ...checked(module.settings.credentials, credentials, '/credentials'),
  ];
  if (problems.length) throw invalid(problems.map((p) => `${p.pointer.slice(1).replaceAll('/', '.')}: ${p.message}`).join('; '), problems);
}

function checked(schema: ProviderModule['settings']['schema'], values: Record<string, unknown>, pointer: string): FieldError[] {
  const own = Object.fromEntries(Object.entries(values).filter(([k]) => k in schema.shape));
  const result = schema.safeParse(own);
  if (result.success) return [];
  return result.error.issues.map((issue) => ({ pointer: `${pointer}/${issue.path.join('/')}`, message: issue.message }));
}

/** The required settings and credentials (JSON pointers) a channel lacks. */
function missingOf(module: ProviderModule, values: { settings: Record<string, unknown>; credentials: Record<string, string> }): string[] {
  return module.settings.required.filter((pointer) => {
    const [, part, key] = pointer.split('/') as [string, 'settings' | 'credentials', string];
    return !values[part][key];
  });
}

function missingError(missing: string[], suffix = ''): DomainError {
  return invalid(
    `missing ${missing.map((m) => m.slice(1).replace('/', '.')).join(', ')}${suffix}`,
    missing.map((pointer) => ({ pointer, message: 'required' })),
  );
}

async function assertProviderAddress(url: unknown, pointer: string, deps: Pick<ChannelDeps, 'targets'>): Promise<void> {
  if (url === undefined) return;
  try {
    await assertSafeTarget(String(url), deps.targets);
  } catch (err) {
    if (err instanceof UnsafeTargetError)
      throw invalid(`${pointer.slice(1).replace('/', '.')} ${err.message}`, [{ pointer, message: err.message }]);
    throw err;
  }
}

/**
 * Creates a channel. `sandbox: true` binds it to the built-in sandbox (an official one is `connected`
 * at once, a gateway one `disconnected` until paired). Without that choice, a channel with no provider
 * address and no credentials is what its platform's `bare` rule says: the sandbox's (official, when the
 * sandbox is on) or the embedded engine's (unofficial). A channel whose platform connects by
 * credentials is checked against its provider and `connected` when they work.
 */
export async function createChannel(deps: ChannelDeps, actor: Actor, input: CreateChannelInput): Promise<ChannelRow> {
  const platform = input.platform;
  const module = providerModule(platform);
  assertDisplayNumber(input.displayPhoneNumber);
  const settings = pickKnown(input.settings, publicSettingsOf(platform), 'setting', '/settings');
  const credentials = pickKnown(input.credentials, credentialKeysOf(platform), 'credential', '/credentials') as Record<string, string>;
  assertValues(platform, settings, credentials);
  const bare = Object.keys(credentials).length === 0 && !settings[module.settings.ownProvider];
  const bindSandbox = input.sandbox ?? (bare && module.settings.bare === 'sandbox');
  const sandbox = bindSandbox ? sandboxFor(deps, module, { bare, explicit: input.sandbox === true }) : undefined;
  const embedded = !bindSandbox && bare && module.settings.bare === 'embedded';
  if (!bindSandbox && !embedded) {
    const missing = missingOf(module, { settings: { ...deps.settingDefaults[module.platform], ...settings }, credentials });
    if (missing.length) throw missingError(missing);
    await assertProviderAddress(settings[module.settings.address], `/settings/${module.settings.address}`, deps);
  }

  const id = uuidv7();
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    let status: ChannelStatus = module.status.initial;
    let reason = module.status.initialReason;
    let displayPhoneNumber = input.displayPhoneNumber ?? null;
    if (sandbox) {
      const bound = await module.bindSandbox!(sandbox, tx, { displayPhoneNumber: input.displayPhoneNumber });
      Object.assign(settings, bound.settings);
      Object.assign(credentials, bound.credentials);
      displayPhoneNumber = bound.displayPhoneNumber ?? displayPhoneNumber;
      status = bound.status ?? status;
      reason = bound.reason;
    } else {
      for (const [key, value] of Object.entries({ ...deps.settingDefaults[module.platform], ...module.settings.channelDefaults?.(id) }))
        settings[key] ??= value;
    }
    for (const key of module.settings.generated ?? []) credentials[key] ??= randomToken(32);
    const providerRef = String(settings[module.settings.ref]);
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
        sandbox: bindSandbox || input.viaSandbox === true,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await recordInitialStatus(tx, { id, organizationId: actor.organizationId, platform, status }, reason, now);
    return created!;
  });
  if (module.connection === 'credentials' && row.status === module.status.initial) return verifyCredentials(deps, row);
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
 * Checks a channel's credentials against its provider and moves it to connected or error.
 * When the provider is one the installation trusts (OFFICIAL_API_BASE, or the sandbox for a sandbox
 * channel), a successful check also binds the number to the channel exclusively; a number bound
 * to another channel leaves this one in `error` (number_in_use). A channel pointed at any other
 * api_base answers for itself only: it connects, but never holds its number exclusively.
 */
export async function verifyCredentials(deps: ChannelDeps, row: ChannelRow): Promise<ChannelRow> {
  const adapter = deps.providers.get(row.platform);
  const health = await adapter.checkHealth(connectionOf(row, deps.sealer));
  if (health.ok) {
    await storeProviderTier(deps.db, row.id, health.messagingTier);
    await connectVerifiedChannel(deps, row, 'credentials verified with the provider');
  } else await recordProviderFault(deps, row, health.error);
  return reloadChannel(deps.db, row.id);
}

/** The sandbox a channel is bound to: the platform has one, it is on, and the channel names no provider of its own. */
function sandboxFor(
  deps: Pick<ChannelDeps, 'sandbox'>,
  module: ProviderModule,
  choice: { bare: boolean; explicit: boolean },
): SandboxProvisioning {
  if (!module.bindSandbox)
    throw invalid(`${module.platform} has no sandbox`, [{ pointer: '/sandbox', message: 'this platform has no sandbox' }]);
  if (!choice.bare) {
    throw invalid('a sandbox channel takes no provider address and no credentials', [
      { pointer: '/sandbox', message: 'cannot be combined with a provider address or credentials' },
    ]);
  }
  if (deps.sandbox) return deps.sandbox;
  if (choice.explicit)
    throw invalid('the sandbox is off on this installation (PROVIDER_SANDBOX=false)', [
      { pointer: '/sandbox', message: 'the sandbox is off' },
    ]);
  const missing = module.settings.required;
  throw invalid(
    `${missing.map((m) => m.slice(1).replace('/', '.')).join(' and ')} are required (the sandbox is off)`,
    missing.map((pointer) => ({ pointer, message: 'required' })),
  );
}

/** What connecting a verified channel needs: the database, and which providers the installation trusts. */
export type ConnectDeps = Pick<ChannelDeps, 'db' | 'clock' | 'official' | 'sandbox' | 'baseUrl'>;

/** Connects a channel its provider just vouched for, binding its number first; `in_use` leaves it in error. */
export async function connectVerifiedChannel(deps: ConnectDeps, row: ChannelRow, reason: string): Promise<'connected' | 'in_use'> {
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
  const base = row.settings[providerModule(row.platform).settings.address];
  if (typeof base !== 'string') return false;
  if (deps.official.apiBase !== undefined && sameBase(base, deps.official.apiBase)) return true;
  // The built-in sandbox checks a token against the number like the real provider does.
  return deps.sandbox !== undefined && sameBase(base, `${deps.baseUrl}/sandbox/official`);
}

function sameBase(a: string, b: string): boolean {
  return a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
}

/** Binds a verified channel's number to it, unless another channel holds it. */
async function bindNumber(deps: ConnectDeps, row: ChannelRow): Promise<'bound' | 'in_use' | 'unverifiable'> {
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
export async function applyStatus(
  deps: { db: Db; clock: Clock },
  row: ChannelRow,
  to: ChannelStatus,
  reason: string,
  reasonCode: string | null,
) {
  return deps.db.transaction((tx) =>
    transitionChannel(
      tx,
      { id: row.id, organizationId: row.organizationId, platform: row.platform, status: row.status },
      to,
      reason,
      reasonCode,
      deps.clock.now(),
    ),
  );
}

/**
 * Applies a session state the provider told us of at `reportedAt` (a health check's or a pairing
 * call's answer, asked at that time) like a report: not when a newer report was applied meanwhile
 * (the state is older news; `always`: applied anyway, for a state the user's own action just made),
 * and a report older than it arriving later changes nothing.
 */
export async function applyReportedStatus(
  deps: { db: Db; clock: Clock },
  row: ChannelRow,
  to: ChannelStatus,
  reason: string,
  reasonCode: string | null,
  reportedAt: Date,
  options: { always?: boolean } = {},
) {
  await deps.db.transaction(async (tx) => {
    const [fresh] = await tx.select().from(channels).where(eq(channels.id, row.id)).for('update');
    if (!fresh) return;
    if (!options.always && fresh.statusReportedAt && fresh.statusReportedAt.getTime() > reportedAt.getTime()) return;
    if (fresh.status !== to) {
      await transitionChannel(
        tx,
        { id: fresh.id, organizationId: fresh.organizationId, platform: fresh.platform, status: fresh.status },
        to,
        reason,
        reasonCode,
        deps.clock.now(),
      );
    }
    await tx
      .update(channels)
      .set({ statusReportedAt: sql`greatest(${channels.statusReportedAt}, ${reportedAt.toISOString()}::timestamptz)` })
      .where(eq(channels.id, row.id));
  });
}

/**
 * Keeps a provider error as the channel's last error; an error that breaks the channel itself
 * (an invalid token, a refused address) moves it to `error` with the provider's reason.
 */
export async function recordProviderFault(deps: { db: Db; clock: Clock }, row: ChannelRow, error: ProviderError): Promise<void> {
  const now = deps.clock.now();
  await deps.db.transaction((tx) => recordChannelFault(tx, row, error, now));
}

/** The same, in the caller's transaction: the channel's health keeps the error; a fault of the channel itself moves it to `error`. */
export async function recordChannelFault(
  tx: Executor,
  row: ChannelRow,
  error: Pick<ProviderError, 'code' | 'title' | 'channelFault'>,
  at: Date,
): Promise<void> {
  await tx
    .update(channels)
    .set({ lastErrorCode: error.code, lastErrorMessage: error.title.slice(0, 1000), lastErrorAt: at, updatedAt: at })
    .where(eq(channels.id, row.id));
  if (error.channelFault) {
    await transitionChannel(
      tx,
      { id: row.id, organizationId: row.organizationId, platform: row.platform, status: row.status },
      'error',
      error.title,
      error.code,
      at,
    );
  }
}

/**
 * Keeps a provider's hold on the channel's sends (a rate limit, maintenance) in its health: the error
 * as its last one and, for a hold of every send (`until`), when it ends. Its status stays: a hold is
 * no fault of the channel.
 */
export async function recordProviderHold(
  deps: { db: Executor; clock: Clock },
  row: Pick<ChannelRow, 'id'>,
  error: Pick<ProviderError, 'code' | 'title'>,
  until?: Date,
): Promise<void> {
  const at = deps.clock.now();
  await deps.db
    .update(channels)
    .set({
      lastErrorCode: error.code,
      lastErrorMessage: error.title.slice(0, 1000),
      lastErrorAt: at,
      updatedAt: at,
      // The later end wins: holds answered to sends under way at once may say different times.
      ...(until ? { heldUntil: sql`greatest(${channels.heldUntil}, ${until.toISOString()}::timestamptz)` } : {}),
    })
    .where(eq(channels.id, row.id));
}

export type UpdateChannelInput = {
  channelId: string;
  name?: string;
  displayPhoneNumber?: string | null;
  settings?: Record<string, unknown>;
  credentials?: Record<string, string>;
  /** Broadcast limits (domain/broadcasts/sending-rules.ts): the official tier (null: the provider's again), the linked-device daily cap. */
  messagingTier?: string | null;
  dailyBroadcastCap?: number | null;
};

/** The broadcast limits a change sets, each only on the platform it is for (else 400 naming it). */
function broadcastLimits(platform: string, input: UpdateChannelInput) {
  const out: { messagingTier?: string | null; messagingTierSource?: string | null; dailyBroadcastCap?: number | null } = {};
  if (input.messagingTier !== undefined) {
    if (!isBusinessApi(platform))
      throw invalid('messaging_tier is for official channels', [{ pointer: '/messaging_tier', message: 'official channels only' }]);
    out.messagingTier = input.messagingTier;
    out.messagingTierSource = input.messagingTier === null ? null : 'api';
  }
  if (input.dailyBroadcastCap !== undefined) {
    if (!isLinkedDevice(platform))
      throw invalid('daily_broadcast_cap is for linked-device channels', [
        { pointer: '/daily_broadcast_cap', message: 'linked-device (chatapp_unofficial) channels only' },
      ]);
    out.dailyBroadcastCap = input.dailyBroadcastCap;
  }
  return out;
}

/** Changes name, settings or credentials; new credentials (or another provider address or number) are checked again. */
export async function updateChannel(deps: ChannelDeps, actor: Actor, input: UpdateChannelInput): Promise<ChannelRow> {
  const row = await loadChannel(deps.db, actor, input.channelId);
  const module = providerModule(row.platform);
  const { address, ref } = module.settings;
  assertDisplayNumber(input.displayPhoneNumber);
  const limits = broadcastLimits(row.platform, input);
  const settingsPatch = pickKnown(input.settings, publicSettingsOf(row.platform), 'setting', '/settings');
  const credentialsPatch = pickKnown(input.credentials, credentialKeysOf(row.platform), 'credential', '/credentials') as Record<
    string,
    string
  >;
  assertValues(row.platform, settingsPatch, credentialsPatch);
  if (row.sandbox && (settingsPatch[address] || settingsPatch[ref])) {
    throw invalid('a sandbox-bound channel cannot be pointed at another provider; create a new channel', [
      { pointer: '/settings', message: 'provider address of a sandbox channel' },
    ]);
  }
  await assertProviderAddress(settingsPatch[address], `/settings/${address}`, deps);
  const credentials = { ...openCredentials(row, deps.sealer), ...credentialsPatch };
  const settings = { ...row.settings, ...settingsPatch };
  const providerRef = String(settings[ref]);
  const now = deps.clock.now();
  const [updated] = await deps.db
    .update(channels)
    .set({
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.displayPhoneNumber !== undefined ? { displayPhoneNumber: input.displayPhoneNumber } : {}),
      ...limits,
      settings,
      providerRef,
      // Another number, or another provider to vouch for it, is a new claim: bound again once verified.
      ...(providerRef !== row.boundRef || settingsPatch[address] !== undefined ? { boundRef: null } : {}),
      credentialsEncrypted: deps.sealer.seal(JSON.stringify(credentials)),
      updatedAt: now,
    })
    .where(and(eq(channels.id, row.id), eq(channels.organizationId, actor.organizationId)))
    .returning();
  const changedAccess =
    Object.keys(credentialsPatch).length > 0 || settingsPatch[address] !== undefined || settingsPatch[ref] !== undefined;
  if (module.connection === 'credentials' && changedAccess) return verifyCredentials(deps, updated!);
  if (Object.keys(settingsPatch).length > 0) await applySettings(deps, updated!);
  return updated!;
}

/**
 * Hands changed settings to the engine that honours them (the embedded engine reads them again, an HTTP
 * gateway is sent them) while it runs; a gateway that cannot take them now keeps the failure as the
 * channel's health, and gets them at the next connect. The change itself is kept either way.
 */
async function applySettings(deps: ChannelDeps, row: ChannelRow): Promise<void> {
  const apply = deps.providers.get(row.platform).applySettings;
  if (!apply || (row.status !== 'connected' && row.status !== 'pairing')) return;
  const applied = await apply(connectionOf(row, deps.sealer));
  if (!applied.ok) await recordProviderFault(deps, row, { ...applied.error, channelFault: false });
}

/** Deletes a channel (a paired session is logged out first, best effort). Its templates go with it. */
export async function deleteChannel(
  deps: Pick<ChannelDeps, 'db' | 'sealer' | 'providers'>,
  actor: Actor,
  input: { channelId: string },
): Promise<void> {
  const row = await loadChannel(deps.db, actor, input.channelId);
  const adapter = deps.providers.get(row.platform);
  if (adapter.logout && row.status !== 'disconnected') await adapter.logout(connectionOf(row, deps.sealer)).catch(() => undefined);
  await deps.db.delete(channels).where(and(eq(channels.id, row.id), eq(channels.organizationId, actor.organizationId)));
}

export type StatusHistoryRow = typeof channelStatusHistory.$inferSelect;

/** A channel with its status history, newest first. */
export async function channelStatusOf(
  deps: ChannelReadDeps,
  actor: Actor,
  input: { channelId: string; limit?: number },
): Promise<{ channel: ChannelRow; history: StatusHistoryRow[] }> {
  const channel = await loadChannel(deps.db, actor, input.channelId);
  const history = await deps.db
    .select()
    .from(channelStatusHistory)
    .where(eq(channelStatusHistory.channelId, channel.id))
    .orderBy(sql`${channelStatusHistory.createdAt} desc, ${channelStatusHistory.id} desc`)
    .limit(input.limit ?? 50);
  return { channel, history };
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

/** Bound channels of one business account (only official ones have a waba_id setting; template decisions are routed by it; a claim never verified receives none). */
export async function findChannelsByWaba(db: Executor, wabaId: string): Promise<ChannelRow[]> {
  return db
    .select()
    .from(channels)
    .where(and(isNotNull(channels.boundRef), sql`${channels.settings}->>'waba_id' = ${wabaId}`));
}

/** Points a channel at new provider settings and credentials (embedded signup again). */
export async function rebindChannel(
  deps: ChannelDeps,
  row: ChannelRow,
  input: { settings: Record<string, unknown>; credentials: Record<string, string>; displayPhoneNumber: string; sandbox: boolean },
): Promise<ChannelRow> {
  const now = deps.clock.now();
  const providerRef = String(input.settings[providerModule(row.platform).settings.ref]);
  const [updated] = await deps.db
    .update(channels)
    .set({
      settings: { ...row.settings, ...input.settings },
      providerRef,
      boundRef: providerRef === row.boundRef && input.sandbox === row.sandbox ? row.boundRef : null,
      credentialsEncrypted: deps.sealer.seal(JSON.stringify({ ...openCredentials(row, deps.sealer), ...input.credentials })),
      displayPhoneNumber: input.displayPhoneNumber,
      sandbox: input.sandbox,
      updatedAt: now,
    })
    .where(eq(channels.id, row.id))
    .returning();
  return verifyCredentials(deps, updated!);
}
