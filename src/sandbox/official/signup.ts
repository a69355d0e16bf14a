/** Embedded signup: the browser half (a one-time code for a new number) and the code exchange (the business token). */
import { randomBytes } from 'node:crypto';
import { and, eq, gt } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { sandboxAccounts } from '../../db/schema.ts';
import { constantTimeEqual, randomToken, sha256Hex } from '../../lib/crypto.ts';
import type { SandboxContext } from '../context.ts';
import { fail, ok, official, type OfficialResult } from '../errors.ts';
import { accessToken, displayNumber, insertNumber, isObject, type Json } from './shared.ts';

/** POST /sandbox/official/signup: the browser half of embedded signup, yielding a one-time code. */
export async function signup(ctx: SandboxContext, db: Executor, body: unknown): Promise<OfficialResult<Json>> {
  const requested = isObject(body) ? body.display_phone_number : undefined;
  const display = requested === undefined ? undefined : displayNumber(requested);
  if (requested !== undefined && !display)
    return fail(official.invalidParameter('Param display_phone_number must be a phone number in international format.'));
  const code = `AQ${randomToken(32)}`;
  // The number's token is only issued by the code exchange; until then it accepts none.
  const row = await insertNumber(ctx, db, {
    displayPhoneNumber: display,
    registered: false,
    tokenHash: sha256Hex(`unissued:${randomBytes(32).toString('hex')}`),
    signupCodeHash: sha256Hex(code),
  });
  return ok({ code, waba_id: row.wabaId, phone_number_id: row.id });
}

/** GET /oauth/access_token?client_id&client_secret&code: the code, once, for the business token. */
export async function exchangeCode(ctx: SandboxContext, db: Executor, query: Json): Promise<OfficialResult<Json>> {
  for (const field of ['client_id', 'client_secret', 'code']) {
    if (typeof query[field] !== 'string' || query[field] === '') return fail(official.invalidParameter(`Missing ${field} parameter.`));
  }
  if (!constantTimeEqual(String(query.client_secret), ctx.officialAppSecret)) return fail(official.badClientSecret());
  const now = ctx.clock.now();
  const token = accessToken();
  const [account] = await db
    .update(sandboxAccounts)
    .set({ tokenHash: sha256Hex(token), signupCodeHash: null, signupCodeExpiresAt: null, updatedAt: now })
    .where(and(eq(sandboxAccounts.signupCodeHash, sha256Hex(String(query.code))), gt(sandboxAccounts.signupCodeExpiresAt, now)))
    .returning({ id: sandboxAccounts.id });
  if (!account) return fail(official.badCode());
  return ok({ access_token: token, token_type: 'bearer' });
}
