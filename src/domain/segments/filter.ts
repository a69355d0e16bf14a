/**
 * The segment filter language (docs/crm.md "Segments"): `{and|or: [node, ...]}`, a node being a group
 * again or a condition `{field, op, value}`. One language for `GET /v1/contacts?filter=`, saved
 * segments, and what builds on them (broadcasts, automations). This file reads and checks a filter
 * (every refusal names its path, `filter.and[1].op`); compile.ts turns a checked one into SQL.
 *
 * The fields, and the operators each takes:
 *   name, email, phone_number, external_source, external_id     text ops
 *   created_at, updated_at                                       time ops
 *   last_inbound_at                                              time ops, exists
 *   custom_fields.<key>                                          custom ops
 *   tags                                                         has, has_not (a tag name)
 *   lists                                                        in, not_in (a list id, or up to 20)
 *   consents.<scope>                                             eq, neq (granted or revoked)
 *   suppressions.<scope>                                         exists (an active suppression)
 *   company                                                      exists (linked to any company)
 *   company.<name|domain|phone|address.country|address.city>     text ops
 *   company.owner_user_id                                        eq, neq, exists
 *   company.created_at                                           time ops
 *   company.custom_fields.<key>                                  custom ops
 * A scope is a channel id of the organization, `chatapp` or `all` (suppressions also `any`).
 */
import { z } from 'zod';
import type { FieldError } from '../errors.ts';

export const FILTER_MAX_DEPTH = 5;
export const FILTER_MAX_CONDITIONS = 50;
export const FILTER_MAX_VALUES = 100;
const TEXT_MAX = 500;
const LIST_IDS_MAX = 20;

export type Condition = { field: string; op: string; value?: unknown };
export type FilterGroup = { and: FilterNode[] } | { or: FilterNode[] };
export type FilterNode = Condition | FilterGroup;

/** What a field is, which says the operators and values it takes. */
export type FieldType = 'text' | 'time' | 'inbound' | 'custom' | 'tags' | 'lists' | 'consent' | 'suppression' | 'company' | 'owner';

const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const Uuid = z.string().regex(UUID_RE, 'must be a uuid');
const Text = z.string().min(1).max(TEXT_MAX);
const Scalar = z.union([z.string().max(TEXT_MAX), z.number(), z.boolean()]);
/** An ISO 8601 time with its offset. */
const Time = z.iso.datetime({ offset: true });
/** An ISO 8601 duration of days, hours and minutes: P7D, PT12H, P1DT6H, PT30M. */
export const DURATION_RE = /^P(?:(\d{1,5})D)?(?:T(?:(\d{1,6})H)?(?:(\d{1,7})M)?)?$/;
const Duration = z
  .string()
  .regex(DURATION_RE, 'must be an ISO 8601 duration of days, hours and minutes (P7D, PT12H, P1DT30M)')
  .refine(
    (v) => v !== 'P' && v !== 'PT' && !v.endsWith('T'),
    'must be an ISO 8601 duration of days, hours and minutes (P7D, PT12H, P1DT30M)',
  );

/** The milliseconds of a duration DURATION_RE accepts. */
export function durationMs(value: string): number {
  const [, d, h, m] = DURATION_RE.exec(value)!;
  return ((Number(d ?? 0) * 24 + Number(h ?? 0)) * 60 + Number(m ?? 0)) * 60_000;
}

const TEXT_OPS = {
  eq: Text,
  neq: Text,
  in: z.array(Text).min(1).max(FILTER_MAX_VALUES),
  not_in: z.array(Text).min(1).max(FILTER_MAX_VALUES),
  contains: Text,
  starts_with: Text,
  exists: z.boolean(),
};
const TIME_OPS = { before: Time, after: Time, within: Duration };
const OPS: Record<FieldType, Record<string, z.ZodType>> = {
  text: TEXT_OPS,
  time: TIME_OPS,
  inbound: { ...TIME_OPS, exists: z.boolean() },
  custom: {
    eq: Scalar,
    neq: Scalar,
    in: z.array(Scalar).min(1).max(FILTER_MAX_VALUES),
    not_in: z.array(Scalar).min(1).max(FILTER_MAX_VALUES),
    contains: Text,
    starts_with: Text,
    gt: z.union([z.number(), Text]),
    gte: z.union([z.number(), Text]),
    lt: z.union([z.number(), Text]),
    lte: z.union([z.number(), Text]),
    exists: z.boolean(),
  },
  tags: { has: Text, has_not: Text },
  lists: { in: z.union([Uuid, z.array(Uuid).min(1).max(LIST_IDS_MAX)]), not_in: z.union([Uuid, z.array(Uuid).min(1).max(LIST_IDS_MAX)]) },
  consent: { eq: z.enum(['granted', 'revoked']), neq: z.enum(['granted', 'revoked']) },
  suppression: { exists: z.boolean() },
  company: { exists: z.boolean() },
  owner: { eq: Uuid, neq: Uuid, exists: z.boolean() },
};

