/**
 * Custom fields, one rule for every CRM record (contacts, companies, deals): a free-form map of at most
 * 100 keys and 16 KiB as JSON, merged key by key on a write (a null value removes its key).
 */
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';

export const CUSTOM_FIELDS_MAX_BYTES = 16 * 1024;
export const CUSTOM_FIELDS_MAX_KEYS = 100;

/** The custom_fields member of a record's write. */
export const CustomFieldsSchema = z
  .record(z.string().min(1).max(100), z.unknown())
  .optional()
  .meta({
    description: `Free-form key/value map, at most ${CUSTOM_FIELDS_MAX_KEYS} keys and ${CUSTOM_FIELDS_MAX_BYTES / 1024} KiB as JSON. Merged into the stored map key by key; a null value removes its key.`,
    example: { plan: 'pro', seats: 12 },
  });

/** The key-count problem of a map as given, before it is merged; undefined when there is none. */
export function givenCustomFieldsProblem(fields: Record<string, unknown>): string | undefined {
  return Object.keys(fields).length > CUSTOM_FIELDS_MAX_KEYS ? `at most ${CUSTOM_FIELDS_MAX_KEYS} keys` : undefined;
}

/** The stored map after a write: keys given replace theirs, null removes. */
export function mergeCustomFields(current: Record<string, unknown>, given: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!given) return current;
  const next: Record<string, unknown> = { ...current };
  for (const [k, v] of Object.entries(given)) {
    if (v === null) delete next[k];
    else next[k] = v;
  }
  return next;
}

/** undefined when the map fits the limits, else what is wrong. */
export function customFieldsProblem(fields: Record<string, unknown>): string | undefined {
  if (Object.keys(fields).length > CUSTOM_FIELDS_MAX_KEYS) return `at most ${CUSTOM_FIELDS_MAX_KEYS} keys`;
  if (Buffer.byteLength(JSON.stringify(fields)) > CUSTOM_FIELDS_MAX_BYTES)
    return `larger than ${CUSTOM_FIELDS_MAX_BYTES / 1024} KiB as JSON`;
  return undefined;
}

export const sameCustomFields = (a: Record<string, unknown>, b: Record<string, unknown>) => isDeepStrictEqual(a, b);
