/**
 * The segment builder's fields: what each condition row offers (the field, its operators, the value it
 * takes), the language of docs/crm.md "Segments". A field with a key (a custom field, a consent's scope)
 * is written `prefix + key`.
 */
export type ValueKind = 'text' | 'time' | 'duration' | 'yesno' | 'consent' | 'list' | 'none';
export type FieldChoice = {
  value: string;
  label: string;
  keyed?: { label: string; placeholder: string };
  ops: Array<{ value: string; label: string; kind: ValueKind }>;
};

const TEXT_OPS = [
  { value: 'eq', label: 'is', kind: 'text' },
  { value: 'neq', label: 'is not', kind: 'text' },
  { value: 'contains', label: 'contains', kind: 'text' },
  { value: 'starts_with', label: 'starts with', kind: 'text' },
  { value: 'exists', label: 'is set', kind: 'yesno' },
] as const;
const TIME_OPS = [
  { value: 'within', label: 'within the last', kind: 'duration' },
  { value: 'before', label: 'before', kind: 'time' },
  { value: 'after', label: 'after', kind: 'time' },
] as const;

export const FIELD_CHOICES: FieldChoice[] = [
  {
    value: 'tags',
    label: 'Tag',
    ops: [
      { value: 'has', label: 'has', kind: 'text' },
      { value: 'has_not', label: 'has not', kind: 'text' },
    ],
  },
  {
    value: 'lists',
    label: 'List',
    ops: [
      { value: 'in', label: 'is in', kind: 'list' },
      { value: 'not_in', label: 'is not in', kind: 'list' },
    ],
  },
  { value: 'name', label: 'Name', ops: [...TEXT_OPS] },
  { value: 'email', label: 'Email', ops: [...TEXT_OPS] },
  { value: 'phone_number', label: 'Phone number', ops: [...TEXT_OPS] },
  { value: 'external_source', label: 'External source', ops: [...TEXT_OPS] },
  {
    value: 'custom_fields.',
    label: 'Custom field',
    keyed: { label: 'Custom field key', placeholder: 'e.g. plan' },
    ops: [...TEXT_OPS, { value: 'gt', label: 'is more than', kind: 'text' }, { value: 'lt', label: 'is less than', kind: 'text' }],
  },
  {
    value: 'consents.',
    label: 'Consent',
    keyed: { label: 'Consent scope', placeholder: 'chatapp, all or a channel id' },
    ops: [
      { value: 'eq', label: 'is', kind: 'consent' },
      { value: 'neq', label: 'is not', kind: 'consent' },
    ],
  },
  {
    value: 'suppressions.',
    label: 'Suppression',
    keyed: { label: 'Suppression scope', placeholder: 'any, chatapp, all or a channel id' },
    ops: [{ value: 'exists', label: 'in force', kind: 'yesno' }],
  },
  { value: 'last_inbound_at', label: 'Last message from them', ops: [...TIME_OPS, { value: 'exists', label: 'ever', kind: 'yesno' }] },
  { value: 'created_at', label: 'Created', ops: [...TIME_OPS] },
  { value: 'company', label: 'Works at a company', ops: [{ value: 'exists', label: 'is', kind: 'yesno' }] },
  { value: 'company.name', label: 'Company name', ops: [...TEXT_OPS] },
  { value: 'company.address.country', label: 'Company country', ops: [...TEXT_OPS] },
];

/** A builder row: the field chosen (with its key), the operator and the value as typed. */
export type Row = { field: string; key: string; op: string; value: string };

export const choiceOf = (field: string) => FIELD_CHOICES.find((c) => c.value === field) ?? FIELD_CHOICES[0]!;

export function newRow(field = 'tags'): Row {
  const choice = choiceOf(field);
  return { field, key: '', op: choice.ops[0]!.value, value: choice.ops[0]!.kind === 'yesno' ? 'true' : '' };
}

/** A row as a condition of the filter language. */
export function conditionOf(row: Row): { field: string; op: string; value: unknown } {
  const choice = choiceOf(row.field);
  const op = choice.ops.find((o) => o.value === row.op) ?? choice.ops[0]!;
  const field = choice.keyed ? `${row.field}${row.key.trim()}` : row.field;
  const v = row.value.trim();
  let value: unknown = v;
  if (op.kind === 'yesno') value = v !== 'false';
  else if (op.kind === 'duration') value = /^\d+$/.test(v) ? `P${v}D` : v;
  else if (op.kind === 'time') value = v && !Number.isNaN(Date.parse(v)) ? new Date(v).toISOString() : v;
  else if ((op.value === 'gt' || op.value === 'lt') && /^-?\d+(\.\d+)?$/.test(v)) value = Number(v);
  return { field, op: op.value, value };
}

/** The builder's rows of a saved filter: a flat group of conditions; undefined when it nests groups (shown as JSON instead). */
export function rowsOf(filter: unknown): { join: 'and' | 'or'; rows: Row[] } | undefined {
  if (!filter || typeof filter !== 'object') return undefined;
  const join = 'and' in filter ? 'and' : 'or' in filter ? 'or' : undefined;
  if (!join) return undefined;
  const items = (filter as Record<string, unknown>)[join];
  if (!Array.isArray(items)) return undefined;
  const rows: Row[] = [];
  for (const item of items as Array<Record<string, unknown>>) {
    if (typeof item.field !== 'string' || typeof item.op !== 'string') return undefined;
    const keyed = FIELD_CHOICES.find((c) => c.keyed && (item.field as string).startsWith(c.value));
    const choice = keyed ?? FIELD_CHOICES.find((c) => c.value === item.field);
    if (!choice) return undefined;
    const op = choice.ops.find((o) => o.value === item.op);
    if (!op) return undefined;
    const raw = item.value;
    const value =
      op.kind === 'duration' && typeof raw === 'string' && /^P\d+D$/.test(raw)
        ? raw.slice(1, -1)
        : op.kind === 'time' && typeof raw === 'string'
          ? raw.slice(0, 16)
          : String(raw ?? '');
    rows.push({ field: choice.value, key: keyed ? (item.field as string).slice(keyed.value.length) : '', op: op.value, value });
  }
  return { join, rows };
}
