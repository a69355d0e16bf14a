/**
 * A broadcast's audience: the union of a segment, a contact list, tags, contact ids and phone numbers,
 * resolved to recipients in send order (contacts oldest first, then the numbers in the order given),
 * each either pending or skipped with its reason: invalid_number, duplicate (one send per number),
 * suppressed (on the channel, every chat-app channel or all), opted_out (a marketing suppression: the contact
 * asked to stop promotions), consent_revoked, and no_consent when the
 * broadcast requires a consent granted; then the channel's and template's rules (audience-rules.ts:
 * provider_restricted, open_conversation). The same resolution counts the audience before sending and
 * freezes it when sending starts.
 */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { lists, segments } from '../../db/schema.ts';
import { isUuid } from '../../lib/ids.ts';
import { normalizePhone } from '../../lib/phone.ts';
import { MARKETING_SCOPE } from '../contacts/consents.ts';
import { invalid } from '../errors.ts';
import { compileFilter } from '../segments/compile.ts';
import type { FilterGroup } from '../segments/filter.ts';
import { ruleSkips, type RuleBroadcast } from './audience-rules.ts';
import { fillVariables, type RecipientFields } from './variables.ts';

/** The audience as stored (the request's own shape). */
export type Audience = { segment_id?: string; list_id?: string; tags?: string[]; contact_ids?: string[]; phones?: string[] };

export const AUDIENCE_MAX = 100_000;

