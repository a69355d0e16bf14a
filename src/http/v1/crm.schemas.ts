/**
 * What the CRM route groups (companies, pipelines, deals) share: their permissions, the owner filter,
 * the sort parameter, and the refusal of a body the domain's normalization finds wrong.
 */
import { z } from 'zod';
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
