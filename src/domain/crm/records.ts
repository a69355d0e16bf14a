/**
 * What the CRM's record kinds share: their record events, their owners (a member of the organization),
 * who changed them, and the sorts of their lists.
 */
import { and, eq, isNull, sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Executor } from '../../db/client.ts';
import type { FieldSort, SortValueType } from '../../db/list-query.ts';
import { memberships } from '../../db/schema.ts';
import { isUuid } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { invalid } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';

/** The kinds of CRM records, as record events name them (object_kind). */
export type CrmObjectKind = 'contact' | 'company' | 'deal' | 'task' | 'order' | 'list' | 'segment';

export type CrmRecordRef = { kind: CrmObjectKind; id: string; displayName: string | null; organizationId: string };

/** crm.record.created, updated or deleted for one record, in the caller's transaction. */
export async function recordCrmRecordEvent(tx: Executor, change: 'created' | 'updated' | 'deleted', record: CrmRecordRef): Promise<void> {
  await recordEvent(tx, record.organizationId, `crm.record.${change}`, {
    object_kind: record.kind,
    record_id: record.id,
    display_name: record.displayName,
    organization_id: record.organizationId,
  });
}

/**
 * Refuses an owner (or an assignee: `field`) who is not a member of the organization (another
 * organization's user included), naming the field.
 */
export async function checkOwner(
  db: Executor,
  organizationId: string,
  userId: string | null | undefined,
  field = 'owner_user_id',
): Promise<void> {
  if (userId === null || userId === undefined) return;
  const [member] = isUuid(userId)
    ? await db
        .select({ userId: memberships.userId })
        .from(memberships)
        .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, userId.toLowerCase())))
        .limit(1)
    : [];
  if (!member)
    throw invalid(`${field} is not a member of this organization`, [
      { pointer: `/${field}`, message: 'not a member of this organization' },
    ]);
}

/** The owner filter of a list (or the assignee filter: `param`): `me` (the signed-in user), `none` (no owner) or a user id. */
export function ownerCondition(actor: Actor, column: PgColumn, owner: string | undefined, param = 'owner'): SQL | undefined {
  if (owner === undefined) return undefined;
  if (owner === 'none') return isNull(column);
  if (owner === 'me') {
    if (actor.kind !== 'user' && actor.kind !== 'oauth')
      throw invalid(`${param}=me needs a signed-in user`, [
        { pointer: `/${param}`, message: 'me means the signed-in user; an API key is no user: give a user id' },
      ]);
    return eq(column, actor.userId);
  }
  return isUuid(owner) ? eq(column, owner.toLowerCase()) : sql`false`;
}

export const CHANGED_BY_TYPES = ['user', 'api_key', 'oauth_client', 'system'] as const;
export type ChangedByType = (typeof CHANGED_BY_TYPES)[number];

/** Who made a change: a user by session, an API key, an OAuth client acting for its user, or the system. */
export type ChangedBy = { type: ChangedByType; id: string | null; userId: string | null };

export function changedBy(actor: Actor): ChangedBy {
  switch (actor.kind) {
    case 'user':
      return { type: 'user', id: actor.userId, userId: actor.userId };
    case 'api_key':
      return { type: 'api_key', id: actor.apiKeyId, userId: null };
    case 'oauth':
      return { type: 'oauth_client', id: actor.clientId, userId: actor.userId };
    case 'system':
      return { type: 'system', id: null, userId: null };
    default:
      return actor satisfies never;
  }
}

/** A field a list can be sorted by: the SQL expression, the type of its values, and a row's value (as the database compares it). */
export type SortField<R> = { expr: SQL | PgColumn; type: SortValueType; valueOf(row: R): string };

/** The sort values of a list's fields: each ascending, and descending with a leading `-`. */
export function sortValues<F extends string>(fields: readonly F[]): Array<F | `-${F}`> {
  return [...fields, ...fields.map((f) => `-${f}` as const)];
}

/** The sort a list's `sort` names (`name`, `-created_at`), ties broken by id in the same direction. */
export function fieldSortOf<R>(sort: string, fields: Record<string, SortField<R>>, id: PgColumn, idOf: (row: R) => string): FieldSort<R> {
  const descending = sort.startsWith('-');
  const field = fields[descending ? sort.slice(1) : sort];
  if (!field)
    throw invalid(`sort ${sort} is not known`, [{ pointer: '/sort', message: `one of ${sortValues(Object.keys(fields)).join(', ')}` }]);
  return {
    name: sort,
    expr: field.expr,
    id,
    direction: descending ? 'desc' : 'asc',
    type: field.type,
    keyOf: (row) => ({ v: field.valueOf(row), id: idOf(row) }),
  };
}

/** `like` pattern of a literal: %, _ and \ escaped. */
export const likeLiteral = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);
