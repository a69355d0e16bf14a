/**
 * Deals: create, read, change, delete (list.ts reads lists and stage histories). A deal is in one stage
 * of one pipeline; its status is the stage's kind. What it refers to (stage, owner, company, contacts,
 * conversation) must be the organization's: another organization's is refused naming the field, like
 * an unknown one. Changes record crm.record.* (object_kind `deal`); a change of stage also records
 * crm.deal.stage_changed and a stage history row saying who moved it.
 */
import { isDeepStrictEqual } from 'node:util';
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { contacts, conversations, dealContacts, deals, pipelines, pipelineStages } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { loadCompanyRow } from '../companies/companies.ts';
import { customFieldsProblem, mergeCustomFields } from '../crm/custom-fields.ts';
import { changedBy, checkOwner, recordCrmRecordEvent } from '../crm/records.ts';
import { invalid, type FieldError } from '../errors.ts';
import { recordEvents } from '../events/outbox.ts';
import type { StageRow } from '../pipelines/pipelines.ts';
import { dealById, dealNotFound, type DealDeps, type DealRow, type DealView } from './records.ts';
import type { DealInput } from './fields.ts';
import { enterStage, stageMoveEvents } from './stage-moves.ts';

export type DealClockDeps = { db: Executor; clock: Clock };

const bad = (pointer: string, message: string): never => {
  throw invalid(`${pointer.slice(1).replaceAll('/', '.')}: ${message}`, [{ pointer, message }]);
};

const recordOf = (row: DealRow) => ({ kind: 'deal' as const, id: row.id, displayName: row.name, organizationId: row.organizationId });

export async function getDeal({ db }: DealDeps, actor: Actor, { dealId }: { dealId: string }): Promise<DealView> {
  const deal = await dealById(db, actor.organizationId, dealId);
  if (!deal) throw dealNotFound();
  return deal;
}

/** A stage of the organization, held (FOR KEY SHARE) so that it is not deleted until the transaction ends. */
async function heldStage(tx: Executor, organizationId: string, stageId: string): Promise<StageRow | undefined> {
  const [row] = await tx
    .select()
    .from(pipelineStages)
    .where(and(eq(pipelineStages.id, stageId), eq(pipelineStages.organizationId, organizationId)))
    .limit(1)
    .for('key share');
  return row;
}

/** The first open stage of a pipeline of the organization (held), or undefined when there is no such pipeline. */
async function firstOpenStage(tx: Executor, organizationId: string, pipelineId: string | undefined): Promise<StageRow | undefined> {
  const [row] = await tx
    .select({ stage: pipelineStages })
    .from(pipelineStages)
    .innerJoin(pipelines, eq(pipelines.id, pipelineStages.pipelineId))
    .where(
      and(
        eq(pipelines.organizationId, organizationId),
        pipelineId === undefined ? eq(pipelines.isDefault, true) : eq(pipelines.id, pipelineId),
        eq(pipelineStages.kind, 'open'),
      ),
    )
    .orderBy(asc(pipelineStages.position), asc(pipelineStages.id))
    .limit(1)
    .for('key share', { of: pipelineStages });
  return row?.stage;
}

/**
 * The stage a write puts the deal in: stage_id (of pipeline_id when both are given; of the deal's
 * pipeline when only it is), else the first open stage of pipeline_id, else (a new deal) of the default
 * pipeline. undefined: the deal stays where it is.
 */
async function resolveStage(
  tx: Executor,
  organizationId: string,
  input: Pick<DealInput, 'pipelineId' | 'stageId'>,
  current: DealRow | undefined,
): Promise<StageRow | undefined> {
  if (input.stageId !== undefined) {
    const stage = await heldStage(tx, organizationId, input.stageId);
    if (!stage) return bad('/stage_id', 'not a stage of this organization');
    const pipelineId = input.pipelineId ?? current?.pipelineId;
    if (pipelineId !== undefined && stage.pipelineId !== pipelineId)
      return bad(
        '/stage_id',
        input.pipelineId === undefined
          ? 'not a stage of the deal’s pipeline (give pipeline_id too, to move the deal to another pipeline)'
          : 'not a stage of pipeline_id',
      );
    return stage;
  }
  if (input.pipelineId !== undefined) {
    if (current && input.pipelineId === current.pipelineId) return undefined;
    const stage = await firstOpenStage(tx, organizationId, input.pipelineId);
    return stage ?? bad('/pipeline_id', 'not a pipeline of this organization');
  }
  if (current) return undefined;
  const stage = await firstOpenStage(tx, organizationId, undefined);
  return stage ?? bad('/pipeline_id', 'required: the organization has no default pipeline');
}

