/**
 * What a broadcast sends: a template with its body variables and, when the template has them, its
 * header parameter (a text, or the link of an image, video or document) and button parameters (a URL's
 * suffix, a quick reply's payload, a copy-code button's code). Every one of them is text with
 * `{{contact.field|default}}` placeholders, filled per recipient like the body's (variables.ts), and
 * sent in the provider's component shapes:
 *   header   {type: header, parameters: [{type: text, text} | {type: image|video, <type>: {link}} | {type: document, document: {link, filename?}}]}
 *   buttons  {type: button, sub_type: url | quick_reply | copy_code, index: "N",
 *             parameters: [{type: text, text} | {type: payload, payload} | {type: coupon_code, coupon_code}]}
 */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { templates } from '../../db/schema.ts';
import { DomainError, invalid, type FieldError } from '../errors.ts';
import { parametersOf } from '../templates/parameters.ts';
import { checkVariables, fillVariables, type RecipientFields } from './variables.ts';

export const MEDIA_HEADER_TYPES = ['image', 'video', 'document'] as const;
export type HeaderSpec = { type: 'text'; text: string } | { type: (typeof MEDIA_HEADER_TYPES)[number]; link: string; filename?: string };
export type ButtonSpec = { index: number; value: string };

/** A template as a broadcast (or one of its A/B variants) gives it. */
export type TemplateSpec = {
  name: string;
  language: string;
  variables: string[];
  header?: HeaderSpec | null;
  buttons?: ButtonSpec[];
};

/** One recipient's parameters: the body's texts, and the header and button components. */
export type FilledTemplate = { parameters: string[]; components: Array<Record<string, unknown>> | null };

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

const BUTTON_SUB_TYPES: Record<string, 'url' | 'quick_reply' | 'copy_code'> = {
  URL: 'url',
  QUICK_REPLY: 'quick_reply',
  COPY_CODE: 'copy_code',
};

/** The template's header format (null: none) and its buttons' kinds by index. */
function shapeOf(components: unknown[]): { headerFormat: string | null; buttons: Map<number, string> } {
  const header = components.find((c): c is Json => isObject(c) && String(c.type).toUpperCase() === 'HEADER');
  const list = components.find((c): c is Json => isObject(c) && String(c.type).toUpperCase() === 'BUTTONS')?.buttons;
  const buttons = new Map<number, string>();
  for (const [index, button] of (Array.isArray(list) ? list : []).entries()) {
    if (isObject(button)) buttons.set(index, String(button.type).toUpperCase());
  }
  return { headerFormat: header ? String(header.format ?? 'TEXT').toUpperCase() : null, buttons };
}

/** The texts of a spec that take placeholders, each with its pointer (below `pointer`). */
function textsOf(spec: TemplateSpec, pointer: string): Array<{ text: string; pointer: string }> {
  const header = spec.header
    ? [{ text: spec.header.type === 'text' ? spec.header.text : spec.header.link, pointer: `${pointer}/header` }]
    : [];
  return [...header, ...(spec.buttons ?? []).map((b, i) => ({ text: b.value, pointer: `${pointer}/buttons/${i}/value` }))];
}

/** The placeholders of every text of a spec (body variables, header, buttons): their problems, by pointer. */
export function checkSpecVariables(spec: TemplateSpec, pointer: string): FieldError[] {
  return [
    ...checkVariables(spec.variables, `${pointer}/variables`),
    ...textsOf(spec, pointer).flatMap((t) => checkVariables([t.text], t.pointer).map((e) => ({ ...e, pointer: t.pointer }))),
  ];
}

/**
 * The spec checked against its template on the channel: approved, as many body variables as the body's
 * parameters, a header parameter of the header's format when it has one, a value for every button
 * that takes one (a URL with a variable, a copy-code) and none for a button that takes none. 400 naming
 * the field below `pointer`; a location header is 422 `unsupported`.
 */
export async function checkTemplateSpec(
  db: Executor,
  organizationId: string,
  channelId: string,
  spec: TemplateSpec,
  pointer = '/template',
): Promise<void> {
  const [template] = await db
    .select({ status: templates.status, components: templates.components })
    .from(templates)
    .where(
      and(
        eq(templates.organizationId, organizationId),
        eq(templates.channelId, channelId.toLowerCase()),
        eq(templates.name, spec.name),
        eq(templates.language, spec.language),
      ),
    )
    .limit(1);
  if (!template) {
    throw invalid(`no template ${spec.name} (${spec.language}) on this channel`, [
      { pointer: `${pointer}/name`, message: 'no template of this name and language on the channel' },
    ]);
  }
  if (template.status !== 'approved') {
    throw invalid(`template ${spec.name} (${spec.language}) is ${template.status}, not approved`, [
      { pointer: `${pointer}/name`, message: `template is ${template.status}: only an approved template can be broadcast` },
    ]);
  }
  const expected = parametersOf(template.components);
  const given = spec.variables.length;
  if (given !== expected.body) {
    throw invalid(`template ${spec.name} has ${expected.body} body parameters; ${given} variables given`, [
      {
        pointer: `${pointer}/variables`,
        message:
          given < expected.body
            ? `parameter ${given + 1} has no variable: give ${expected.body} (text, or {{contact.field|default}})`
            : `${given} variables for ${expected.body} parameters`,
      },
    ]);
  }
  const shape = shapeOf(template.components);
  checkHeader(spec, shape.headerFormat, expected.header, pointer);
  checkButtons(spec, shape.buttons, expected.buttons, pointer);
}