export const CONTACT_TEXT_FIELDS = ['name', 'email', 'phone_number', 'external_source', 'external_id'] as const;
export const CONTACT_TIME_FIELDS = ['created_at', 'updated_at'] as const;
export const COMPANY_TEXT_FIELDS = ['name', 'domain', 'phone', 'address.country', 'address.city'] as const;
const CUSTOM_KEY_RE = /^[^\s.][^.]{0,99}$/;
const SCOPE_RE = new RegExp(`^(chatapp|all|${UUID_RE.source.slice(1, -1)})$`);
const SUPPRESSION_SCOPE_RE = new RegExp(`^(any|chatapp|all|${UUID_RE.source.slice(1, -1)})$`);

/** A field's type, or undefined when the language has no such field. */
export function fieldType(field: string): FieldType | undefined {
  if ((CONTACT_TEXT_FIELDS as readonly string[]).includes(field)) return 'text';
  if ((CONTACT_TIME_FIELDS as readonly string[]).includes(field)) return 'time';
  if (field === 'last_inbound_at') return 'inbound';
  if (field === 'tags') return 'tags';
  if (field === 'lists') return 'lists';
  if (field === 'company') return 'company';
  if (field.startsWith('custom_fields.')) return CUSTOM_KEY_RE.test(field.slice(14)) ? 'custom' : undefined;
  if (field.startsWith('consents.')) return SCOPE_RE.test(field.slice(9)) ? 'consent' : undefined;
  if (field.startsWith('suppressions.')) return SUPPRESSION_SCOPE_RE.test(field.slice(13)) ? 'suppression' : undefined;
  if (field.startsWith('company.')) {
    const rest = field.slice(8);
    if ((COMPANY_TEXT_FIELDS as readonly string[]).includes(rest)) return 'text';
    if (rest === 'created_at') return 'time';
    if (rest === 'owner_user_id') return 'owner';
    if (rest.startsWith('custom_fields.')) return CUSTOM_KEY_RE.test(rest.slice(14)) ? 'custom' : undefined;
  }
  return undefined;
}

const FIELD_HELP =
  'one of name, email, phone_number, external_source, external_id, created_at, updated_at, last_inbound_at, tags, lists, company, custom_fields.<key>, consents.<scope>, suppressions.<scope>, company.<field>';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A path as the messages write it (`filter.and[1].op`) and as a JSON pointer (`/filter/and/1/op`). */
type Path = Array<string | number>;
const dotted = (path: Path) => path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
const pointer = (path: Path) => `/${path.join('/')}`;

export type FilterResult = { ok: true; filter: FilterGroup } | { ok: false; errors: FieldError[] };

/**
 * Reads a filter: a group at the top (`{and: [...]}` or `{or: [...]}`), at most FILTER_MAX_DEPTH
 * groups deep and FILTER_MAX_CONDITIONS conditions in all, each condition's operator one its field
 * takes and its value one the operator takes. `root` names the input in the errors (`filter`).
 * Answers the filter as checked (unknown members refused, ids lower-cased), or every error with its path.
 */