/** Refuses references to what the organization does not have (each held until the transaction ends), naming the field. */
async function checkReferences(tx: Executor, organizationId: string, input: DealInput, current?: DealRow): Promise<void> {
  if (input.ownerUserId !== undefined && input.ownerUserId !== current?.ownerUserId)
    await checkOwner(tx, organizationId, input.ownerUserId);
  if (input.companyId && input.companyId !== current?.companyId) {
    if (!(await loadCompanyRow(tx, organizationId, input.companyId, { lock: 'key share' })))
      bad('/company_id', 'not a company of this organization');
  }
  if (input.contactIds && input.contactIds.length > 0) {
    const found = await tx
      .select({ id: contacts.id })
      .from(contacts)
      .where(and(eq(contacts.organizationId, organizationId), inArray(contacts.id, input.contactIds)))
      .for('key share');
    const known = new Set(found.map((c) => c.id));
    const problems: FieldError[] = input.contactIds.flatMap((id, i) =>
      known.has(id) ? [] : [{ pointer: `/contact_ids/${i}`, message: 'not a contact of this organization' }],
    );
    if (problems.length > 0)
      throw invalid(problems.map((p) => `${p.pointer.slice(1).replaceAll('/', '.')}: ${p.message}`).join('; '), problems);
  }
  if (input.conversationId && input.conversationId !== current?.conversationId) {
    const [conversation] = await tx
      .select({ id: conversations.id })
      .from(conversations)
      .where(and(eq(conversations.id, input.conversationId), eq(conversations.organizationId, organizationId)))
      .limit(1);
    if (!conversation) bad('/conversation_id', 'not a conversation of this organization');
  }
}

/** amount and currency go together; the custom fields fit their limits. */
function checkValues(next: Pick<DealRow, 'amount' | 'currency' | 'customFields'>, input: DealInput): void {
  if ((next.amount === null) !== (next.currency === null)) {
    if (next.amount === null) bad(input.currency !== undefined ? '/amount' : '/currency', 'amount and currency go together');
    else bad('/currency', 'required with amount');
  }
  const problem = customFieldsProblem(next.customFields);
  if (problem) bad('/custom_fields', problem);
}

async function setContacts(tx: Executor, organizationId: string, dealId: string, contactIds: string[], now: Date): Promise<void> {
  await tx.delete(dealContacts).where(eq(dealContacts.dealId, dealId));
  const unique = [...new Set(contactIds)];
  if (unique.length > 0)
    await tx.insert(dealContacts).values(unique.map((contactId) => ({ dealId, contactId, organizationId, createdAt: now })));
}