function checkHeader(spec: TemplateSpec, format: string | null, count: number, pointer: string): void {
  const at = `${pointer}/header`;
  if (format === 'LOCATION') {
    throw new DomainError('unsupported', 'broadcasts do not fill a location header', {
      fieldErrors: [{ pointer: `${pointer}/name`, message: 'a template with a location header cannot be broadcast' }],
    });
  }
  const wanted = format === null || (format === 'TEXT' && count === 0) ? null : format.toLowerCase();
  if (!wanted) {
    if (spec.header)
      throw invalid('the template header takes no parameter', [
        { pointer: at, message: 'the template header takes no parameter: omit header' },
      ]);
    return;
  }
  if (!spec.header) {
    throw invalid(`the template header takes a ${wanted} parameter`, [
      { pointer: at, message: wanted === 'text' ? 'give header {type: text, text}' : `give header {type: ${wanted}, link}` },
    ]);
  }
  if (spec.header.type !== wanted) {
    throw invalid(`the template header is ${wanted}, not ${spec.header.type}`, [
      { pointer: `${at}/type`, message: `the template header is ${wanted}` },
    ]);
  }
  if (spec.header.type !== 'text' && !spec.header.link.includes('{{') && !/^https:\/\/[^\s]+$/.test(spec.header.link)) {
    throw invalid('the header link must be a public https URL', [{ pointer: `${at}/link`, message: 'a public https URL' }]);
  }
  if (spec.header.type !== 'document' && 'filename' in spec.header && spec.header.filename !== undefined) {
    throw invalid('only a document header has a filename', [
      { pointer: `${at}/filename`, message: 'only a document header has a filename' },
    ]);
  }
}

function checkButtons(spec: TemplateSpec, kinds: Map<number, string>, counts: Map<number, number>, pointer: string): void {
  const given = spec.buttons ?? [];
  const seen = new Set<number>();
  given.forEach((b, i) => {
    const at = `${pointer}/buttons/${i}`;
    const kind = kinds.get(b.index);
    if (seen.has(b.index)) throw invalid(`button ${b.index} is given twice`, [{ pointer: `${at}/index`, message: 'given twice' }]);
    seen.add(b.index);
    if (kind === undefined) throw invalid(`the template has no button ${b.index}`, [{ pointer: `${at}/index`, message: 'no such button' }]);
    const takes = kind === 'QUICK_REPLY' || (counts.get(b.index) ?? 0) > 0;
    if (!takes) {
      throw invalid(`button ${b.index} (${kind.toLowerCase()}) takes no parameter`, [
        { pointer: `${at}/index`, message: `a ${kind.toLowerCase()} button without a variable takes no parameter` },
      ]);
    }
  });
  for (const [index, n] of counts) {
    if (n > 0 && !seen.has(index)) {
      throw invalid(`button ${index} (${kinds.get(index)?.toLowerCase()}) needs a value`, [
        {
          pointer: `${pointer}/buttons`,
          message: `button ${index} needs a value: ${kinds.get(index) === 'COPY_CODE' ? 'the code to copy' : 'the URL suffix'}`,
        },
      ]);
    }
  }
}

/** The header and button components of a spec, filled for one recipient; the kinds of its buttons by index come from the template. */
function componentsOf(spec: TemplateSpec, kinds: Map<number, string>, fields: RecipientFields): Array<Record<string, unknown>> | null {
  const out: Array<Record<string, unknown>> = [];
  const fill = (text: string) => fillVariables([text], fields)[0]!;
  if (spec.header) {
    const h = spec.header;
    const parameter =
      h.type === 'text'
        ? { type: 'text', text: fill(h.text) }
        : {
            type: h.type,
            [h.type]: { link: fill(h.link), ...(h.type === 'document' && h.filename ? { filename: fill(h.filename) } : {}) },
          };
    out.push({ type: 'header', parameters: [parameter] });
  }
  for (const b of [...(spec.buttons ?? [])].sort((x, y) => x.index - y.index)) {
    const subType = BUTTON_SUB_TYPES[kinds.get(b.index) ?? 'URL'] ?? 'url';
    const value = fill(b.value);
    const parameter =
      subType === 'quick_reply'
        ? { type: 'payload', payload: value }
        : subType === 'copy_code'
          ? { type: 'coupon_code', coupon_code: value }
          : { type: 'text', text: value };
    out.push({ type: 'button', sub_type: subType, index: String(b.index), parameters: [parameter] });
  }
  return out.length ? out : null;
}

/** Fills specs for many recipients: reads each template's button kinds once. */
export async function specFiller(
  db: Executor,
  organizationId: string,
  channelId: string,
): Promise<(spec: TemplateSpec, fields: RecipientFields) => FilledTemplate> {
  const kinds = new Map<string, Map<number, string>>();
  const rows = await db
    .select({ name: templates.name, language: templates.language, components: templates.components })
    .from(templates)
    .where(and(eq(templates.organizationId, organizationId), eq(templates.channelId, channelId)));
  for (const r of rows) kinds.set(`${r.name} ${r.language}`, shapeOf(r.components).buttons);
  return (spec, fields) => ({
    parameters: fillVariables(spec.variables, fields),
    components:
      spec.header || spec.buttons?.length ? componentsOf(spec, kinds.get(`${spec.name} ${spec.language}`) ?? new Map(), fields) : null,
  });
}

/** The message content of one recipient's template: the body's parameters, then the header and button components. */
export function templateContent(spec: Pick<TemplateSpec, 'name' | 'language'>, filled: FilledTemplate): Record<string, unknown> {
  const header = (filled.components ?? []).filter((c) => c.type === 'header');
  const buttons = (filled.components ?? []).filter((c) => c.type === 'button');
  const body = filled.parameters.length ? [{ type: 'body', parameters: filled.parameters.map((text) => ({ type: 'text', text })) }] : [];
  const components = [...header, ...body, ...buttons];
  return { template: { name: spec.name, language: { code: spec.language }, ...(components.length ? { components } : {}) } };
}
