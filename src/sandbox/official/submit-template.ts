/** POST /{waba_id}/message_templates: stored PENDING; the decision follows as a webhook. */
import type { Executor } from '../../db/client.ts';
import { sandboxTemplates } from '../../db/schema.ts';
import type { AccountRow, SandboxContext } from '../context.ts';
import { fail, ok, official, type OfficialResult } from '../errors.ts';
import { numericId } from '../ids.ts';
import { isObject, type Json } from './shared.ts';

const TEMPLATE_CATEGORIES = new Set(['MARKETING', 'UTILITY', 'AUTHENTICATION']);
const TEMPLATE_COMPONENTS = new Set(['HEADER', 'BODY', 'FOOTER', 'BUTTONS']);

/** POST /{waba_id}/message_templates: stored PENDING; the decision follows as a webhook. */
export async function submitTemplate(
  ctx: SandboxContext,
  db: Executor,
  account: AccountRow,
  wabaId: string,
  body: unknown,
): Promise<OfficialResult<Json>> {
  if (account.wabaId !== wabaId) return fail(official.unknownObject('POST', wabaId));
  if (!isObject(body)) return fail(official.invalidParameter('The request body must be a JSON object.'));
  const { name, language, components } = body;
  if (typeof name !== 'string' || !/^[a-z0-9_]{1,512}$/.test(name)) {
    return fail(official.invalidParameter('Param name must be at most 512 lowercase letters, digits and underscores.'));
  }
  if (typeof language !== 'string' || !/^[a-z]{2,3}(_[A-Za-z]{2,4})?$/.test(language)) {
    return fail(official.invalidParameter('Param language must be a locale code such as en_US.'));
  }
  const category = typeof body.category === 'string' ? body.category.toUpperCase() : '';
  if (!TEMPLATE_CATEGORIES.has(category))
    return fail(official.invalidParameter('Param category must be one of {MARKETING, UTILITY, AUTHENTICATION}.'));
  if (!Array.isArray(components) || components.length === 0)
    return fail(official.invalidParameter('Param components must be a non-empty array.'));
  for (const [i, component] of components.entries()) {
    if (!isObject(component) || !TEMPLATE_COMPONENTS.has(String(component.type).toUpperCase())) {
      return fail(official.invalidParameter(`Param components[${i}]['type'] must be one of {HEADER, BODY, FOOTER, BUTTONS}.`));
    }
  }
  const bodies = components.filter((c) => String((c as Json).type).toUpperCase() === 'BODY') as Json[];
  if (bodies.length !== 1 || (category !== 'AUTHENTICATION' && (typeof bodies[0]!.text !== 'string' || bodies[0]!.text.trim() === ''))) {
    return fail(official.invalidParameter('Param components must hold exactly one BODY component with its text.'));
  }
  const id = numericId();
  const inserted = await db.transaction(async (tx) => {
    const rows = await tx
      .insert(sandboxTemplates)
      .values({ id, wabaId, name, language, category, components, status: 'PENDING', reason: null, createdAt: ctx.clock.now() })
      .onConflictDoNothing()
      .returning({ id: sandboxTemplates.id });
    if (rows.length === 0) return false;
    await ctx.enqueueCallback(tx, { kind: 'template.status', template_id: id }, 1);
    return true;
  });
  if (!inserted) {
    return fail({ ...official.invalidParameter(`Message template "${name}" already exists in ${language}.`), subcode: 2388024 });
  }
  return ok({ id, status: 'PENDING', category });
}
