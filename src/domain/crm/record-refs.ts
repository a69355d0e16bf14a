/**
 * Records named by kind and id (what task targets, comments and relationships point at): finding an
 * organization's records of a kind with the names a person reads, and refusing references to what
 * the organization does not have, naming the field.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { companies, contacts, conversations, deals, tasks } from '../../db/schema.ts';
import { isUuid } from '../../lib/ids.ts';
import { displayName as contactDisplayName } from '../contacts/record.ts';
import { invalid, type FieldError } from '../errors.ts';

/** The kinds of records a reference may name: the CRM's records, and conversations. */
export const RECORD_KINDS = ['contact', 'company', 'deal', 'task', 'conversation'] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

/** A reference as given: a kind and an id. */
export type RecordRef = { kind: RecordKind; id: string };
/** A reference with the name of its record now (null when it has none). */
export type NamedRecordRef = RecordRef & { displayName: string | null };

/**
 * The organization's records of a kind among the ids, by id (lower case), with the names a person
 * reads: a contact's name (else email, phone, external id), a company's or deal's name, a task's
 * title, a conversation's contact (else its number). An id of another organization, or no UUID, is
 * not in the map. `lock`: the rows are held (FOR KEY SHARE, as a foreign key's check holds them) until
 * the transaction ends, so a deletion under way waits, or has happened and they are not found.
 */
export async function findRecords(
  db: Executor,
  organizationId: string,
  kind: RecordKind,
  ids: readonly string[],
  options: { lock?: boolean } = {},
): Promise<Map<string, { displayName: string | null }>> {
  const wanted = [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))];
  const found = new Map<string, { displayName: string | null }>();
  if (wanted.length === 0) return found;
  const held = <Q extends { for(strength: 'key share'): unknown }>(query: Q): Q => (options.lock ? (query.for('key share') as Q) : query);
  switch (kind) {
    case 'contact': {
      const rows = await held(
        db
          .select({
            id: contacts.id,
            name: contacts.name,
            email: contacts.email,
            phoneNumber: contacts.phoneNumber,
            externalSource: contacts.externalSource,
            externalId: contacts.externalId,
          })
          .from(contacts)
          .where(and(eq(contacts.organizationId, organizationId), inArray(contacts.id, wanted)))
          .$dynamic(),
      );
      for (const r of rows) found.set(r.id, { displayName: contactDisplayName(r) });
      break;
    }
    case 'company': {
      const rows = await held(
        db
          .select({ id: companies.id, name: companies.name })
          .from(companies)
          .where(and(eq(companies.organizationId, organizationId), inArray(companies.id, wanted)))
          .$dynamic(),
      );
      for (const r of rows) found.set(r.id, { displayName: r.name });
      break;
    }
    case 'deal': {
      const rows = await held(
        db
          .select({ id: deals.id, name: deals.name })
          .from(deals)
          .where(and(eq(deals.organizationId, organizationId), inArray(deals.id, wanted)))
          .$dynamic(),
      );
      for (const r of rows) found.set(r.id, { displayName: r.name });
      break;
    }
    case 'task': {
      const rows = await held(
        db
          .select({ id: tasks.id, title: tasks.title })
          .from(tasks)
          .where(and(eq(tasks.organizationId, organizationId), inArray(tasks.id, wanted)))
          .$dynamic(),
      );
      for (const r of rows) found.set(r.id, { displayName: r.title });
      break;
    }
    case 'conversation': {
      // Conversations are never deleted (they stay as history): nothing to hold.
      const rows = await db
        .select({
          id: conversations.id,
          peerPhone: conversations.peerPhone,
          name: contacts.name,
          email: contacts.email,
          phoneNumber: contacts.phoneNumber,
          externalSource: contacts.externalSource,
          externalId: contacts.externalId,
        })
        .from(conversations)
        .leftJoin(contacts, eq(contacts.id, conversations.contactId))
        .where(and(eq(conversations.organizationId, organizationId), inArray(conversations.id, wanted)));
      for (const r of rows) found.set(r.id, { displayName: contactDisplayName(r) ?? peerName(r.peerPhone) });
      break;
    }
    default:
      return kind satisfies never;
  }
  return found;
}

/** A conversation's peer without a contact: its number with `+` (a group's id as it is). */
const peerName = (peer: string) => (/^\d+$/.test(peer) ? `+${peer}` : peer);

type Names = Map<RecordKind, Map<string, { displayName: string | null }>>;

/** The records of the references, one query per kind. */
async function namesOf(db: Executor, organizationId: string, refs: readonly RecordRef[], lock: boolean): Promise<Names> {
  const names: Names = new Map();
  for (const kind of new Set(refs.map((r) => r.kind))) {
    const ids = refs.filter((r) => r.kind === kind).map((r) => r.id);
    names.set(kind, await findRecords(db, organizationId, kind, ids, { lock }));
  }
  return names;
}

/**
 * The references with their names, in their order, each checked to be a record of the organization
 * (held until the transaction ends); the missing ones are refused at `pointerOf(i)`, like an unknown
 * id, whatever organization has them.
 */
export async function checkRecords(
  db: Executor,
  organizationId: string,
  refs: readonly RecordRef[],
  pointerOf: (index: number) => string,
): Promise<NamedRecordRef[]> {
  const names = await namesOf(db, organizationId, refs, true);
  const problems: FieldError[] = [];
  const named = refs.map((ref, i) => {
    const record = names.get(ref.kind)?.get(ref.id.toLowerCase());
    if (!record) problems.push({ pointer: pointerOf(i), message: `not a ${ref.kind} of this organization` });
    return { kind: ref.kind, id: ref.id.toLowerCase(), displayName: record?.displayName ?? null };
  });
  if (problems.length > 0)
    throw invalid(problems.map((p) => `${p.pointer.slice(1).replaceAll('/', '.')}: ${p.message}`).join('; '), problems);
  return named;
}

/** The references with the names of their records now (null for a record gone since), for presenting them. */
export async function nameRecords(db: Executor, organizationId: string, refs: readonly RecordRef[]): Promise<NamedRecordRef[]> {
  const names = await namesOf(db, organizationId, refs, false);
  return refs.map((ref) => ({ ...ref, displayName: names.get(ref.kind)?.get(ref.id)?.displayName ?? null }));
}
