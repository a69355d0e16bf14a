/**
 * Consents and suppressions of a contact, each kept per channel scope: a channel id of the
 * organization, `chatapp` (every chat-app channel) or `all` (every channel). The send rules
 * (refusalQuery in policy.ts, joined into the statement that accepts messages) are where they take effect.
 * A suppression may also have the scope `marketing`: marketing sends (broadcasts) skip the contact on
 * every channel, other sends are not refused (opt-outs create it: opt-out.ts).
 */
import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { channels, contactConsents, contactSuppressions } from '../../db/schema.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { invalid, notFound } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';
import { loadContactRow, type ContactDeps, type ContactClockDeps } from './record.ts';

export const CHANNEL_SCOPES = ['chatapp', 'all'] as const;
/** The scope of a marketing suppression: marketing sends on every channel. */
export const MARKETING_SCOPE = 'marketing';
/** What a suppression's scope may be besides a channel id. */
export const SUPPRESSION_SCOPES = [...CHANNEL_SCOPES, MARKETING_SCOPE] as const;
export const CONSENT_STATES = ['granted', 'revoked'] as const;
export type ConsentState = (typeof CONSENT_STATES)[number];

/**
 * The stored form of a channel scope: `chatapp`, `all`, or the id of one of the organization's
 * channels; undefined for an unknown channel id (or another organization's).
 */
export async function resolveChannelScope(
  db: Executor,
  organizationId: string,
  channel: string,
  named: readonly string[] = CHANNEL_SCOPES,
): Promise<string | undefined> {
  const value = channel.trim().toLowerCase();
  if (named.includes(value)) return value;
  if (!isUuid(value)) return undefined;
  const [row] = await db
    .select({ id: channels.id })
    .from(channels)
    .where(and(eq(channels.id, value), eq(channels.organizationId, organizationId)))
    .limit(1);
  return row?.id;
}

/** The refusal of a consent or suppression naming a channel the organization does not have: the caller says how that input was given. */
export type UnknownChannelScope = { ok: false; refusal: 'unknown_channel' };
const unknownChannelScope: UnknownChannelScope = { ok: false, refusal: 'unknown_channel' };

export type ConsentRow = typeof contactConsents.$inferSelect;

export type ConsentInput = { contactId: string; channel: string; state: ConsentState; source?: string | null; at?: Date };

/**
 * Sets the consent of a contact for a channel scope (one row per scope). `created` tells a new row.
 * A time in the future is invalid at /at.
 */
export async function putConsent(
  { db, clock }: ContactClockDeps,
  actor: Actor,
  input: ConsentInput,
): Promise<{ ok: true; consent: ConsentRow; created: boolean } | UnknownChannelScope> {
  return db.transaction(async (tx) => {
    const contact = await loadContactRow(tx, actor.organizationId, input.contactId, { lock: true });
    const scope = await resolveChannelScope(tx, actor.organizationId, input.channel);
    if (!scope) return unknownChannelScope;
    const now = clock.now();
    const recordedAt = input.at ?? now;
    if (recordedAt.getTime() > now.getTime() + 5 * 60_000) {
      throw invalid('at must not be in the future', [{ pointer: '/at', message: 'must not be in the future' }]);
    }
    const [existing] = await tx
      .select({ id: contactConsents.id })
      .from(contactConsents)
      .where(and(eq(contactConsents.contactId, contact.id), eq(contactConsents.channel, scope)));
    const values = { state: input.state, source: input.source ?? null, recordedAt, updatedAt: now };
    const [row] = await tx
      .insert(contactConsents)
      .values({ id: uuidv7(), organizationId: actor.organizationId, contactId: contact.id, channel: scope, createdAt: now, ...values })
      .onConflictDoUpdate({ target: [contactConsents.contactId, contactConsents.channel], set: values })
      .returning();
    return { ok: true as const, consent: row!, created: !existing };
  });
}

export async function listConsents({ db }: ContactDeps, actor: Actor, { contactId }: { contactId: string }): Promise<ConsentRow[]> {
  const contact = await loadContactRow(db, actor.organizationId, contactId);
  return db.select().from(contactConsents).where(eq(contactConsents.contactId, contact.id)).orderBy(asc(contactConsents.createdAt));
}

/** A suppression, and whether it holds now (false once expiresAt has passed). */
export type SuppressionState = typeof contactSuppressions.$inferSelect & { active: boolean };

const stateAt = (row: typeof contactSuppressions.$inferSelect, now: Date): SuppressionState => ({
  ...row,
  active: !row.expiresAt || row.expiresAt.getTime() > now.getTime(),
});

export type SuppressionInput = { contactId: string; channel: string; reason: string; expiresAt?: Date | null };

