/** GET /{waba_id}/message_templates, paged with cursors like the provider's. */
import { and, asc, eq, gt, or, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { sandboxTemplates } from '../../db/schema.ts';
import type { AccountRow, SandboxContext } from '../context.ts';
import { fail, ok, official, type OfficialResult } from '../errors.ts';
import { officialApiBase, type Json } from './shared.ts';

const TEMPLATE_PAGE_DEFAULT = 25;
const TEMPLATE_PAGE_MAX = 100;
/** Template fields answered without `fields`, as the provider does: rejected_reason only when asked for. */
const TEMPLATE_DEFAULT_FIELDS = ['id', 'name', 'language', 'status', 'category', 'components'];
const TEMPLATE_FIELDS = [...TEMPLATE_DEFAULT_FIELDS, 'rejected_reason'];

/** The template fields a `fields` query asks for, or the provider's refusal of an unknown one. */
function templateFields(value: unknown): string[] | string {
  if (value === undefined) return TEMPLATE_DEFAULT_FIELDS;
  const asked =
    typeof value === 'string'
      ? value
          .split(',')
          .map((f) => f.trim())
          .filter((f) => f !== '')
      : [];
  if (asked.length === 0) return 'Param fields must be a comma-separated list of fields.';
  const unknown = asked.find((f) => !TEMPLATE_FIELDS.includes(f));
  return unknown === undefined ? asked : `Tried accessing nonexisting field (${unknown.slice(0, 100)}) on node type (WhatsAppBusinessHSM)`;
}

/** GET /{waba_id}/message_templates, paged with cursors like the provider's. */
export async function listTemplates(
  ctx: SandboxContext,
  db: Executor,
  account: AccountRow,
  wabaId: string,
  query: Json,
): Promise<OfficialResult<Json>> {
  if (account.wabaId !== wabaId) return fail(official.unknownObject('GET', wabaId));
  let limit = TEMPLATE_PAGE_DEFAULT;
  if (query.limit !== undefined) {
    limit = Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > TEMPLATE_PAGE_MAX)
      return fail(official.invalidParameter(`Param limit must be an integer from 1 to ${TEMPLATE_PAGE_MAX}.`));
  }
  const fields = templateFields(query.fields);
  if (typeof fields === 'string') return fail(official.invalidParameter(fields));
  const conditions: Array<SQL | undefined> = [eq(sandboxTemplates.wabaId, wabaId)];
  if (typeof query.name === 'string') conditions.push(eq(sandboxTemplates.name, query.name));
  if (typeof query.status === 'string') conditions.push(eq(sandboxTemplates.status, query.status.toUpperCase()));
  if (query.after !== undefined) {
    const after = typeof query.after === 'string' ? Buffer.from(query.after, 'base64url').toString('utf8') : '';
    const [anchor] = /^\d+$/.test(after)
      ? await db
          .select()
          .from(sandboxTemplates)
          .where(and(eq(sandboxTemplates.id, after), eq(sandboxTemplates.wabaId, wabaId)))
          .limit(1)
      : [];
    if (!anchor) return fail(official.invalidParameter('Param after is not a valid cursor.'));
    conditions.push(
      or(
        gt(sandboxTemplates.createdAt, anchor.createdAt),
        and(eq(sandboxTemplates.createdAt, anchor.createdAt), gt(sandboxTemplates.id, anchor.id)),
      ),
    );
  }
  const rows = await db
    .select()
    .from(sandboxTemplates)
    .where(and(...conditions))
    .orderBy(asc(sandboxTemplates.createdAt), asc(sandboxTemplates.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const cursor = (id: string) => Buffer.from(id).toString('base64url');
  const paging: Json = { cursors: page.length ? { before: cursor(page[0]!.id), after: cursor(page.at(-1)!.id) } : {} };
  if (rows.length > limit) {
    const next = new URL(`${officialApiBase(ctx)}/${ctx.config.official.apiVersion}/${wabaId}/message_templates`);
    next.searchParams.set('limit', String(limit));
    next.searchParams.set('after', cursor(page.at(-1)!.id));
    paging.next = next.toString();
  }
  return ok({
    data: page.map((t) => {
      const all: Json = {
        id: t.id,
        name: t.name,
        language: t.language,
        category: t.category,
        status: t.status,
        components: t.components,
        rejected_reason: t.status === 'REJECTED' ? (t.reason ?? 'OTHER') : 'NONE',
      };
      return Object.fromEntries(Object.entries(all).filter(([k]) => k === 'id' || fields.includes(k)));
    }),
    paging,
  });
}
