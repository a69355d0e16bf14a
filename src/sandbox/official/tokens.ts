/** Tokens: the account a bearer token belongs to, and what a token may reach (debug_token). */
import type { Executor } from '../../db/client.ts';
import { and, eq } from 'drizzle-orm';
import { sandboxAccounts } from '../../db/schema.ts';
import { constantTimeEqual, sha256Hex } from '../../lib/crypto.ts';
import type { AccountRow, SandboxContext } from '../context.ts';
import { fail, ok, official, type OfficialResult } from '../errors.ts';
import type { Json } from './shared.ts';

/** The account a bearer token belongs to; 190 when there is none. */
export async function authenticate(db: Executor, token: string | undefined): Promise<OfficialResult<AccountRow>> {
  if (!token) return fail(official.invalidToken('An active access token must be used to query information about the current user.'));
  const [account] = await db
    .select()
    .from(sandboxAccounts)
    .where(and(eq(sandboxAccounts.tokenHash, sha256Hex(token)), eq(sandboxAccounts.protocol, 'official')))
    .limit(1);
  return account ? ok(account) : fail(official.invalidToken());
}

/**
 * GET /debug_token?input_token=: what a token may reach. The caller authenticates with a token
 * of its own or the app token "{app_id}|{app_secret}".
 */
export async function debugToken(
  ctx: SandboxContext,
  db: Executor,
  callerToken: string | undefined,
  inputToken: unknown,
): Promise<OfficialResult<Json>> {
  const appToken = callerToken?.includes('|') && constantTimeEqual(callerToken.slice(callerToken.indexOf('|') + 1), ctx.officialAppSecret);
  if (!appToken) {
    const caller = await authenticate(db, callerToken);
    if (!caller.ok) return caller;
  }
  if (typeof inputToken !== 'string' || inputToken === '') return fail(official.invalidParameter('The parameter input_token is required.'));
  const target = await authenticate(db, inputToken);
  if (!target.ok) {
    return ok({ data: { is_valid: false, scopes: [], error: { code: 190, message: 'Invalid OAuth access token.' } } });
  }
  const wabaIds = [target.value.wabaId!];
  return ok({
    data: {
      app_id: ctx.config.official.appId ?? 'sandbox',
      type: 'SYSTEM_USER',
      application: 'Parley Sandbox',
      data_access_expires_at: 0,
      expires_at: 0,
      is_valid: true,
      scopes: ['whatsapp_business_management', 'whatsapp_business_messaging'],
      granular_scopes: [
        { scope: 'whatsapp_business_management', target_ids: wabaIds },
        { scope: 'whatsapp_business_messaging', target_ids: wabaIds },
      ],
    },
  });
}
