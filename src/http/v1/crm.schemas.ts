/**
 * What the CRM route groups (companies, pipelines, deals, tasks, relationships, comments) share: their
 * permissions, the owner filter, the sort parameter, the refusal of a body the domain's normalization
 * finds wrong, who changed a record, and records named by kind and id.
 */
import { z } from 'zod';
import { RECORD_KINDS, type RecordKind, type RecordRef } from '../../domain/crm/record-refs.ts';
import { CHANGED_BY_TYPES } from '../../domain/crm/records.ts';
import type { FieldError } from '../../domain/errors.ts';
import { invalid } from '../../domain/errors.ts';
import type { Permission } from '../../domain/permissions.ts';
import { located } from '../input-location.ts';

export const crmRead: { auth: { permission: Permission } } = { auth: { permission: 'crm:read' } };
export const crmWrite: { auth: { permission: Permission } } = { auth: { permission: 'crm:write' } };

export const OwnerFilter = z
  .string()
  .regex(/^(me|none|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/, 'must be me, none or a user id')
  .optional()
  .meta({ description: 'Owned by `me` (the signed-in user: not with an API key), by nobody (`none`) or by a user id' });

/** A list's `sort`: a field ascending, or descending with a leading `-`. */
export function sortParam<S extends string>(values: readonly S[], byDefault: NoInfer<S>, about: string) {
  return z
    .enum(values as readonly [S, ...S[]])
    .default(byDefault as never)
    .meta({
      description: `${about} Ascending, or descending with a leading \`-\`; ties by id. Default \`${byDefault}\`. A cursor pages only the sort that gave it.`,
    });
}

/** The domain's normalization of a body, or a 400 naming every bad field of it. */
export function normalizedBody<T>(result: { ok: true; input: T } | { ok: false; errors: FieldError[] }): T {
  if (!result.ok)
    throw invalid(
      `request body is invalid: ${result.errors.map((e) => `${e.pointer.slice(1)}: ${e.message}`).join('; ')}`,
      located(result.errors, 'body'),
    );
  return result.input;
}

/** Who made a change: the type of the actor, its id, and the person behind it. */
export const ChangedBySchema = z.object({
  type: z.enum(CHANGED_BY_TYPES),
  id: z.string().nullable().meta({ description: 'The user id, API key id or OAuth client_id; null for system' }),
  user_id: z.uuid().nullable().meta({ description: 'The person: the user, or the user the OAuth client acted for' }),
});

/** A record a task, comment or relationship points at, with its name now. */
export const RecordRefSchema = z
  .object({
    kind: z.enum(RECORD_KINDS),
    id: z.uuid(),
    display_name: z.string().nullable().meta({
      description:
        'What a person calls it now: a contact’s name (else email, phone), a company’s or deal’s name, a task’s title, a conversation’s contact or number',
    }),
  })
  .meta({ id: 'RecordRef' });

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

/** The `record` query parameter, `kind:id` (`deal:0196…`), of one of the kinds. */
export function recordParam<K extends RecordKind>(kinds: readonly K[], about: string) {
  return z
    .string()
    .regex(new RegExp(`^(${kinds.join('|')}):${UUID}$`), `must be kind:id, the kind one of ${kinds.join(', ')}`)
    .optional()
    .meta({ description: `${about} Written \`kind:id\` (\`deal:0196b1f2-…\`), the kind one of ${kinds.join(', ')}.` });
}

/** The record a `record` parameter names. */
export function recordOf(value: string | undefined): RecordRef | undefined {
  if (value === undefined) return undefined;
  const at = value.indexOf(':');
  return { kind: value.slice(0, at) as RecordKind, id: value.slice(at + 1).toLowerCase() };
}
