/**
 * Consents and suppressions of a contact, each kept per channel scope: a channel id of the
 * organization, `chatapp` (every chat-app channel) or `all` (every channel). The send rules
 * (refusalQuery in policy.ts, joined into the statement that accepts messages) are where they take effect.
 */
import { and, asc, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { channels, contactConsents, contactSuppressions } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { invalid, notFound } from '../errors.ts';
import { loadContactRow } from './record.ts';

export const CHANNEL_SCOPES = ['chatapp', 'all'] as const;
export const CONSENT_STATES = ['granted', 'revoked'] as const;
export type ConsentState = (typeof CONSENT_STATES)[number];

/**
 * The stored form of a channel scope: `chatapp`, `all`, or the id of one of the organization's
 * channels. An unknown channel id (or another organization's) is not_found in a path, invalid in a body.
 */
export async function resolveChannelScope(db: Executor, organizationId: string, channel: string, where: 'params' | 'body'): Promise<string> {
  const value = channel.trim().toLowerCase();
  if ((CHANNEL_SCOPES as readonly string[]).includes(value)) return value;
  if (isUuid(value)) {
    const [row] = await db
      .select({ id: channels.id })
      .from(channels)
      .where(and(eq(channels.id, value), eq(channels.organizationId, organizationId)))
      .limit(1);
    if (row) return row.id;
  }
  if (where === 'params') throw notFound('channel');
  throw invalid('channel is not a channel id of this organization, `chatapp` or `all`', [
    { pointer: '/channel', location: 'body', message: 'a channel id of this organization, `chatapp` or `all`' },
  ]);
}

type ConsentRow = typeof contactConsents.$inferSelect;
export type ConsentRecord = { channel: string; state: ConsentState; source: string | null; recorded_at: string; created_at: string; updated_at: string };

function presentConsent(row: ConsentRow): ConsentRecord {
  return {
    channel: row.channel,
    state: row.state as ConsentState,
    source: row.source,
    recorded_at: row.recordedAt.toISOString(),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export type ConsentInput = { state: ConsentState; source?: string | null; recordedAt?: Date };

/** Sets the consent of a contact for a channel scope (one row per scope). `created` tells a new row. */
export async function putConsent(
  db: Executor,
  actor: Actor,
  contactId: string,
  channel: string,
  input: ConsentInput,
  clock: Clock,
): Promise<{ consent: ConsentRecord; created: boolean }> {
  return db.transaction(async (tx) => {
    const contact = await loadContactRow(tx, actor.organizationId, contactId);
    const scope = await resolveChannelScope(tx, actor.organizationId, channel, 'params');
    const now = clock.now();
    const recordedAt = input.recordedAt ?? now;
    if (recordedAt.getTime() > now.getTime() + 5 * 60_000) {
      throw invalid('at must not be in the future', [{ pointer: '/at', location: 'body', message: 'must not be in the future' }]);
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
    return { consent: presentConsent(row!), created: !existing };
  });
}

export async function listConsents(db: Executor, actor: Actor, contactId: string): Promise<ConsentRecord[]> {
  const contact = await loadContactRow(db, actor.organizationId, contactId);
  const rows = await db.select().from(contactConsents).where(eq(contactConsents.contactId, contact.id)).orderBy(asc(contactConsents.createdAt));
  return rows.map(presentConsent);
}

type SuppressionRow = typeof contactSuppressions.$inferSelect;
export type SuppressionRecord = {
  channel: string;
  reason: string;
  expires_at: string | null;
  active: boolean;
  created_at: string;
  updated_at: string;
};

function presentSuppression(row: SuppressionRow, now: Date): SuppressionRecord {
  return {
    channel: row.channel,
    reason: row.reason,
    expires_at: row.expiresAt?.toISOString() ?? null,
    active: !row.expiresAt || row.expiresAt.getTime() > now.getTime(),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export type SuppressionInput = { channel: string; reason: string; expiresAt?: Date | null };

/** Suppresses sending to a contact on a channel scope, or changes the suppression it has there. */
export async function upsertSuppression(
  db: Executor,
  actor: Actor,
  contactId: string,
  input: SuppressionInput,
  clock: Clock,
): Promise<{ suppression: SuppressionRecord; created: boolean }> {
  return db.transaction(async (tx) => {
    const contact = await loadContactRow(tx, actor.organizationId, contactId);
    const scope = await resolveChannelScope(tx, actor.organizationId, input.channel, 'body');
    const now = clock.now();
    if (input.expiresAt && input.expiresAt.getTime() <= now.getTime()) {
      throw invalid('expires_at must be in the future', [{ pointer: '/expires_at', location: 'body', message: 'must be in the future' }]);
    }
    const [existing] = await tx
      .select({ id: contactSuppressions.id })
      .from(contactSuppressions)
      .where(and(eq(contactSuppressions.contactId, contact.id), eq(contactSuppressions.channel, scope)));
    const values = { reason: input.reason, expiresAt: input.expiresAt ?? null, updatedAt: now };
    const [row] = await tx
      .insert(contactSuppressions)
      .values({ id: uuidv7(), organizationId: actor.organizationId, contactId: contact.id, channel: scope, createdAt: now, ...values })
      .onConflictDoUpdate({ target: [contactSuppressions.contactId, contactSuppressions.channel], set: values })
      .returning();
    return { suppression: presentSuppression(row!, now), created: !existing };
  });
}

/** Every suppression of the contact, lapsed ones too (`active` false). */
export async function listSuppressions(db: Executor, actor: Actor, contactId: string, clock: Clock): Promise<SuppressionRecord[]> {
  const contact = await loadContactRow(db, actor.organizationId, contactId);
  const rows = await db.select().from(contactSuppressions).where(eq(contactSuppressions.contactId, contact.id)).orderBy(asc(contactSuppressions.createdAt));
  const now = clock.now();
  return rows.map((r) => presentSuppression(r, now));
}

/** Lifts the suppression of a channel scope; not_found when there is none. */
export async function deleteSuppression(db: Executor, actor: Actor, contactId: string, channel: string): Promise<void> {
  const contact = await loadContactRow(db, actor.organizationId, contactId);
  const value = channel.trim().toLowerCase();
  const rows = await db
    .delete(contactSuppressions)
    .where(and(eq(contactSuppressions.contactId, contact.id), eq(contactSuppressions.channel, value)))
    .returning({ id: contactSuppressions.id });
  if (rows.length === 0) throw notFound('suppression');
}
