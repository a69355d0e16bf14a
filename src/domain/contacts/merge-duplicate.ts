/**
 * A person's merge of a duplicate contact into another (POST /v1/contacts/{contactID}/merge), and its
 * preview: what would move, counted per kind, and where the two disagree (a field both have, two
 * identities of one kind, a consent or suppression of one channel scope) with the side that wins.
 * Both contacts are the organization's: another organization's contact is not found, so contacts of
 * two organizations never merge.
 */
import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { queryRows } from '../../db/client.ts';
import type { Actor } from '../actor.ts';
import { DomainError, invalid } from '../errors.ts';
import { mergeContacts, mergedFields } from './merge.ts';
import {
  loadContactRow,
  recordContactEvents,
  taggedContactById,
  type ContactClockDeps,
  type ContactRow,
  type TaggedContact,
} from './record.ts';

export const MERGE_MOVE_KINDS = [
  'identities',
  'comments',
  'tags',
  'consents',
  'suppressions',
  'conversations',
  'messages',
  'deals',
  'tasks',
  'relationships',
] as const;
export type MergeMoveKind = (typeof MERGE_MOVE_KINDS)[number];

export const MERGE_CONFLICT_KINDS = ['field', 'custom_field', 'identity', 'consent', 'suppression'] as const;
export const MERGE_RESOLUTIONS = ['survivor_kept', 'duplicate_kept', 'both_kept'] as const;

/** Where the two contacts disagree: `name` is the field, custom field key, identity type or channel scope. */
export type MergeConflict = {
  kind: (typeof MERGE_CONFLICT_KINDS)[number];
  name: string;
  survivor: string[];
  duplicate: string[];
  resolution: (typeof MERGE_RESOLUTIONS)[number];
};

export type MergePreview = {
  survivor: TaggedContact;
  duplicate: TaggedContact;
  /** The survivor's fields as the merge would leave them. */
  result: ContactRow;
  moves: Record<MergeMoveKind, number>;
  conflicts: MergeConflict[];
};

type MergeInput = { contactId: string; duplicateId: string };

const duplicateRefused = (message: string) => invalid(`duplicate_id ${message}`, [{ pointer: '/duplicate_id', location: 'body', message }]);

/** The two contacts of a merge: the path's (not found when the organization has none) and the body's (400 naming duplicate_id). */
async function loadPair(db: Executor, organizationId: string, input: MergeInput): Promise<[ContactRow, ContactRow]> {
  const survivor = await loadContactRow(db, organizationId, input.contactId);
  if (input.duplicateId.toLowerCase() === survivor.id) throw duplicateRefused('is the contact itself: name another contact');
  const duplicate = await loadContactRow(db, organizationId, input.duplicateId).catch((err: unknown) => {
    throw err instanceof DomainError && err.code === 'not_found' ? duplicateRefused('is not a contact of this organization') : err;
  });
  return [survivor, duplicate];
}

const count = (n: unknown) => Number(n ?? 0);

async function countMoves(db: Executor, organizationId: string, into: string, from: string): Promise<Record<MergeMoveKind, number>> {
  const [row] = await queryRows<Record<MergeMoveKind, unknown>>(
    db,
    sql`select
      (select count(*) from contact_identities where contact_id = ${from}::uuid) as identities,
      (select count(*) from comments where organization_id = ${organizationId} and record_kind = 'contact' and record_id = ${from}::uuid) as comments,
      (select count(*) from contact_tags d where d.contact_id = ${from}::uuid
          and not exists (select 1 from contact_tags s where s.contact_id = ${into}::uuid and s.tag_id = d.tag_id)) as tags,
      (select count(*) from contact_consents d where d.contact_id = ${from}::uuid
          and not exists (select 1 from contact_consents s where s.contact_id = ${into}::uuid and s.channel = d.channel and s.recorded_at >= d.recorded_at)) as consents,
      (select count(*) from contact_suppressions where contact_id = ${from}::uuid) as suppressions,
      (select count(*) from conversations where organization_id = ${organizationId} and contact_id = ${from}::uuid) as conversations,
      (select count(*) from messages where organization_id = ${organizationId} and contact_id = ${from}::uuid) as messages,
      (select count(*) from deal_contacts d where d.contact_id = ${from}::uuid
          and not exists (select 1 from deal_contacts s where s.contact_id = ${into}::uuid and s.deal_id = d.deal_id)) as deals,
      (select count(*) from task_targets d where d.organization_id = ${organizationId} and d.record_kind = 'contact' and d.record_id = ${from}::uuid
          and not exists (select 1 from task_targets s where s.task_id = d.task_id and s.record_kind = 'contact' and s.record_id = ${into}::uuid)) as tasks,
      (select count(*) from relationships r where r.organization_id = ${organizationId}
          and ((r.from_kind = 'contact' and r.from_id = ${from}::uuid and not (r.to_kind = 'contact' and r.to_id = ${into}::uuid))
            or (r.to_kind = 'contact' and r.to_id = ${from}::uuid and not (r.from_kind = 'contact' and r.from_id = ${into}::uuid)))) as relationships`,
  );
  return Object.fromEntries(MERGE_MOVE_KINDS.map((k) => [k, count(row?.[k])])) as Record<MergeMoveKind, number>;
}

