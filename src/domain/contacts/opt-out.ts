/**
 * Opt-outs by message: an inbound message that is exactly one of the organization's stop keywords, or
 * the reply of a marketing template's opt-out button, suppresses the contact for marketing (the scope
 * `marketing`: broadcasts skip it); one that is exactly a start keyword lifts a suppression an opt-out
 * made. Keywords compare without case or accents against the whole trimmed text. Each organization
 * keeps its own lists (organizations.opt_out; null: the defaults).
 */
import { and, eq, isNotNull, lte, or } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { contactSuppressions, organizations } from '../../db/schema.ts';
import { uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { invalid, notFound } from '../errors.ts';
import { MARKETING_SCOPE, recordSuppressed, recordUnsuppressed } from './consents.ts';
import { resolveInboundContact } from './inbound.ts';

export type OptOutSettings = {
  /** A message that is exactly one of these suppresses the contact for marketing. */
  stop_keywords: string[];
  /** A message that is exactly one of these lifts the suppression an opt-out made. */
  start_keywords: string[];
  /**
   * The labels of the marketing opt-out button (a template's quick reply, whose reply carries its label,
   * localized by the provider as the template's language): a `button` reply with one of them suppresses.
   */
  opt_out_buttons: string[];
};

export const DEFAULT_OPT_OUT: OptOutSettings = {
  stop_keywords: ['STOP', 'STOPP', 'UNSUBSCRIBE', 'ARRET', 'ARRÊT', 'BAJA', 'CANCELAR', 'PARAR'],
  start_keywords: ['START', 'UNSTOP', 'SUBSCRIBE'],
  opt_out_buttons: ['Stop promotions', 'Parar promoções'],
};

/** The most keywords (or button labels) of one list, and their longest. */
export const OPT_OUT_LIST_MAX = 50;
export const OPT_OUT_KEYWORD_MAX = 64;

export const OPT_OUT_REASONS = { keyword: 'opt_out_keyword', button: 'opt_out_button', preferences: 'opt_out_preferences' } as const;

/** The comparable form of a text: trimmed, inner spaces collapsed, without accents, in lower case. */
export function normalizeKeyword(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').trim().replace(/\s+/g, ' ').toLowerCase();
}

/** The settings as stored, or the defaults. */
export async function loadOptOutSettings(db: Executor, organizationId: string): Promise<OptOutSettings> {
  const [row] = await db.select({ optOut: organizations.optOut }).from(organizations).where(eq(organizations.id, organizationId)).limit(1);
  if (!row) throw notFound('organization');
  return { ...DEFAULT_OPT_OUT, ...(row.optOut ?? {}) };
}

export async function getOptOutSettings({ db }: { db: Executor }, actor: Actor): Promise<OptOutSettings> {
  return loadOptOutSettings(db, actor.organizationId);
}

/**
 * Changes the lists given (each replaced whole; the others stay). A word both a stop and a start
 * keyword is invalid at the start keyword (pointer /start_keywords/N); duplicates (as compared) are dropped.
 */
export async function updateOptOutSettings(
  { db, clock }: { db: Executor; clock: { now(): Date } },
  actor: Actor,
  input: Partial<OptOutSettings>,
): Promise<OptOutSettings> {
  return db.transaction(async (tx) => {
    const current = await loadOptOutSettings(tx, actor.organizationId);
    const next: OptOutSettings = {
      stop_keywords: dedupe(input.stop_keywords ?? current.stop_keywords),
      start_keywords: dedupe(input.start_keywords ?? current.start_keywords),
      opt_out_buttons: dedupe(input.opt_out_buttons ?? current.opt_out_buttons),
    };
    const stops = new Set(next.stop_keywords.map(normalizeKeyword));
    const clash = next.start_keywords.findIndex((k) => stops.has(normalizeKeyword(k)));
    if (clash >= 0) {
      const field = input.start_keywords ? 'start_keywords' : 'stop_keywords';
      const index =
        field === 'start_keywords'
          ? clash
          : next.stop_keywords.findIndex((k) => normalizeKeyword(k) === normalizeKeyword(next.start_keywords[clash]!));
      throw invalid(`${field} must not repeat a ${field === 'start_keywords' ? 'stop' : 'start'} keyword`, [
        { pointer: `/${field}/${index}`, message: 'is both a stop and a start keyword' },
      ]);
    }
    await tx.update(organizations).set({ optOut: next, updatedAt: clock.now() }).where(eq(organizations.id, actor.organizationId));
    return next;
  });
}

function dedupe(list: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of list) {
    const word = raw.trim();
    const key = normalizeKeyword(word);
    if (!key || seen.has(key)) continue;
    seen.add(key);
    out.push(word);
  }
  return out;
}

/** What an inbound message asks for: a marketing opt-out (by keyword or button), an opt-in, or nothing. */
export type OptOutIntent = { kind: 'stop'; reason: string } | { kind: 'start' } | null;