/** Creates a deal in its stage (see resolveStage); records crm.record.created and its first stage history row. */
export async function createDeal({ db, clock }: DealClockDeps, actor: Actor, input: DealInput & { name: string }): Promise<DealView> {
  const org = actor.organizationId;
  return db.transaction(async (tx) => {
    const stage = (await resolveStage(tx, org, input, undefined))!;
    await checkReferences(tx, org, input);
    const values = {
      amount: input.amount ?? null,
      currency: input.amount === null ? null : (input.currency ?? null),
      customFields: mergeCustomFields({}, input.customFields),
    };
    checkValues(values, input);
    const now = clock.now();
    const [row] = await tx
      .insert(deals)
      .values({
        id: uuidv7(),
        organizationId: org,
        name: input.name,
        ...values,
        pipelineId: stage.pipelineId,
        stageId: stage.id,
        stageEnteredAt: now,
        expectedCloseDate: input.expectedCloseDate ?? null,
        ownerUserId: input.ownerUserId ?? null,
        companyId: input.companyId ?? null,
        conversationId: input.conversationId ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (input.contactIds) await setContacts(tx, org, row!.id, input.contactIds, now);
    await enterStage(tx, org, [row!.id], { pipelineId: stage.pipelineId, stageId: stage.id, stageName: stage.name }, now, changedBy(actor));
    await recordCrmRecordEvent(tx, 'created', recordOf(row!));
    return (await dealById(tx, org, row!.id))!;
  });
}

/**
 * Changes the fields given (null clears one; contact_ids replaces the set). A new stage (stage_id, or
 * pipeline_id alone: the new pipeline's first open stage) closes the deal's stage history row and opens
 * one, and records crm.deal.stage_changed beside crm.record.updated.
 */
export async function updateDeal(
  { db, clock }: DealClockDeps,
  actor: Actor,
  { dealId, fields: input }: { dealId: string; fields: DealInput },
): Promise<DealView> {
  const org = actor.organizationId;
  return db.transaction(async (tx) => {
    const [row] = isUuid(dealId)
      ? await tx
          .select()
          .from(deals)
          .where(and(eq(deals.id, dealId.toLowerCase()), eq(deals.organizationId, org)))
          .limit(1)
          .for('update')
      : [];
    if (!row) throw dealNotFound();
    const stage = await resolveStage(tx, org, input, row);
    await checkReferences(tx, org, input, row);
    const clearsAmount = input.amount === null;
    const next = {
      name: input.name ?? row.name,
      amount: input.amount === undefined ? row.amount : input.amount,
      currency: clearsAmount && input.currency === undefined ? null : input.currency === undefined ? row.currency : input.currency,
      expectedCloseDate: input.expectedCloseDate === undefined ? row.expectedCloseDate : input.expectedCloseDate,
      ownerUserId: input.ownerUserId === undefined ? row.ownerUserId : input.ownerUserId,
      companyId: input.companyId === undefined ? row.companyId : input.companyId,
      conversationId: input.conversationId === undefined ? row.conversationId : input.conversationId,
      customFields: mergeCustomFields(row.customFields, input.customFields),
    };
    checkValues(next, input);
    const moved = stage !== undefined && stage.id !== row.stageId;
    const currentContacts = input.contactIds
      ? (await tx.select({ id: dealContacts.contactId }).from(dealContacts).where(eq(dealContacts.dealId, row.id))).map((c) => c.id).sort()
      : [];
    const contactsChanged = input.contactIds !== undefined && !isDeepStrictEqual([...new Set(input.contactIds)].sort(), currentContacts);
    const fieldsChanged = (Object.keys(next) as Array<keyof typeof next>).some((k) => !isDeepStrictEqual(next[k], row[k]));
    if (!moved && !contactsChanged && !fieldsChanged) return (await dealById(tx, org, row.id))!;
    const now = clock.now();
    const [updated] = await tx
      .update(deals)
      .set({
        ...next,
        ...(moved ? { pipelineId: stage.pipelineId, stageId: stage.id, stageEnteredAt: now } : {}),
        updatedAt: now,
      })
      .where(and(eq(deals.id, row.id), eq(deals.organizationId, org)))
      .returning();
    if (contactsChanged) await setContacts(tx, org, row.id, input.contactIds!, now);
    if (moved) {
      const to = { pipelineId: stage.pipelineId, stageId: stage.id, stageName: stage.name };
      await enterStage(tx, org, [row.id], to, now, changedBy(actor));
      await recordEvents(tx, org, stageMoveEvents(org, updated!, row.stageId, to));
    } else await recordCrmRecordEvent(tx, 'updated', recordOf(updated!));
    return (await dealById(tx, org, row.id))!;
  });
}

/** Deletes a deal with its stage history and contact links. Records crm.record.deleted. */
export async function deleteDeal({ db }: DealDeps, actor: Actor, { dealId }: { dealId: string }): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = isUuid(dealId)
      ? await tx
          .delete(deals)
          .where(and(eq(deals.id, dealId.toLowerCase()), eq(deals.organizationId, actor.organizationId)))
          .returning()
      : [];
    if (!row) throw dealNotFound();
    await recordCrmRecordEvent(tx, 'deleted', recordOf(row));
  });
}