const FIELDS = [
  ['name', 'name'],
  ['email', 'email'],
  ['phone_number', 'phoneNumber'],
  ['external_id', 'externalId'],
] as const;

async function findConflicts(db: Executor, survivor: ContactRow, duplicate: ContactRow): Promise<MergeConflict[]> {
  const conflicts: MergeConflict[] = [];
  for (const [name, key] of FIELDS) {
    const [s, d] = [survivor[key], duplicate[key]];
    if (s !== null && d !== null && s !== d)
      conflicts.push({ kind: 'field', name, survivor: [s], duplicate: [d], resolution: 'survivor_kept' });
  }
  for (const [key, d] of Object.entries(duplicate.customFields)) {
    if (!(key in survivor.customFields)) continue;
    const [sj, dj] = [JSON.stringify(survivor.customFields[key]), JSON.stringify(d)];
    if (sj !== dj) conflicts.push({ kind: 'custom_field', name: key, survivor: [sj], duplicate: [dj], resolution: 'survivor_kept' });
  }
  const identities = await queryRows<{ contact_id: string; type: string; source: string; value: string }>(
    db,
    sql`select contact_id, type, source, value from contact_identities
         where contact_id in (${survivor.id}::uuid, ${duplicate.id}::uuid) order by type, source, created_at, value`,
  );
  const byType = new Map<string, { survivor: string[]; duplicate: string[] }>();
  for (const i of identities) {
    const name = i.source ? `${i.type}:${i.source}` : i.type;
    const entry = byType.get(name) ?? { survivor: [], duplicate: [] };
    (i.contact_id === survivor.id ? entry.survivor : entry.duplicate).push(i.value);
    byType.set(name, entry);
  }
  for (const [name, e] of byType)
    if (e.survivor.length > 0 && e.duplicate.length > 0) conflicts.push({ kind: 'identity', name, ...e, resolution: 'both_kept' });

  const consents = await queryRows<{ channel: string; s_state: string; s_at: Date | string; d_state: string; d_at: Date | string }>(
    db,
    sql`select s.channel, s.state as s_state, s.recorded_at as s_at, d.state as d_state, d.recorded_at as d_at
          from contact_consents s join contact_consents d on d.channel = s.channel and d.contact_id = ${duplicate.id}::uuid
         where s.contact_id = ${survivor.id}::uuid and s.state <> d.state order by s.channel`,
  );
  for (const c of consents)
    conflicts.push({
      kind: 'consent',
      name: c.channel,
      survivor: [c.s_state],
      duplicate: [c.d_state],
      resolution: new Date(c.d_at) > new Date(c.s_at) ? 'duplicate_kept' : 'survivor_kept',
    });
  const suppressions = await queryRows<{ channel: string; s_until: Date | string | null; d_until: Date | string | null }>(
    db,
    sql`select s.channel, s.expires_at as s_until, d.expires_at as d_until
          from contact_suppressions s join contact_suppressions d on d.channel = s.channel and d.contact_id = ${duplicate.id}::uuid
         where s.contact_id = ${survivor.id}::uuid order by s.channel`,
  );
  const until = (t: Date | string | null) => (t === null ? 'until lifted' : new Date(t).toISOString());
  for (const c of suppressions) {
    const longer = c.s_until !== null && (c.d_until === null || new Date(c.d_until) > new Date(c.s_until));
    conflicts.push({
      kind: 'suppression',
      name: c.channel,
      survivor: [until(c.s_until)],
      duplicate: [until(c.d_until)],
      resolution: longer ? 'duplicate_kept' : 'survivor_kept',
    });
  }
  return conflicts;
}

/** What merging the duplicate into the contact would do; changes nothing. */
export async function previewContactMerge({ db, clock }: ContactClockDeps, actor: Actor, input: MergeInput): Promise<MergePreview> {
  return db.transaction(async (tx) => {
    const [survivor, duplicate] = await loadPair(tx, actor.organizationId, input);
    const s = await taggedContactById(tx, actor.organizationId, survivor.id);
    const d = await taggedContactById(tx, actor.organizationId, duplicate.id);
    return {
      survivor: s!,
      duplicate: d!,
      result: mergedFields(survivor, [duplicate], clock.now()),
      moves: await countMoves(tx, actor.organizationId, survivor.id, duplicate.id),
      conflicts: await findConflicts(tx, survivor, duplicate),
    };
  });
}

/**
 * Merges the duplicate into the contact: everything of the duplicate's moves to it, its empty fields
 * are filled from the duplicate's, and the duplicate is deleted (crm.record.deleted, contact.merged);
 * the survivor's change records contact.updated and crm.record.updated.
 */
export async function mergeDuplicateContact({ db, clock }: ContactClockDeps, actor: Actor, input: MergeInput): Promise<TaggedContact> {
  return db.transaction(async (tx) => {
    const [survivor, duplicate] = await loadPair(tx, actor.organizationId, input);
    const { survivor: merged, merged: gone } = await mergeContacts(tx, actor.organizationId, [survivor.id, duplicate.id], clock.now(), {
      survivorId: survivor.id,
    });
    // Deleted (or merged elsewhere) since it was read: nothing was merged.
    if (gone.length === 0) throw duplicateRefused('is not a contact of this organization');
    await recordContactEvents(tx, merged, 'updated');
    return (await taggedContactById(tx, actor.organizationId, merged.id))!;
  });
}