export const SKIP_REASONS = [
  'invalid_number',
  'duplicate',
  'suppressed',
  'opted_out',
  'consent_revoked',
  'no_consent',
  'provider_restricted',
  'open_conversation',
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export type ResolvedRecipient = {
  contactId: string | null;
  phone: string | null;
  status: 'pending' | 'skipped';
  reason: SkipReason | null;
  parameters: string[];
  /** What the variables read of this recipient (variants.ts fills each template from them). */
  fields: RecipientFields;
};

type ContactRow = {
  id: string;
  phone_number: string | null;
  name: string | null;
  email: string | null;
  custom_fields: Record<string, unknown>;
};

/** Refuses an audience naming nothing, or naming a segment or contact list the organization does not have. */
export async function checkAudience(db: Executor, organizationId: string, audience: Audience, pointer = '/audience'): Promise<void> {
  const named = [audience.segment_id, audience.list_id, audience.tags?.length, audience.contact_ids?.length, audience.phones?.length];
  if (!named.some(Boolean)) {
    throw invalid('audience names nobody: give segment_id, list_id, tags, contact_ids or phones', [
      { pointer, message: 'give segment_id, list_id, tags, contact_ids or phones' },
    ]);
  }
  if (audience.segment_id !== undefined) {
    const found =
      isUuid(audience.segment_id) &&
      (
        await db
          .select({ id: segments.id })
          .from(segments)
          .where(and(eq(segments.id, audience.segment_id.toLowerCase()), eq(segments.organizationId, organizationId)))
          .limit(1)
      ).length > 0;
    if (!found)
      throw invalid('audience.segment_id is not a segment of this organization', [
        { pointer: `${pointer}/segment_id`, message: 'segment not found' },
      ]);
  }
  if (audience.list_id !== undefined) {
    const [list] = isUuid(audience.list_id)
      ? await db
          .select({ kind: lists.kind })
          .from(lists)
          .where(and(eq(lists.id, audience.list_id.toLowerCase()), eq(lists.organizationId, organizationId)))
          .limit(1)
      : [];
    if (!list)
      throw invalid('audience.list_id is not a list of this organization', [{ pointer: `${pointer}/list_id`, message: 'list not found' }]);
    if (list.kind !== 'contact') {
      throw invalid('audience.list_id is not a list of contacts', [
        { pointer: `${pointer}/list_id`, message: `a list of ${list.kind}s, not contacts` },
      ]);
    }
  }
}

/** The audience's contacts (segment, list, tags, ids), oldest first. */
async function audienceContacts(db: Executor, organizationId: string, audience: Audience, now: Date): Promise<ContactRow[]> {
  const sources: SQL[] = [];
  if (audience.segment_id) {
    const [segment] = await db
      .select({ filter: segments.filter })
      .from(segments)
      .where(and(eq(segments.id, audience.segment_id.toLowerCase()), eq(segments.organizationId, organizationId)));
    // A segment deleted since the broadcast was made finds nobody.
    if (segment) sources.push(compileFilter(segment.filter as FilterGroup, { organizationId, now }));
  }
  if (audience.list_id) {
    sources.push(
      sql`contacts.id in (select contact_id from list_entries where list_id = ${audience.list_id.toLowerCase()}::uuid and contact_id is not null)`,
    );
  }
  if (audience.tags?.length) {
    const names = JSON.stringify(audience.tags.map((t) => t.toLowerCase()));
    sources.push(sql`contacts.id in (select ct.contact_id from contact_tags ct join tags t on t.id = ct.tag_id
                               where t.organization_id = ${organizationId}::uuid
                                 and lower(t.name) in (select jsonb_array_elements_text(${names}::jsonb)))`);
  }
  const ids = (audience.contact_ids ?? []).filter(isUuid).map((id) => id.toLowerCase());
  if (ids.length) sources.push(sql`contacts.id in (select (jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))::uuid)`);
  if (sources.length === 0) return [];
  // compileFilter's conditions name the contacts table itself, so it has no alias here.
  return queryRows<ContactRow>(
    db,
    sql`select contacts.id, contacts.phone_number, contacts.name, contacts.email, contacts.custom_fields from contacts
         where contacts.organization_id = ${organizationId}::uuid and (${sql.join(sources, sql` or `)})
         order by contacts.created_at, contacts.id`,
  );
}

/** The contacts holding these numbers (E.164), by number. */
async function contactsByPhone(db: Executor, organizationId: string, phones: string[]): Promise<Map<string, ContactRow>> {
  if (phones.length === 0) return new Map();
  const rows = await queryRows<ContactRow>(
    db,
    sql`select c.id, c.phone_number, c.name, c.email, c.custom_fields from contacts c
         where c.organization_id = ${organizationId}::uuid
           and c.phone_number in (select jsonb_array_elements_text(${JSON.stringify(phones)}::jsonb))`,
  );
  return new Map(rows.map((r) => [r.phone_number!, r]));
}

/** Why each contact may not be sent to on the channel now (suppressed first, then consent), by contact id. */
async function refusals(
  db: Executor,
  contactIds: string[],
  channelId: string,
  requireConsent: boolean,
  now: Date,
): Promise<Map<string, SkipReason>> {
  const out = new Map<string, SkipReason>();
  if (contactIds.length === 0) return out;
  const ids = JSON.stringify(contactIds);
  const scopes = [channelId, 'chatapp', 'all'];
  // A broadcast is marketing: a contact who opted out of it (the `marketing` scope, docs/crm.md "Opt-out by
  // message") is skipped as opted_out; a suppression of every send wins as suppressed.
  const suppressed = await queryRows<{ contact_id: string; marketing_only: boolean }>(
    db,
    sql`select contact_id, bool_and(channel = ${MARKETING_SCOPE}) as marketing_only from contact_suppressions
         where contact_id in (select (jsonb_array_elements_text(${ids}::jsonb))::uuid)
           and channel in (${sql.join(
             [...scopes, MARKETING_SCOPE].map((s) => sql`${s}`),
             sql`, `,
           )})
           and (expires_at is null or expires_at > ${now.toISOString()}::timestamptz)
         group by contact_id`,
  );
  for (const r of suppressed) out.set(r.contact_id, r.marketing_only ? 'opted_out' : 'suppressed');
  // The latest statement among the scopes decides (a revocation at the same time as a grant wins), as the send policy reads it.
  const consents = await queryRows<{ contact_id: string; state: string }>(
    db,
    sql`select distinct on (contact_id) contact_id, state from contact_consents
         where contact_id in (select (jsonb_array_elements_text(${ids}::jsonb))::uuid)
           and channel in (${sql.join(
             scopes.map((s) => sql`${s}`),
             sql`, `,
           )})
         order by contact_id, recorded_at desc, (state = 'revoked') desc`,
  );
  const granted = new Set<string>();
  for (const r of consents) {
    if (r.state === 'granted') granted.add(r.contact_id);
    else if (!out.has(r.contact_id)) out.set(r.contact_id, 'consent_revoked');
  }
  if (requireConsent) for (const id of contactIds) if (!out.has(id) && !granted.has(id)) out.set(id, 'no_consent');
  return out;
}

const fieldsOf = (c: ContactRow | undefined, phone: string | null): RecipientFields => ({
  phone,
  name: c?.name ?? null,
  email: c?.email ?? null,
  customFields: c?.custom_fields ?? {},
});

/** The audience's recipients now, in send order, each pending or skipped with its reason. */
export async function resolveAudience(
  db: Executor,
  organizationId: string,
  broadcast: { channelId: string; audience: Audience; requireConsent: boolean; variables: string[] } & RuleBroadcast,
  now: Date,
): Promise<ResolvedRecipient[]> {
  const { audience } = broadcast;
  const found = await audienceContacts(db, organizationId, audience, now);
  const given = (audience.phones ?? []).map((p) => ({ given: p, phone: normalizePhone(p) ?? null }));
  const byPhone = await contactsByPhone(
    db,
    organizationId,
    given.flatMap((g) => (g.phone ? [g.phone] : [])),
  );
  const candidates: Array<{ contact: ContactRow | undefined; phone: string | null; shown: string | null }> = [
    ...found.map((c) => ({ contact: c, phone: c.phone_number, shown: c.phone_number })),
    ...given.map((g) => ({ contact: g.phone ? byPhone.get(g.phone) : undefined, phone: g.phone, shown: g.phone ?? g.given })),
  ];
  const contactIds = [...new Set(candidates.flatMap((c) => (c.contact ? [c.contact.id] : [])))];
  const refused = await refusals(db, contactIds, broadcast.channelId, broadcast.requireConsent, now);
  const seen = new Set<string>();
  const resolved = candidates.map(({ contact, phone, shown }): ResolvedRecipient => {
    const base = { contactId: contact?.id ?? null, phone: shown, fields: fieldsOf(contact, phone) };
    const skip = (reason: SkipReason): ResolvedRecipient => ({ ...base, status: 'skipped', reason, parameters: [] });
    if (!phone) return skip('invalid_number');
    if (seen.has(phone)) return skip('duplicate');
    seen.add(phone);
    const refusal = contact ? refused.get(contact.id) : broadcast.requireConsent ? 'no_consent' : undefined;
    if (refusal) return skip(refusal);
    return { ...base, status: 'pending', reason: null, parameters: fillVariables(broadcast.variables, base.fields) };
  });
  // The channel's and template's rules (audience-rules.ts) on the numbers still to be sent to.
  const ruled = await ruleSkips(
    db,
    organizationId,
    broadcast,
    resolved.flatMap((r) => (r.status === 'pending' ? [r.phone!] : [])),
  );
  if (ruled.size === 0) return resolved;
  return resolved.map((r): ResolvedRecipient => {
    const reason = r.status === 'pending' ? ruled.get(r.phone!) : undefined;
    return reason ? { ...r, status: 'skipped', reason, parameters: [] } : r;
  });
}

/** Counts of a resolution: how many would be sent, and how many skipped by reason. */
export function countResolved(recipients: ResolvedRecipient[]): { total: number; sendable: number; skipped: Record<SkipReason, number> } {
  const skipped = Object.fromEntries(SKIP_REASONS.map((r) => [r, 0])) as Record<SkipReason, number>;
  let sendable = 0;
  for (const r of recipients) {
    if (r.reason) skipped[r.reason]++;
    else sendable++;
  }
  return { total: recipients.length, sendable, skipped };
}
