/**
 * A broadcast's template variables: text with `{{contact.field|default}}` placeholders, filled per
 * recipient from the contact's fields and custom fields. Every placeholder needs a default except
 * `contact.phone` (which every recipient has), so no recipient is left with an empty parameter.
 */
import type { FieldError } from '../errors.ts';

const PLACEHOLDER = /\{\{\s*([^}|]*?)\s*(?:\|([^}]*))?\}\}/g;
const FIELD = /^contact\.(name|phone|email|(?:custom|custom_fields)\.[A-Za-z0-9_.-]{1,100})$/;

/** What a variable reads of a recipient. */
export type RecipientFields = { phone: string | null; name: string | null; email: string | null; customFields: Record<string, unknown> };

/** The problems of each variable, by pointer (`/template/variables/1`); none when every one is usable. */
export function checkVariables(variables: readonly string[], pointer: string): FieldError[] {
  const errors: FieldError[] = [];
  variables.forEach((text, i) => {
    if (text.trim() === '') errors.push({ pointer: `${pointer}/${i}`, message: 'empty: every template parameter needs a value' });
    for (const m of text.matchAll(PLACEHOLDER)) {
      const field = m[1]!;
      if (!FIELD.test(field)) {
        errors.push({
          pointer: `${pointer}/${i}`,
          message: `{{${field}}} is not a contact field: use contact.name, contact.phone, contact.email or contact.custom.<key>`,
        });
      } else if (m[2] === undefined && field !== 'contact.phone') {
        errors.push({ pointer: `${pointer}/${i}`, message: `{{${field}}} has no default: write {{${field}|default}}` });
      }
    }
  });
  return errors;
}

function valueOf(field: string, r: RecipientFields): string {
  const path = field.slice('contact.'.length);
  let v: unknown;
  if (path === 'name') v = r.name;
  else if (path === 'phone') v = r.phone;
  else if (path === 'email') v = r.email;
  else v = r.customFields[path.slice(path.indexOf('.') + 1)];
  if (v === null || v === undefined) return '';
  return typeof v === 'string' ? v.trim() : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
}

/** The variables filled for one recipient (a missing or empty field takes its default). */
export function fillVariables(variables: readonly string[], recipient: RecipientFields): string[] {
  return variables.map((text) =>
    text.replace(PLACEHOLDER, (_all, field: string, fallback: string | undefined) => valueOf(field, recipient) || (fallback ?? '').trim()),
  );
}
