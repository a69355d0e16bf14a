/** Pairing a session: its QR, a pairing code typed instead, and the phone's side (scan, link), after which it is WORKING. */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { sandboxAccounts } from '../../db/schema.ts';
import { sha256Hex } from '../../lib/crypto.ts';
import type { AccountRow, SandboxContext } from '../context.ts';
import { fail, gateway, ok, type GatewayResult } from '../errors.ts';
import { qrText, sandboxDisplayNumber } from '../ids.ts';
import { normalizePhone } from '../rules.ts';
import { isObject, nonEmpty, type Json } from './parse-send.ts';
import { transition, view } from './session.ts';

/** The pairing code for a phone while a QR is on show: eight characters, `ABCD-1234`. */
function pairingCodeOf(qr: string, phone: string): string {
  const code = sha256Hex(`${qr}:${phone}`).slice(0, 8).toUpperCase();
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** The QR on show: the stored one while it lasts, else a new one. */
export async function currentQr(ctx: SandboxContext, db: Executor, account: AccountRow): Promise<{ qr: string; expiresAt: Date }> {
  const now = ctx.clock.now();
  if (account.qr && account.qrExpiresAt && account.qrExpiresAt.getTime() > now.getTime())
    return { qr: account.qr, expiresAt: account.qrExpiresAt };
  const qr = qrText();
  const expiresAt = new Date(now.getTime() + ctx.qrLifetimeMs);
  await db.update(sandboxAccounts).set({ qr, qrExpiresAt: expiresAt, updatedAt: now }).where(eq(sandboxAccounts.id, account.id));
  return { qr, expiresAt };
}

/** GET /sessions/{session}/qr: the current QR, or a new one once the last one lapsed. */
export async function qr(ctx: SandboxContext, db: Executor, account: AccountRow): Promise<GatewayResult<Json>> {
  if (account.status !== 'SCAN_QR') return fail(gateway.conflict('not_scanning', `the session is ${account.status}, not SCAN_QR`));
  const current = await currentQr(ctx, db, account);
  return ok({ qr: current.qr, expires_at: current.expiresAt.toISOString() });
}

/**
 * POST /sessions/{session}/pairing-code {phone}: the code the phone types instead of scanning.
 * It is derived from the current QR and the phone, so it lapses with the QR and needs no storage.
 */
export async function pairingCode(ctx: SandboxContext, db: Executor, account: AccountRow, body: unknown): Promise<GatewayResult<Json>> {
  if (account.status !== 'SCAN_QR') return fail(gateway.conflict('not_scanning', `the session is ${account.status}, not SCAN_QR`));
  const phone = isObject(body) ? normalizePhone(body.phone) : undefined;
  if (!phone) return fail(gateway.invalid('phone must be a number in international format'));
  const current = await currentQr(ctx, db, account);
  return ok({ code: pairingCodeOf(current.qr, phone), expires_at: current.expiresAt.toISOString() });
}

/** POST /link {code, phone}: a phone types the pairing code asked for it; its session goes WORKING. */
export async function link(ctx: SandboxContext, db: Executor, body: unknown): Promise<GatewayResult<Json>> {
  if (!isObject(body) || !nonEmpty(body.code)) return fail(gateway.invalid('code is required'));
  const phone = normalizePhone(body.phone);
  if (!phone) return fail(gateway.invalid('phone must be a number in international format'));
  const code = String(body.code).toUpperCase().replaceAll('-', '');
  const now = ctx.clock.now();
  const scanning = await db
    .select()
    .from(sandboxAccounts)
    .where(and(eq(sandboxAccounts.protocol, 'gateway'), eq(sandboxAccounts.status, 'SCAN_QR')));
  const account = scanning.find(
    (a) => a.qr && a.qrExpiresAt && a.qrExpiresAt.getTime() > now.getTime() && pairingCodeOf(a.qr, phone).replace('-', '') === code,
  );
  if (!account) return fail(gateway.notFound('pairing code'));
  const updated = await transition(ctx, db, account, 'WORKING', { qr: null, qrExpiresAt: null, displayPhoneNumber: phone });
  return ok({ ...view(updated), me: { id: `${phone}@c.us`, phone } });
}

/** POST /scan {qr, phone?}: a phone scans a QR the gateway showed; its session goes WORKING. */
export async function scan(ctx: SandboxContext, db: Executor, body: unknown): Promise<GatewayResult<Json>> {
  if (!isObject(body) || !nonEmpty(body.qr)) return fail(gateway.invalid('qr is required'));
  let phone = sandboxDisplayNumber().slice(1);
  if (body.phone !== undefined) {
    const digits = normalizePhone(body.phone);
    if (!digits) return fail(gateway.invalid('phone must be a number in international format'));
    phone = digits;
  }
  const [account] = await db
    .select()
    .from(sandboxAccounts)
    .where(and(eq(sandboxAccounts.protocol, 'gateway'), eq(sandboxAccounts.qr, body.qr)))
    .limit(1);
  if (!account || account.status !== 'SCAN_QR') return fail(gateway.notFound('QR code'));
  if (!account.qrExpiresAt || account.qrExpiresAt.getTime() <= ctx.clock.now().getTime()) {
    return fail({ status: 410, code: 'qr_expired', message: 'the QR code lapsed; read a new one', retryable: false });
  }
  const updated = await transition(ctx, db, account, 'WORKING', { qr: null, qrExpiresAt: null, displayPhoneNumber: phone });
  return ok({ ...view(updated), me: { id: `${phone}@c.us`, phone } });
}