export function parseFilter(input: unknown, root = 'filter'): FilterResult {
  const errors: FieldError[] = [];
  let conditions = 0;
  const fail = (path: Path, message: string) => {
    errors.push({ pointer: pointer(path), message: `${dotted(path)}: ${message}` });
  };

  const group = (value: unknown, path: Path, depth: number): FilterGroup | undefined => {
    if (!isObject(value)) return void fail(path, 'must be an object {and: [...]} or {or: [...]}');
    const keys = Object.keys(value);
    if (keys.length !== 1 || (keys[0] !== 'and' && keys[0] !== 'or')) return void fail(path, 'must have exactly one member, and or or');
    const join = keys[0] as 'and' | 'or';
    const items = value[join];
    const at = [...path, join];
    if (depth > FILTER_MAX_DEPTH) return void fail(at, `groups nest at most ${FILTER_MAX_DEPTH} deep`);
    if (!Array.isArray(items) || items.length === 0) return void fail(at, 'must be a non-empty array');
    const nodes: FilterNode[] = [];
    items.forEach((item, i) => {
      const node = isObject(item) && ('and' in item || 'or' in item) ? group(item, [...at, i], depth + 1) : condition(item, [...at, i]);
      if (node) nodes.push(node);
    });
    return join === 'and' ? { and: nodes } : { or: nodes };
  };

  const condition = (value: unknown, path: Path): Condition | undefined => {
    if (!isObject(value)) return void fail(path, 'must be a condition {field, op, value} or a group {and|or: [...]}');
    conditions += 1;
    if (conditions === FILTER_MAX_CONDITIONS + 1) fail(path, `a filter has at most ${FILTER_MAX_CONDITIONS} conditions`);
    const extra = Object.keys(value).filter((k) => k !== 'field' && k !== 'op' && k !== 'value');
    if (extra.length > 0) return void fail([...path, extra[0]!], 'is not a member of a condition (field, op, value)');
    const { field, op } = value;
    if (typeof field !== 'string') return void fail([...path, 'field'], `required: ${FIELD_HELP}`);
    const type = fieldType(field);
    if (!type) return void fail([...path, 'field'], `unknown field ${JSON.stringify(field.slice(0, 120))}: ${FIELD_HELP}`);
    const ops = OPS[type];
    if (typeof op !== 'string' || !Object.hasOwn(ops, op))
      return void fail([...path, 'op'], `${field} takes ${Object.keys(ops).join(', ')}`);
    const parsed = ops[op]!.safeParse(value.value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const sub = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
      return void fail([...path, 'value', ...sub], value.value === undefined ? 'required' : issue.message);
    }
    return { field: lowerIds(field, type), op, value: normalizeValue(type, parsed.data) };
  };

  const filter = group(input, [root], 1);
  if (errors.length > 0 || !filter) return { ok: false, errors };
  return { ok: true, filter };
}

/** Channel ids in a scope compare lower case, as they are stored. */
function lowerIds(field: string, type: FieldType): string {
  return type === 'consent' || type === 'suppression' ? field.toLowerCase() : field;
}

function normalizeValue(type: FieldType, value: unknown): unknown {
  if (type === 'lists') return Array.isArray(value) ? value.map((v: string) => v.toLowerCase()) : (value as string).toLowerCase();
  if (type === 'owner' && typeof value === 'string') return value.toLowerCase();
  return value;
}

/** Reads the `filter` query parameter: URL-decoded JSON of a filter. */
export function parseFilterParam(text: string, root = 'filter'): FilterResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {
      ok: false,
      errors: [{ pointer: `/${root}`, message: `${root}: must be JSON, such as {"and":[{"field":"tags","op":"has","value":"vip"}]}` }],
    };
  }
  return parseFilter(value, root);
}

/**
 * The filter's schema in the OpenAPI document: a group, its conditions and nested groups left open
 * (a recursive schema is a $ref cycle many clients cannot follow); parseFilter holds the rest.
 */
export const FilterSchema = z
  .object({
    and: z
      .array(z.record(z.string(), z.unknown()))
      .optional()
      .meta({ description: 'Every one of these holds: conditions {field, op, value} and nested groups' }),
    or: z.array(z.record(z.string(), z.unknown())).optional().meta({ description: 'At least one of these holds' }),
  })
  .meta({
    id: 'SegmentFilter',
    description: `A group of conditions \`{field, op, value}\` and nested groups: all of them (\`and\`) or any (\`or\`), exactly one of the two; groups nest at most ${FILTER_MAX_DEPTH} deep, with ${FILTER_MAX_CONDITIONS} conditions in all. Fields and operators: docs/crm.md "Segments".`,
    example: {
      and: [
        { field: 'tags', op: 'has', value: 'vip' },
        { field: 'consents.chatapp', op: 'eq', value: 'granted' },
        {
          or: [
            { field: 'last_inbound_at', op: 'within', value: 'P30D' },
            { field: 'company.address.country', op: 'eq', value: 'DE' },
          ],
        },
      ],
    },
  });

/** The longest `filter` query parameter read (its JSON, decoded). */
export const FILTER_PARAM_MAX = 16_384;
