/** Lookups: a contact by phone, a media object. */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { sandboxMedia } from '../../db/schema.ts';
import type { AccountRow, SandboxContext } from '../context.ts';
import { fail, gateway, ok, type GatewayResult } from '../errors.ts';
import { normalizePhone, recipientOutcome } from '../rules.ts';
import type { Json } from './parse-send.ts';

/** GET /sessions/{session}/contacts/{phone}. */
export function lookupContact(phone: string): GatewayResult<Json> {
  const digits = normalizePhone(phone);
  if (!digits) return fail(gateway.invalid('phone must be international digits'));
  const exists = recipientOutcome(digits) !== 'refuse';
  return ok(exists ? { exists, id: `${digits}@c.us`, name: `Sandbox ${digits.slice(-4)}` } : { exists, id: null, name: null });
}

/** GET /sessions/{session}/media/{media_id}. */
export async function media(ctx: SandboxContext, db: Executor, account: AccountRow, mediaId: string): Promise<GatewayResult<Json>> {
  const [media] = await db
    .select()
    .from(sandboxMedia)
    .where(and(eq(sandboxMedia.id, mediaId), eq(sandboxMedia.accountId, account.id)))
    .limit(1);
  if (!media) return fail(gateway.notFound(`media ${mediaId}`));
  return ok({ url: ctx.mediaUrl(media.id), mime_type: media.mimeType });
}
