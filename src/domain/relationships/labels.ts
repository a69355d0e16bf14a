/**
 * Relationship labels: the organization's kinds of link between two records ("works at" from a
 * contact to a company), each with an optional inverse read from the other side ("employs"). A label
 * without an inverse reads the same both ways ("colleague"). Labels are settings, like pipelines: their
 * own changes record no events; deleting one deletes its links, each with crm.relationship.unlinked.
 */
import { and, eq, ne, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Executor } from '../../db/client.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { given, listPage, oldestFirstBy } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { relationshipLabels } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { DomainError, notFound } from '../errors.ts';
import { cursorKey } from '../paging.ts';
import { unlinkAll } from './unlink.ts';

/** The records a relationship links. */
export const RELATIONSHIP_KINDS = ['contact', 'company', 'deal'] as const;
export type RelationshipKind = (typeof RELATIONSHIP_KINDS)[number];
export const LABEL_NAME_MAX = 100;

export type LabelRow = typeof relationshipLabels.$inferSelect;
export type LabelDeps = { db: Executor; clock: Clock };

const labelName = z.string().trim().min(1).max(LABEL_NAME_MAX);

export const LabelFieldsSchema = z.strictObject({
  name: labelName.meta({ description: 'How the link reads from its `from` record', example: 'works at' }),
  inverse_name: labelName.nullable().optional().meta({
    description: 'How it reads from its `to` record; absent or null: the same both ways (a symmetric label such as "colleague")',
    example: 'employs',
  }),
  from_kind: z.enum(RELATIONSHIP_KINDS),
  to_kind: z.enum(RELATIONSHIP_KINDS),
});

export const labelNotFound = () => notFound('relationship label');

const nameTaken = () =>
  new DomainError('conflict', 'another label between these kinds has this name', {
    fieldErrors: [{ pointer: '/name', message: 'another label from the same kind to the same kind has this name' }],
  });

async function nameUnique<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken();
    throw err;
  }
}

/** A label of the organization, or undefined; `lock`: held until the transaction ends (a link being made), or locked to be changed. */
export async function loadLabelRow(
  db: Executor,
  organizationId: string,
  labelId: string,
  options: { lock?: 'key share' | 'update' } = {},
): Promise<LabelRow | undefined> {
  if (!isUuid(labelId)) return undefined;
  const query = db
    .select()
    .from(relationshipLabels)
    .where(and(eq(relationshipLabels.id, labelId.toLowerCase()), eq(relationshipLabels.organizationId, organizationId)))
    .limit(1);
  const [row] = options.lock ? await query.for(options.lock) : await query;
  return row;
}

/** Refuses a name another label between the same kinds has (case-insensitive), naming it. */
async function checkNameFree(
  tx: Executor,
  organizationId: string,
  label: Pick<LabelRow, 'name' | 'fromKind' | 'toKind'>,
  exceptId?: string,
) {
  const [holder] = await tx
    .select({ id: relationshipLabels.id })
    .from(relationshipLabels)
    .where(
      and(
        eq(relationshipLabels.organizationId, organizationId),
        eq(relationshipLabels.fromKind, label.fromKind),
        eq(relationshipLabels.toKind, label.toKind),
        sql`lower(${relationshipLabels.name}) = lower(${label.name})`,
        exceptId ? ne(relationshipLabels.id, exceptId) : undefined,
      ),
    )
    .limit(1);
  if (holder) throw nameTaken();
}

export type LabelInput = { name: string; inverseName?: string | null; fromKind: RelationshipKind; toKind: RelationshipKind };

export async function createLabel({ db, clock }: LabelDeps, actor: Actor, input: LabelInput): Promise<LabelRow> {
  const org = actor.organizationId;
  return nameUnique(() =>
    db.transaction(async (tx) => {
      await checkNameFree(tx, org, input);
      const now = clock.now();
      const [row] = await tx
        .insert(relationshipLabels)
        .values({
          id: uuidv7(),
          organizationId: org,
          name: input.name,
          inverseName: input.inverseName ?? null,
          fromKind: input.fromKind,
          toKind: input.toKind,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      return row!;
    }),
  );
}

export async function getLabel({ db }: Pick<LabelDeps, 'db'>, actor: Actor, { labelId }: { labelId: string }): Promise<LabelRow> {
  const row = await loadLabelRow(db, actor.organizationId, labelId);
  if (!row) throw labelNotFound();
  return row;
}

/** The organization's labels, oldest first; filtered by the kind they link from or to. */
export async function listLabels(
  { db }: Pick<LabelDeps, 'db'>,
  actor: Actor,
  query: Page & { fromKind?: RelationshipKind; toKind?: RelationshipKind },
): Promise<PageResult<LabelRow>> {
  return listPage(db.select().from(relationshipLabels).$dynamic(), {
    where: [
      eq(relationshipLabels.organizationId, actor.organizationId),
      given(query.fromKind, (kind) => eq(relationshipLabels.fromKind, kind)),
      given(query.toKind, (kind) => eq(relationshipLabels.toKind, kind)),
    ],
    order: oldestFirstBy(relationshipLabels.createdAt, relationshipLabels.id),
    after: cursorKey(query.cursor),
    limit: query.limit,
  });
}

/** Renames a label or its inverse (null: the same both ways); its links keep it. The kinds it links stay. */
export async function updateLabel(
  { db, clock }: LabelDeps,
  actor: Actor,
  { labelId, fields }: { labelId: string; fields: { name?: string; inverseName?: string | null } },
): Promise<LabelRow> {
  const org = actor.organizationId;
  return nameUnique(() =>
    db.transaction(async (tx) => {
      const row = await loadLabelRow(tx, org, labelId, { lock: 'update' });
      if (!row) throw labelNotFound();
      const next = { name: fields.name ?? row.name, inverseName: fields.inverseName === undefined ? row.inverseName : fields.inverseName };
      if (next.name === row.name && next.inverseName === row.inverseName) return row;
      if (next.name.toLowerCase() !== row.name.toLowerCase()) await checkNameFree(tx, org, { ...row, name: next.name }, row.id);
      const [updated] = await tx
        .update(relationshipLabels)
        .set({ ...next, updatedAt: clock.now() })
        .where(and(eq(relationshipLabels.id, row.id), eq(relationshipLabels.organizationId, org)))
        .returning();
      return updated!;
    }),
  );
}

/** Deletes a label and its links, recording crm.relationship.unlinked for each; returns how many links went. */
export async function deleteLabel({ db }: Pick<LabelDeps, 'db'>, actor: Actor, { labelId }: { labelId: string }): Promise<number> {
  return db.transaction(async (tx) => {
    const row = await loadLabelRow(tx, actor.organizationId, labelId, { lock: 'update' });
    if (!row) throw labelNotFound();
    const unlinked = await unlinkAll(tx, row);
    await tx
      .delete(relationshipLabels)
      .where(and(eq(relationshipLabels.id, row.id), eq(relationshipLabels.organizationId, row.organizationId)));
    return unlinked;
  });
}
