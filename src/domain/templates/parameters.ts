/**
 * How many parameters an approved template takes, per component, and whether a send gives them:
 * checked when a template message is accepted, so a wrong count is refused at once instead of
 * failing at the provider later.
 */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { templates } from '../../db/schema.ts';
import type { Actor } from '../actor.ts';

/** The parameters a template takes: header and body counts, and the buttons whose count is fixed, by index. */
export type TemplateParameters = { header: number; body: number; buttons: Map<number, number> };

/** A component of a send whose parameter count differs from the template's. */
export type ParameterMismatch = { component: 'header' | 'body' | 'button'; index?: number; expected: number; given: number };

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Distinct `{{1}}` / `{{name}}` variables of a text. */
function variables(text: unknown): number {
  if (typeof text !== 'string') return 0;
  return new Set((text.match(/\{\{\s*[^{}]+?\s*\}\}/g) ?? []).map((v) => v.slice(2, -2).trim())).size;
}

const MEDIA_HEADERS = new Set(['IMAGE', 'VIDEO', 'DOCUMENT', 'LOCATION']);

/** The parameters of a template, from its components as the provider stores them (HEADER, BODY, BUTTONS). */
export function parametersOf(components: unknown[]): TemplateParameters {
  const of = (type: string) => components.find((c): c is Json => isObject(c) && String(c.type).toUpperCase() === type);
  const header = of('HEADER');
  const format = String(header?.format ?? 'TEXT').toUpperCase();
  const buttons = new Map<number, number>();
  const list = of('BUTTONS')?.buttons;
  for (const [index, button] of (Array.isArray(list) ? list : []).entries()) {
    if (!isObject(button)) continue;
    const kind = String(button.type).toUpperCase();
    // Other kinds (quick replies: their payload is optional; phone numbers; flows) are not counted.
    if (kind === 'URL') buttons.set(index, variables(button.url));
    else if (kind === 'COPY_CODE') buttons.set(index, 1);
  }
  return {
    header: header ? (MEDIA_HEADERS.has(format) ? 1 : variables(header.text)) : 0,
    body: variables(of('BODY')?.text),
    buttons,
  };
}

/** The first component of a send (its `template.components`) whose parameter count is not the template's. */
export function parameterMismatch(expected: TemplateParameters, components: unknown): ParameterMismatch | undefined {
  const given = (Array.isArray(components) ? components : []).filter(isObject);
  const count = (c: Json | undefined) => (Array.isArray(c?.parameters) ? c.parameters.length : 0);
  for (const component of ['header', 'body'] as const) {
    const n = count(given.find((c) => c.type === component));
    if (n !== expected[component]) return { component, expected: expected[component], given: n };
  }
  const buttons = new Map(given.filter((c) => c.type === 'button').map((c) => [Number(c.index), c]));
  for (const [index, n] of expected.buttons) {
    if (count(buttons.get(index)) !== n) return { component: 'button', index, expected: n, given: count(buttons.get(index)) };
  }
  return undefined;
}

/** Approved templates' parameters as an accepting process last loaded them, by channel, name and language. */
export type TemplateParameterCache = {
  /** `fresh`: read the row, not the cache (a mismatch against the cache is checked again so: the row may have changed in another process). */
  get(
    db: Executor,
    actor: Actor,
    ref: { channelId: string; name: string; language: string },
    options?: { fresh?: boolean },
  ): Promise<TemplateParameters | undefined>;
};

/**
 * Approved templates are kept `ttlMs`: a template's components change only through a new approval or
 * a sync (in any process), so a send that does not match the cached parameters is checked again
 * against the row before it is refused; the provider checks again at send. A template not (yet) approved is looked up every time, so
 * one approved a moment ago is checked at once.
 */
export function createTemplateParameterCache(options: { ttlMs: number; maxEntries?: number; now(): Date }): TemplateParameterCache {
  const cache = new Map<string, { organizationId: string; parameters: TemplateParameters; at: number }>();
  return {
    async get(db, actor, ref, { fresh = false } = {}) {
      const key = `${ref.channelId} ${ref.name} ${ref.language}`;
      const now = options.now().getTime();
      const hit = cache.get(key);
      if (!fresh && hit && hit.organizationId === actor.organizationId && now - hit.at < options.ttlMs) return hit.parameters;
      cache.delete(key);
      const [row] = await db
        .select({ components: templates.components })
        .from(templates)
        .where(
          and(
            eq(templates.organizationId, actor.organizationId),
            eq(templates.channelId, ref.channelId),
            eq(templates.name, ref.name),
            eq(templates.language, ref.language),
            eq(templates.status, 'approved'),
          ),
        )
        .limit(1);
      if (!row) return undefined;
      const parameters = parametersOf(row.components);
      if (cache.size >= (options.maxEntries ?? 10_000)) cache.clear();
      cache.set(key, { organizationId: actor.organizationId, parameters, at: now });
      return parameters;
    },
  };
}
