/**
 * Contacts and profiles, gateway side (docs/gateway-protocol.md): other numbers' profiles (made up from
 * the number: docs/sandbox.md), the session's own profile and picture, the numbers it blocks, its privacy
 * settings (sandbox_profiles) and privacy ids (sandbox/rules.ts lidOf, phoneOfLid).
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { sandboxMedia, sandboxProfiles } from '../../db/schema.ts';
import { PRIVACY_SETTINGS, PRIVACY_SETTING_NAMES, type PrivacySetting } from '../../providers/profiles.ts';
import type { AccountRow, SandboxContext } from '../context.ts';
import { fail, gateway, ok, type GatewayError, type GatewayResult } from '../errors.ts';
import { lidOf, normalizePhone, phoneOfLid, profileOutcome, recipientOutcome } from '../rules.ts';
import { gatewayBaseOf } from './session.ts';
import { isObject, type Json } from './parse-send.ts';

type ProfileRow = typeof sandboxProfiles.$inferSelect;

/** A new session's privacy settings (the chat app's defaults). */
export const DEFAULT_PRIVACY: Record<PrivacySetting, string> = {
  last_seen: 'all',
  online: 'all',
  profile_picture: 'all',
  about: 'contacts',
  read_receipts: 'all',
  groups_add: 'all',
  calls: 'all',
  messages: 'all',
};

const DEFAULT_NAME = 'Sandbox Business';
const DEFAULT_ABOUT = 'Hey there! I am using the sandbox.';
/** A profile picture the sandbox keeps: at most this many bytes (the chat app's own limit is about this). */
const PICTURE_MAX_BYTES = 5 * 1024 * 1024;

const notOnNetwork = (digits: string): GatewayError => ({
  status: 404,
  code: 'not_on_network',
  message: `+${digits} is not on the chat app`,
  retryable: false,
});

/** The session must be paired for any of these (a session reconnecting may answer again soon). */
export function working(account: AccountRow): GatewayResult<AccountRow> {
  if (account.status !== 'WORKING')
    return fail(gateway.conflict('session_not_working', `the session is ${account.status}, not paired`, true));
  return ok(account);
}

/** A number in a path: digits, or 400. */
function digitsOf(value: string): GatewayResult<string> {
  const digits = normalizePhone(value);
  return digits ? ok(digits) : fail(gateway.invalid('the number must be international digits'));
}

async function profileRow(db: Executor, account: AccountRow): Promise<ProfileRow | undefined> {
  const [row] = await db.select().from(sandboxProfiles).where(eq(sandboxProfiles.accountId, account.id)).limit(1);
  return row;
}

/** Writes the session's profile row (made on first change). */
async function saveProfile(ctx: SandboxContext, db: Executor, account: AccountRow, set: Partial<ProfileRow>): Promise<ProfileRow> {
  const now = ctx.clock.now();
  const [row] = await db
    .insert(sandboxProfiles)
    .values({ accountId: account.id, ...set, updatedAt: now })
    .onConflictDoUpdate({ target: sandboxProfiles.accountId, set: { ...set, updatedAt: now } })
    .returning();
  return row!;
}

/** GET /sessions/{session}/profiles/{phone}: another number, as docs/sandbox.md makes it up. */
export function numberProfile(ctx: SandboxContext, account: AccountRow, phone: string): GatewayResult<Json> {
  const live = working(account);
  if (!live.ok) return live;
  const digits = digitsOf(phone);
  if (!digits.ok) return digits;
  const number = digits.value;
  if (recipientOutcome(number) === 'refuse') return fail(notOnNetwork(number));
  const kind = profileOutcome(number);
  const hidden = kind === 'private';
  return ok({
    phone: number,
    lid: lidOf(number),
    name: `Sandbox ${number.slice(-4)}`,
    about: hidden ? null : 'Hey there! I am using the sandbox.',
    about_set_at: hidden ? null : '2025-01-01T00:00:00.000Z',
    picture_url: hidden ? null : `${gatewayBaseOf(ctx)}/pictures/${number}.png`,
    business:
      kind === 'business'
        ? {
            description: 'A business the sandbox plays',
            category: 'Shopping & retail',
            email: `shop${number.slice(-4)}@example.com`,
            website: ['https://example.com'],
            address: 'Sandbox Street 1',
            hours: { timezone: 'UTC', days: [{ day: 'mon', mode: 'specific_hours', open_minute: 540, close_minute: 1020 }] },
          }
        : null,
  });
}

