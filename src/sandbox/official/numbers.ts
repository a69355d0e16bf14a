/** The numbers and the business account: provisioning, reading an object, registering, listing, subscribing the app. */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { sandboxAccounts, sandboxMedia } from '../../db/schema.ts';
import { sha256Hex } from '../../lib/crypto.ts';
import type { AccountRow, SandboxContext } from '../context.ts';
import { fail, ok, official, type OfficialResult } from '../errors.ts';
import { heldMediaSha256, mediaSize } from '../media.ts';
import { VERIFIED_NAME, accessToken, displayNumber, insertNumber, isObject, officialApiBase, phoneInfo, type Json } from './shared.ts';

/** Provisions a connected number (registered, app subscribed) with its own business account and token. */
export async function provisionNumber(ctx: SandboxContext, db: Executor, input?: { displayPhoneNumber?: string }) {
  const token = accessToken();
  const display = input?.displayPhoneNumber === undefined ? undefined : displayNumber(input.displayPhoneNumber);
  if (input?.displayPhoneNumber !== undefined && !display)
    throw new Error('displayPhoneNumber must be a phone number in international format');
  const row = await insertNumber(ctx, db, { displayPhoneNumber: display, registered: true, tokenHash: sha256Hex(token) });
  return {
    apiBase: officialApiBase(ctx),
    apiVersion: ctx.config.official.apiVersion,
    phoneNumberId: row.id,
    wabaId: row.wabaId,
    displayPhoneNumber: row.displayPhoneNumber,
    accessToken: token,
  };
}

/** GET /{id}: a phone number, a business account, or a media object the token may see. */
export async function getObject(ctx: SandboxContext, db: Executor, account: AccountRow, id: string): Promise<OfficialResult<Json>> {
  if (id === account.id) return ok(phoneInfo(account));
  if (id === account.wabaId) {
    return ok({ id, name: VERIFIED_NAME, currency: 'USD', timezone_id: '1', message_template_namespace: sha256Hex(id).slice(0, 36) });
  }
  const [media] = await db
    .select()
    .from(sandboxMedia)
    .where(and(eq(sandboxMedia.id, id), eq(sandboxMedia.accountId, account.id)))
    .limit(1);
  if (!media) return fail(official.unknownObject('GET', id));
  return ok({
    messaging_product: 'whatsapp',
    url: ctx.mediaUrl(media.id),
    mime_type: media.mimeType,
    sha256: await heldMediaSha256(media),
    file_size: mediaSize(media),
    id: media.id,
  });
}

/** POST /{phone_number_id}/register {messaging_product, pin}. */
export async function register(
  ctx: SandboxContext,
  db: Executor,
  account: AccountRow,
  phoneNumberId: string,
  body: unknown,
): Promise<OfficialResult<Json>> {
  if (account.id !== phoneNumberId) return fail(official.unknownObject('POST', phoneNumberId));
  if (!isObject(body) || body.messaging_product !== 'whatsapp')
    return fail(official.invalidParameter("Param messaging_product must be 'whatsapp'."));
  if (typeof body.pin !== 'string' || !/^\d{6}$/.test(body.pin))
    return fail(official.invalidParameter('Param pin must be a 6-digit string.'));
  await db
    .update(sandboxAccounts)
    .set({ registered: true, status: 'CONNECTED', updatedAt: ctx.clock.now() })
    .where(eq(sandboxAccounts.id, account.id));
  return ok({ success: true });
}

/** GET /{waba_id}/phone_numbers. */
export async function listPhoneNumbers(db: Executor, account: AccountRow, wabaId: string): Promise<OfficialResult<Json>> {
  if (account.wabaId !== wabaId) return fail(official.unknownObject('GET', wabaId));
  const rows = await db
    .select()
    .from(sandboxAccounts)
    .where(and(eq(sandboxAccounts.wabaId, wabaId), eq(sandboxAccounts.protocol, 'official')));
  return ok({ data: rows.map(phoneInfo) });
}

/** POST /{waba_id}/subscribed_apps: from now on the business account's webhooks are delivered. */
export async function subscribeApp(ctx: SandboxContext, db: Executor, account: AccountRow, wabaId: string): Promise<OfficialResult<Json>> {
  if (account.wabaId !== wabaId) return fail(official.unknownObject('POST', wabaId));
  await db.update(sandboxAccounts).set({ subscribed: true, updatedAt: ctx.clock.now() }).where(eq(sandboxAccounts.wabaId, wabaId));
  return ok({ success: true });
}