/** Suppresses sending to a contact on a channel scope, or changes the suppression it has there. An expiry not in the future is invalid at /expires_at. */
export async function upsertSuppression(
  { db, clock }: ContactClockDeps,
  actor: Actor,
  input: SuppressionInput,
): Promise<{ ok: true; suppression: SuppressionState; created: boolean } | UnknownChannelScope> {
  return db.transaction(async (tx) => {
    const contact = await loadContactRow(tx, actor.organizationId, input.contactId, { lock: true });
    const scope = await resolveChannelScope(tx, actor.organizationId, input.channel, SUPPRESSION_SCOPES);
    if (!scope) return unknownChannelScope;
    const now = clock.now();
    if (input.expiresAt && input.expiresAt.getTime() <= now.getTime()) {
      throw invalid('expires_at must be in the future', [{ pointer: '/expires_at', message: 'must be in the future' }]);
    }
    const [existing] = await tx
      .select()
      .from(contactSuppressions)
      .where(and(eq(contactSuppressions.contactId, contact.id), eq(contactSuppressions.channel, scope)));
    const values = { reason: input.reason, expiresAt: input.expiresAt ?? null, messageId: null, updatedAt: now };
    const [row] = await tx
      .insert(contactSuppressions)
      .values({ id: uuidv7(), organizationId: actor.organizationId, contactId: contact.id, channel: scope, createdAt: now, ...values })
      .onConflictDoUpdate({ target: [contactSuppressions.contactId, contactSuppressions.channel], set: values })
      .returning();
    // contact.suppressed when the contact was not suppressed there (no row, or a lapsed one); a change of reason or expiry records nothing.
    if (!existing || !stateAt(existing, now).active) await recordSuppressed(tx, row!, now);
    return { ok: true as const, suppression: stateAt(row!, now), created: !existing };
  });
}

/** Every suppression of the contact, lapsed ones too (`active` false). */
export async function listSuppressions(
  { db, clock }: ContactClockDeps,
  actor: Actor,
  { contactId }: { contactId: string },
): Promise<SuppressionState[]> {
  const contact = await loadContactRow(db, actor.organizationId, contactId);
  const rows = await db
    .select()
    .from(contactSuppressions)
    .where(eq(contactSuppressions.contactId, contact.id))
    .orderBy(asc(contactSuppressions.createdAt));
  const now = clock.now();
  return rows.map((r) => stateAt(r, now));
}

/** Lifts the suppression of a channel scope; not_found when there is none. */
export async function deleteSuppression(
  { db, clock }: ContactClockDeps,
  actor: Actor,
  { contactId, channel }: { contactId: string; channel: string },
): Promise<void> {
  await db.transaction(async (tx) => {
    const contact = await loadContactRow(tx, actor.organizationId, contactId);
    const value = channel.trim().toLowerCase();
    const [row] = await tx
      .delete(contactSuppressions)
      .where(and(eq(contactSuppressions.contactId, contact.id), eq(contactSuppressions.channel, value)))
      .returning();
    if (!row) throw notFound('suppression');
    await recordUnsuppressed(tx, row, null, clock.now());
  });
}

type SuppressionRow = typeof contactSuppressions.$inferSelect;

const suppressionBody = (row: SuppressionRow, messageId: string | null) => ({
  contact_id: row.contactId,
  channel: row.channel,
  reason: row.reason,
  expires_at: row.expiresAt?.toISOString() ?? null,
  message_id: messageId,
  organization_id: row.organizationId,
});

/** Records contact.suppressed for a suppression just made (message_id its own: the message of an opt-out, or null). */
export async function recordSuppressed(tx: Executor, row: SuppressionRow, at: Date): Promise<void> {
  await recordEvent(tx, row.organizationId, 'contact.suppressed', suppressionBody(row, row.messageId), at);
}

/** Records contact.unsuppressed for a suppression just lifted, by the message given (a start keyword) or null (the API). */
export async function recordUnsuppressed(tx: Executor, row: SuppressionRow, messageId: string | null, at: Date): Promise<void> {
  await recordEvent(tx, row.organizationId, 'contact.unsuppressed', suppressionBody(row, messageId), at);
}

/**
 * Whether a contact (a column or parameter) has a live marketing suppression at `at`, as a condition
 * marketing sends (broadcasts) add to their audience: `not (${marketingSuppressed(...)})` skips the
 * contact. Other scopes (a channel, `chatapp`, `all`) refuse every send already (policy.ts).
 */
export function marketingSuppressed(contactId: SQL, at: SQL): SQL {
  return sql`exists (select 1 from contact_suppressions ms
     where ms.contact_id = ${contactId} and ms.channel = ${MARKETING_SCOPE}
       and (ms.expires_at is null or ms.expires_at > ${at}))`;
}