/** Reads the intent of a message of `type` with `content` (as stored) against the settings. */
export function optOutIntent(settings: OptOutSettings, type: string, content: Record<string, unknown>): OptOutIntent {
  const has = (list: string[], text: unknown) =>
    typeof text === 'string' && list.some((k) => normalizeKeyword(k) === normalizeKeyword(text));
  if (type === 'text') {
    if (has(settings.stop_keywords, content.body)) return { kind: 'stop', reason: OPT_OUT_REASONS.keyword };
    if (has(settings.start_keywords, content.body)) return { kind: 'start' };
    return null;
  }
  // A template's quick reply: its label (text) and payload (the label, unless the send set one).
  if (type === 'button') {
    if (has(settings.opt_out_buttons, content.text) || has(settings.opt_out_buttons, content.payload))
      return { kind: 'stop', reason: OPT_OUT_REASONS.button };
    if (has(settings.stop_keywords, content.text)) return { kind: 'stop', reason: OPT_OUT_REASONS.button };
  }
  return null;
}

/**
 * Applies an inbound message's opt-out or opt-in, in the transaction storing it (called once, when the
 * message is new, for a contact's own chat). A stop creates the contact's marketing suppression with
 * contact.suppressed unless one holds already (then nothing: a second STOP records no event); a lapsed
 * one is renewed. A start lifts the marketing suppression only when an opt-out made it (message_id set),
 * with contact.unsuppressed; one an operator set stays.
 */
export async function recordInboundOptOut(
  tx: Executor,
  message: { id: string; organizationId: string; contactId: string | null; type: string; content: Record<string, unknown> },
  at: Date,
): Promise<void> {
  if (!message.contactId || (message.type !== 'text' && message.type !== 'button')) return;
  // No keyword is longer: most messages are, and need not read the settings.
  const said = [message.content.body, message.content.text, message.content.payload];
  if (!said.some((t) => typeof t === 'string' && t.trim().length <= OPT_OUT_KEYWORD_MAX)) return;
  const settings = await loadOptOutSettings(tx, message.organizationId);
  const intent = optOutIntent(settings, message.type, message.content);
  if (!intent) return;
  if (intent.kind === 'start') return liftOptOut(tx, message.contactId, message.id, at);
  await optOut(tx, message.organizationId, message.contactId, intent.reason, message.id, at);
}

/** Lifts the contact's marketing suppression when the customer made it (a message, or the phone's control), with contact.unsuppressed. */
async function liftOptOut(tx: Executor, contactId: string, messageId: string | null, at: Date): Promise<void> {
  const scope = and(eq(contactSuppressions.contactId, contactId), eq(contactSuppressions.channel, MARKETING_SCOPE));
  const [lifted] = await tx
    .delete(contactSuppressions)
    .where(and(scope, or(isNotNull(contactSuppressions.messageId), eq(contactSuppressions.reason, OPT_OUT_REASONS.preferences))))
    .returning();
  if (lifted) await recordUnsuppressed(tx, lifted, messageId, at);
}

/** The contact's marketing suppression, made (or a lapsed one renewed) with contact.suppressed; a live one is left as it is. */
async function optOut(
  tx: Executor,
  organizationId: string,
  contactId: string,
  reason: string,
  messageId: string | null,
  at: Date,
): Promise<void> {
  const values = { reason, expiresAt: null, messageId, updatedAt: at };
  // Inserted, or a lapsed one renewed; a live one (an opt-out's or an operator's) is left as it is.
  const [row] = await tx
    .insert(contactSuppressions)
    .values({
      id: uuidv7(),
      organizationId,
      contactId,
      channel: MARKETING_SCOPE,
      createdAt: at,
      ...values,
    })
    .onConflictDoUpdate({
      target: [contactSuppressions.contactId, contactSuppressions.channel],
      set: values,
      setWhere: and(isNotNull(contactSuppressions.expiresAt), lte(contactSuppressions.expiresAt, at)),
    })
    .returning();
  if (row) await recordSuppressed(tx, row, at);
}

/**
 * The provider's report that a customer stopped or resumed marketing messages on the phone's own control
 * (official `user_preferences`): stop suppresses the contact for marketing (reason `opt_out_preferences`,
 * no message), resume lifts a suppression the customer made; the contact is found, or made, by the number.
 */
export async function recordMarketingPreference(
  tx: Executor,
  organizationId: string,
  event: { from: string; profileName?: string; value: 'stop' | 'resume' },
  at: Date,
): Promise<void> {
  const { contactId } = await resolveInboundContact(tx, organizationId, {
    phone: `+${event.from}`,
    ...(event.profileName ? { profileName: event.profileName } : {}),
    identities: [],
    at,
  });
  if (event.value === 'resume') return liftOptOut(tx, contactId, null, at);
  await optOut(tx, organizationId, contactId, OPT_OUT_REASONS.preferences, null, at);
}