/** The session's own profile, as the protocol answers it. */
async function ownView(ctx: SandboxContext, db: Executor, account: AccountRow, row?: ProfileRow): Promise<Json> {
  const profile = row ?? (await profileRow(db, account));
  const phone = (account.displayPhoneNumber ?? '').replace(/\D/g, '') || null;
  return {
    phone,
    lid: phone ? lidOf(phone) : null,
    name: profile?.name ?? DEFAULT_NAME,
    about: profile?.about ?? DEFAULT_ABOUT,
    picture_url: profile?.pictureMediaId ? ctx.mediaUrl(profile.pictureMediaId) : null,
  };
}

/** GET /sessions/{session}/profile. */
export async function ownProfile(ctx: SandboxContext, db: Executor, account: AccountRow): Promise<GatewayResult<Json>> {
  const live = working(account);
  if (!live.ok) return live;
  return ok(await ownView(ctx, db, account));
}

/** PATCH /sessions/{session}/profile {name?, about?}. */
export async function updateProfile(ctx: SandboxContext, db: Executor, account: AccountRow, body: unknown): Promise<GatewayResult<Json>> {
  const live = working(account);
  if (!live.ok) return live;
  if (!isObject(body)) return fail(gateway.invalid('the body must be a JSON object {name?, about?}'));
  const set: Partial<ProfileRow> = {};
  if (body.name !== undefined) {
    if (typeof body.name !== 'string' || body.name.trim() === '' || body.name.length > 25)
      return fail(gateway.invalid('name must be 1 to 25 characters'));
    set.name = body.name;
  }
  if (body.about !== undefined) {
    if (typeof body.about !== 'string' || body.about.length > 139) return fail(gateway.invalid('about must be at most 139 characters'));
    set.about = body.about;
  }
  if (Object.keys(set).length === 0) return fail(gateway.invalid('give name, about or both'));
  return ok(await ownView(ctx, db, account, await saveProfile(ctx, db, account, set)));
}

/** PUT /sessions/{session}/profile/picture {data, mime_type}: a JPEG or PNG, base64. */
export async function setPicture(ctx: SandboxContext, db: Executor, account: AccountRow, body: unknown): Promise<GatewayResult<Json>> {
  const live = working(account);
  if (!live.ok) return live;
  if (!isObject(body)) return fail(gateway.invalid('the body must be a JSON object {data, mime_type}'));
  if (body.mime_type !== 'image/jpeg' && body.mime_type !== 'image/png')
    return fail(gateway.invalid('mime_type must be image/jpeg or image/png'));
  if (typeof body.data !== 'string' || body.data === '' || !/^[A-Za-z0-9+/]*={0,2}$/.test(body.data))
    return fail(gateway.invalid('data must be the picture as base64'));
  const bytes = Buffer.from(body.data, 'base64');
  if (bytes.length > PICTURE_MAX_BYTES) return fail(gateway.invalid(`the picture is at most ${PICTURE_MAX_BYTES} bytes`));
  const id = `media_${randomBytes(10).toString('hex')}`;
  const row = await db.transaction(async (tx) => {
    await tx
      .insert(sandboxMedia)
      .values({ id, accountId: account.id, mimeType: body.mime_type as string, data: body.data as string, createdAt: ctx.clock.now() });
    return saveProfile(ctx, tx, account, { pictureMediaId: id });
  });
  return ok(await ownView(ctx, db, account, row));
}

/** DELETE /sessions/{session}/profile/picture. */
export async function removePicture(ctx: SandboxContext, db: Executor, account: AccountRow): Promise<GatewayResult<Json>> {
  const live = working(account);
  if (!live.ok) return live;
  return ok(await ownView(ctx, db, account, await saveProfile(ctx, db, account, { pictureMediaId: null })));
}

