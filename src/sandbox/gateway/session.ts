/** Sessions: provisioning one and its API key, authenticating a key, the callback settings, starting and logging out. */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { sandboxAccounts } from '../../db/schema.ts';
import { constantTimeEqual, randomToken, sha256Hex } from '../../lib/crypto.ts';
import type { AccountRow, GatewayStatus, SandboxContext } from '../context.ts';
import { fail, gateway, ok, type GatewayResult } from '../errors.ts';
import { sessionId } from '../ids.ts';
import { isHttpUrl, isObject, type Json } from './parse-send.ts';

/** Where the sandbox serves the gateway protocol. */
export const gatewayBaseOf = (ctx: SandboxContext) => `${ctx.config.baseUrl}/sandbox/gateway`;

export function view(account: AccountRow) {
  return { session: account.id, status: account.status as GatewayStatus };
}

/** Moves a session to `status` and, when that is a change, enqueues its session.status callback. */
export async function transition(
  ctx: SandboxContext,
  db: Executor,
  account: AccountRow,
  status: GatewayStatus,
  changes: Partial<AccountRow> = {},
) {
  return db.transaction(async (tx) => {
    const [updated] = await tx
      .update(sandboxAccounts)
      .set({ ...changes, status, updatedAt: ctx.clock.now() })
      .where(eq(sandboxAccounts.id, account.id))
      .returning();
    if (account.status !== status)
      await ctx.enqueueCallback(tx, { kind: 'session.status', session_id: account.id, status, at: ctx.clock.now().toISOString() }, 0);
    return updated!;
  });
}

/** Creates a STOPPED session and the API key that drives it. */
export async function provisionSession(ctx: SandboxContext, db: Executor) {
  const apiKey = `gwk_${randomToken(32)}`;
  const now = ctx.clock.now();
  const id = sessionId();
  await db
    .insert(sandboxAccounts)
    .values({ id, protocol: 'gateway', tokenHash: sha256Hex(apiKey), status: 'STOPPED', createdAt: now, updatedAt: now });
  return { gatewayBase: gatewayBaseOf(ctx), session: id, apiKey };
}

/** The session an API key may drive: 401 for a wrong key, 404 for a session that is not its own. */
export async function authenticate(db: Executor, session: string, apiKey: string | undefined): Promise<GatewayResult<AccountRow>> {
  if (!apiKey) return fail(gateway.unauthorized());
  const [account] = await db
    .select()
    .from(sandboxAccounts)
    .where(and(eq(sandboxAccounts.tokenHash, sha256Hex(apiKey)), eq(sandboxAccounts.protocol, 'gateway')))
    .limit(1);
  if (!account) return fail(gateway.unauthorized());
  if (!constantTimeEqual(account.id, session)) return fail(gateway.notFound(`session ${session}`));
  return ok(account);
}

/** PUT /sessions/{session} {callback_url, callback_secret}. */
export async function configure(ctx: SandboxContext, db: Executor, account: AccountRow, body: unknown): Promise<GatewayResult<Json>> {
  if (!isObject(body)) return fail(gateway.invalid('the body must be a JSON object {callback_url, callback_secret}'));
  if (!isHttpUrl(body.callback_url)) return fail(gateway.invalid('callback_url must be an http(s) URL'));
  if (typeof body.callback_secret !== 'string' || body.callback_secret.length < 16) {
    return fail(gateway.invalid('callback_secret must be a string of at least 16 characters'));
  }
  const [updated] = await db
    .update(sandboxAccounts)
    .set({
      callbackUrl: body.callback_url as string,
      callbackSecretSealed: ctx.sealer.seal(body.callback_secret),
      updatedAt: ctx.clock.now(),
    })
    .where(eq(sandboxAccounts.id, account.id))
    .returning();
  return ok(view(updated!));
}

/** POST /sessions/{session}/start: SCAN_QR until paired; a paired session stays WORKING. */
export async function start(ctx: SandboxContext, db: Executor, account: AccountRow): Promise<GatewayResult<Json>> {
  if (account.status === 'WORKING' || account.status === 'SCAN_QR') return ok(view(account));
  return ok(view(await transition(ctx, db, account, 'SCAN_QR', { qr: null, qrExpiresAt: null })));
}

/** GET /sessions/{session}: with the settings Parley put (shown online when always_online, while paired). */
export function describe(account: AccountRow): Json {
  const phone = account.displayPhoneNumber;
  const working = account.status === 'WORKING';
  return {
    ...view(account),
    me: working && phone ? { id: `${phone}@c.us`, phone } : null,
    settings: account.settings,
    presence: working && account.settings.always_online === true ? 'available' : 'unavailable',
  };
}

/** POST /sessions/{session}/logout: unpairs; STOPPED. */
export async function logout(ctx: SandboxContext, db: Executor, account: AccountRow): Promise<GatewayResult<Json>> {
  return ok(view(await transition(ctx, db, account, 'STOPPED', { qr: null, qrExpiresAt: null, displayPhoneNumber: null })));
}
