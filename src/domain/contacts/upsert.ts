/**
 * The one write path for contact fields, used by create/upsert, PATCH and the bulk import: a batch
 * of writes applied in one transaction with a handful of statements, whatever its size.
 *
 * The upsert rule: a write without a target updates the contact that holds its phone number, else
 * the one holding its external_source + external_id, else the one holding its email (compared
 * case-insensitively), and creates a contact when none does. A write that would give the contact an
 * identifier another contact holds fails with `conflict`, naming the field.
 */
import { sqlStateOf } from '../../db/errors.ts';
import { asc, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { contacts } from '../../db/schema.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { DomainError, type FieldError } from '../errors.ts';
import { customFieldsProblem, mergeCustomFields, sameCustomFields } from '../crm/custom-fields.ts';
import type { ContactInput } from './fields.ts';
import { findIdentityOwners, identityKey, primaryIdentities, type IdentityRef } from './identities.ts';
import type { ContactRow } from './record.ts';
import { batchIds, batchRows } from '../../db/batch-rows.ts';

export type ContactWrite = {
  input: ContactInput;
  /** PATCH: the contact to change (already known to be the organization's). Upserts leave it out. */
  targetId?: string;
};

export type WriteOutcome = { status: 'created' | 'updated' | 'unchanged'; row: ContactRow } | { status: 'failed'; error: DomainError };

type Working = { row: ContactRow; version: string; isNew: boolean; dirty: boolean; original: IdentityRef[] };

/** A contact this batch read was changed by another transaction before the batch could lock it: run the batch again. */
export class StaleContactError extends Error {
  readonly code = 'stale_contact';
}

const FIELD_OF: Record<string, string> = { phone: 'phone_number', external_id: 'external_id', email: 'email' };

/** The identities of a write that choose its contact, in the order of the upsert rule. */
function matchRefs(input: ContactInput): IdentityRef[] {
  const refs: IdentityRef[] = [];
  if (input.phoneNumber) refs.push({ type: 'phone', source: '', value: input.phoneNumber });
  if (input.external) refs.push({ type: 'external_id', source: input.external.source, value: input.external.id });
  if (input.email) refs.push({ type: 'email', source: '', value: input.email.toLowerCase() });
  return refs;
}

function applyInput(row: ContactRow, input: ContactInput): ContactRow {
  const next = { ...row };
  if (input.phoneNumber !== undefined) next.phoneNumber = input.phoneNumber;
  if (input.name !== undefined) next.name = input.name;
  if (input.email !== undefined) next.email = input.email;
  if (input.external !== undefined) {
    next.externalSource = input.external?.source ?? null;
    next.externalId = input.external?.id ?? null;
  }
  next.customFields = mergeCustomFields(row.customFields, input.customFields);
  return next;
}

function sameRow(a: ContactRow, b: ContactRow): boolean {
  return (
    a.phoneNumber === b.phoneNumber &&
    a.name === b.name &&
    a.email === b.email &&
    a.externalSource === b.externalSource &&
    a.externalId === b.externalId &&
    sameCustomFields(a.customFields, b.customFields)
  );
}

/**
 * Applies the writes in order (a later write sees what an earlier one did) and stores the result.
 * Runs in the caller's transaction; records no events (callers decide which to record).
 */
export async function applyContactWrites(tx: Executor, organizationId: string, writes: ContactWrite[], now: Date): Promise<WriteOutcome[]> {
  const wanted = new Map<string, IdentityRef>();
  for (const w of writes) for (const ref of matchRefs(w.input)) wanted.set(identityKey(ref), ref);
  const stored = await findIdentityOwners(tx, organizationId, [...wanted.values()]);

  const ids = new Set<string>(stored.values());
  for (const w of writes) if (w.targetId) ids.add(w.targetId);
  const working = new Map<string, Working>();
  if (ids.size > 0) {
    // Read without locks (most rows of a re-import change nothing); xmin tells later whether a row changed since.
    // By id alone (BY_ID_ONLY), the organization checked here.
    const rows = await tx
      .select({ row: contacts, version: sql<string>`xmin::text` })
      .from(contacts)
      .where(inArray(contacts.id, batchIds([...ids])));
    for (const { row, version } of rows) {
      if (row.organizationId === organizationId)
        working.set(row.id, { row, version, isNew: false, dirty: false, original: primaryIdentities(row) });
    }
  }
  const owner = new Map(stored);

  const outcomes: WriteOutcome[] = [];
  for (const w of writes) {
    let target: Working | undefined;
    if (w.targetId) {
      target = working.get(w.targetId);
      if (!target) {
        outcomes.push({ status: 'failed', error: new DomainError('not_found', 'contact not found') });
        continue;
      }
    } else {
      for (const ref of matchRefs(w.input)) {
        const id = owner.get(identityKey(ref));
        if (id) {
          target = working.get(id);
          break;
        }
      }
    }
    const base: ContactRow = target?.row ?? {
      id: uuidv7(),
      organizationId,
      phoneNumber: null,
      name: null,
      email: null,
      externalSource: null,
      externalId: null,
      customFields: {},
      createdAt: now,
      updatedAt: now,
    };
    const next = applyInput(base, w.input);

    const before = new Set(primaryIdentities(base).map(identityKey));
    const after = primaryIdentities(next);
    const conflicts: FieldError[] = [];
    for (const ref of after) {
      const holder = owner.get(identityKey(ref));
      if (holder && holder !== next.id) conflicts.push({ pointer: `/${FIELD_OF[ref.type]}`, message: 'another contact has this value' });
    }
    if (conflicts.length > 0) {
      const fields = conflicts.map((c) => c.pointer.slice(1)).join(', ');
      outcomes.push({
        status: 'failed',
        error: new DomainError('conflict', `another contact already has this ${fields}`, { fieldErrors: conflicts }),
      });
      continue;
    }
    const problems: FieldError[] = [];
    if (after.length === 0) {
      problems.push({ pointer: '/phone_number', message: 'a contact needs a phone_number, an email or an external_source + external_id' });
    }
    const sizeProblem = customFieldsProblem(next.customFields);
    if (sizeProblem) problems.push({ pointer: '/custom_fields', message: sizeProblem });
    if (problems.length > 0) {
      outcomes.push({
        status: 'failed',
        error: new DomainError('invalid', problems.map((p) => `${p.pointer.slice(1)}: ${p.message}`).join('; '), { fieldErrors: problems }),
      });
      continue;
    }
    if (target && sameRow(target.row, next)) {
      outcomes.push({ status: 'unchanged', row: target.row });
      continue;
    }

    for (const key of before) if (owner.get(key) === next.id) owner.delete(key);
    for (const ref of after) owner.set(identityKey(ref), next.id);
    if (target) {
      next.updatedAt = now;
      target.row = next;
      target.dirty = true;
      outcomes.push({ status: 'updated', row: next });
    } else {
      working.set(next.id, { row: next, version: '', isNew: true, dirty: true, original: [] });
      outcomes.push({ status: 'created', row: next });
    }
  }

  await lockUnchanged(
    tx,
    organizationId,
    [...working.values()].filter((w) => w.dirty && !w.isNew),
  );
  await store(tx, organizationId, working, stored, now);
  // The outcome rows are the final state of each contact (a later write in the batch may change it again).
  return outcomes.map((o) => (o.status === 'failed' ? o : { ...o, row: working.get(o.row.id)!.row }));
}

/**
 * BY_ID_ONLY: a batch's contacts are read and locked by their ids alone, each id one index lookup
 * (the ids travel as one parameter the planner takes for a few rows, db/batch-rows.ts batchIds). With
 * `organization_id = $1` beside them the planner could prefer the organization's index whenever its
 * statistics lag behind a bulk import (a second organization imported since the last analysis looks
 * empty), and then read every contact of the organization for every batch: a second import was 20
 * times slower. The organization is checked on the rows read.
 */

/**
 * Locks the contacts about to be updated (in id order, so two batches cannot deadlock) and checks
 * none changed since it was read; a concurrent write to one makes the batch run again (no lost update).
 */
async function lockUnchanged(tx: Executor, organizationId: string, rows: Working[]): Promise<void> {
  if (rows.length === 0) return;
  const locked = await tx
    .select({ id: contacts.id, version: sql<string>`xmin::text` })
    .from(contacts)
    // By id alone (BY_ID_ONLY): these rows were read as the organization's above.
    .where(inArray(contacts.id, batchIds(rows.map((w) => w.row.id))))
    .orderBy(asc(contacts.id))
    .for('update');
  const now = new Map(locked.map((l) => [l.id, l.version]));
  if (rows.some((w) => now.get(w.row.id) !== w.version)) throw new StaleContactError('a contact changed while the batch was being written');
}

/**
 * Writes the batch's result. Rows travel as one JSON parameter per statement (db/batch-rows.ts):
 * a 1,000-row batch is five statements, and building them costs next to nothing.
 */
async function store(tx: Executor, organizationId: string, working: Map<string, Working>, stored: Map<string, string>, now: Date) {
  const heldBy = new Map<string, Set<string>>();
  for (const [key, id] of stored) heldBy.set(id, (heldBy.get(id) ?? new Set()).add(key));
  const removed: Array<{ contact_id: string } & IdentityRef> = [];
  const added: Array<{ id: string; contact_id: string } & IdentityRef> = [];
  const created: ContactRow[] = [];
  const updated: ContactRow[] = [];
  for (const w of working.values()) {
    if (!w.dirty) continue;
    const final = primaryIdentities(w.row);
    const finalKeys = new Set(final.map(identityKey));
    const held = new Set([...w.original.map(identityKey), ...(heldBy.get(w.row.id) ?? [])]);
    for (const ref of w.original) if (!finalKeys.has(identityKey(ref))) removed.push({ contact_id: w.row.id, ...ref });
    for (const ref of final) if (!held.has(identityKey(ref))) added.push({ id: uuidv7(), contact_id: w.row.id, ...ref });
    (w.isNew ? created : updated).push(w.row);
  }
  const json = (rows: unknown[]) => JSON.stringify(rows);
  const contactValues = (rows: ContactRow[]) =>
    json(
      rows.map((r) => ({
        id: r.id,
        phone_number: r.phoneNumber,
        name: r.name,
        email: r.email,
        external_source: r.externalSource,
        external_id: r.externalId,
        custom_fields: r.customFields,
        created_at: r.createdAt.toISOString(),
        updated_at: r.updatedAt.toISOString(),
      })),
    );
  const contactColumns = sql`id uuid, phone_number text, name text, email text, external_source text, external_id text, custom_fields jsonb, created_at timestamptz, updated_at timestamptz`;

  if (removed.length > 0) {
    await tx.execute(sql`
      delete from contact_identities i
       using ${batchRows(json(removed), 'k', 'contact_id uuid, type text, source text, value text', 'jsonb')}
       where i.organization_id = ${organizationId} and i.contact_id = k.contact_id and i.type = k.type and i.source = k.source and i.value = k.value`);
  }
  if (created.length > 0) {
    await tx.execute(sql`
      insert into contacts (id, organization_id, phone_number, name, email, external_source, external_id, custom_fields, created_at, updated_at)
      select v.id, ${organizationId}, v.phone_number, v.name, v.email, v.external_source, v.external_id, v.custom_fields, v.created_at, v.updated_at
        from ${batchRows(contactValues(created), 'v', contactColumns, 'jsonb')}`);
  }
  if (updated.length > 0) {
    await tx.execute(sql`
      update contacts as c set
        phone_number = v.phone_number, name = v.name, email = v.email, external_source = v.external_source,
        external_id = v.external_id, custom_fields = v.custom_fields, updated_at = v.updated_at
      -- By id (BY_ID_ONLY); the organization compared as text, which no index serves.
      from ${batchRows(contactValues(updated), 'v', contactColumns, 'jsonb')}
      where c.id = v.id and c.organization_id::text = ${organizationId}`);
  }
  if (added.length > 0) {
    await tx.execute(sql`
      insert into contact_identities (id, organization_id, contact_id, type, source, value, created_at)
      select k.id, ${organizationId}, k.contact_id, k.type, k.source, k.value, ${now.toISOString()}::timestamptz
        from ${batchRows(json(added), 'k', 'id uuid, contact_id uuid, type text, source text, value text', 'jsonb')}`);
  }
}

/** True for PostgreSQL's unique_violation or deadlock_detected (however the driver wraps it), or a stale read. */
export function isRetryableConflict(err: unknown): boolean {
  const state = sqlStateOf(err);
  if (state === '23505' || state === '40P01') return true;
  for (let e = err as { cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++)
    if (e instanceof StaleContactError) return true;
  return false;
}

/**
 * Runs a transaction again when it lost a race: for an identity (two requests creating the same
 * phone number at once: the second run sees the winner's row and updates it instead), for a contact
 * (changed between read and write), or a deadlock.
 */
export async function retryOnConflict<T>(fn: () => Promise<T>, attempts = 8): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= attempts || !isRetryableConflict(err)) throw err;
      // A little jitter, so writers racing for one contact do not collide again in step.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * i));
    }
  }
}