const blockedView = (digits: string) => ({ phone: digits, lid: lidOf(digits) });

/** GET /sessions/{session}/blocklist. */
export async function blocklist(db: Executor, account: AccountRow): Promise<GatewayResult<Json>> {
  const live = working(account);
  if (!live.ok) return live;
  return ok({ blocked: ((await profileRow(db, account))?.blocked ?? []).map(blockedView) });
}

/** PUT (block) and DELETE (unblock) /sessions/{session}/blocklist/{phone}: either is idempotent. */
export async function setBlocked(
  ctx: SandboxContext,
  db: Executor,
  account: AccountRow,
  phone: string,
  blocked: boolean,
): Promise<GatewayResult<Json>> {
  const live = working(account);
  if (!live.ok) return live;
  const digits = digitsOf(phone);
  if (!digits.ok) return digits;
  if (recipientOutcome(digits.value) === 'refuse') return fail(notOnNetwork(digits.value));
  await db.transaction(async (tx) => {
    const [current] = await tx.select().from(sandboxProfiles).where(eq(sandboxProfiles.accountId, account.id)).for('update').limit(1);
    const list = (current?.blocked ?? []).filter((d) => d !== digits.value);
    await saveProfile(ctx, tx, account, { blocked: blocked ? [...list, digits.value] : list });
  });
  return ok(blockedView(digits.value));
}

const privacyOfRow = (row: ProfileRow | undefined) => ({ ...DEFAULT_PRIVACY, ...(row?.privacy ?? {}) });

/** GET /sessions/{session}/privacy. */
export async function privacy(db: Executor, account: AccountRow): Promise<GatewayResult<Json>> {
  const live = working(account);
  if (!live.ok) return live;
  return ok(privacyOfRow(await profileRow(db, account)));
}

/** PATCH /sessions/{session}/privacy: each setting given, by Parley's names and values. */
export async function updatePrivacy(ctx: SandboxContext, db: Executor, account: AccountRow, body: unknown): Promise<GatewayResult<Json>> {
  const live = working(account);
  if (!live.ok) return live;
  if (!isObject(body) || Object.keys(body).length === 0) return fail(gateway.invalid('the body must be a JSON object of privacy settings'));
  for (const [name, value] of Object.entries(body)) {
    const allowed = PRIVACY_SETTINGS[name as PrivacySetting] as readonly string[] | undefined;
    if (!allowed) return fail(gateway.invalid(`unknown privacy setting ${name}; one of ${PRIVACY_SETTING_NAMES.join(', ')}`));
    if (typeof value !== 'string' || !allowed.includes(value)) return fail(gateway.invalid(`${name} must be one of ${allowed.join(', ')}`));
  }
  const row = await db.transaction(async (tx) => {
    const [current] = await tx.select().from(sandboxProfiles).where(eq(sandboxProfiles.accountId, account.id)).for('update').limit(1);
    return saveProfile(ctx, tx, account, { privacy: { ...(current?.privacy ?? {}), ...(body as Record<string, string>) } });
  });
  return ok(privacyOfRow(row));
}

/** GET /sessions/{session}/lids/{lid}: the number a privacy id stands for. */
export function numberOfLid(account: AccountRow, lid: string): GatewayResult<Json> {
  const live = working(account);
  if (!live.ok) return live;
  const phone = phoneOfLid(lid);
  if (!phone) return fail(gateway.notFound(`privacy id ${lid}`));
  return ok({ lid, phone });
}

/** GET /sessions/{session}/lids/pn/{phone}: a number's privacy id. */
export function lidOfNumber(account: AccountRow, phone: string): GatewayResult<Json> {
  const live = working(account);
  if (!live.ok) return live;
  const digits = digitsOf(phone);
  if (!digits.ok) return digits;
  if (recipientOutcome(digits.value) === 'refuse') return fail(notOnNetwork(digits.value));
  return ok({ lid: lidOf(digits.value), phone: digits.value });
}
