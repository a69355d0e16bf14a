/**
 * The organization's satisfaction survey settings (organizations.csat; null: the defaults, off): whether
 * a resolved conversation is asked for a rating, the question and the five answers' labels (the
 * organization's language), the thanks sent after an answer, how long an answer is taken, and which
 * channels ask (null: every channel).
 */
import { eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { organizations } from '../../db/schema.ts';
import type { Actor } from '../actor.ts';
import { notFound } from '../errors.ts';

export type CsatSettings = {
  enabled: boolean;
  /** The request's text (the list message's body). */
  question: string;
  /** The list's button (what opens the choices where the platform shows lists). */
  button_text: string;
  /** The labels of the ratings 1 to 5, in that order. */
  rating_labels: [string, string, string, string, string];
  /** Sent after an answer; null: nothing. */
  thanks_message: string | null;
  /** An answer is taken this long after the request. */
  expire_hours: number;
  /** The channels whose conversations are asked; null: every channel. */
  channel_ids: string[] | null;
};

export const DEFAULT_CSAT: CsatSettings = {
  enabled: false,
  question: 'How would you rate the help you got today? Reply with a number from 1 (very poor) to 5 (excellent).',
  button_text: 'Rate us',
  rating_labels: ['Very poor', 'Poor', 'Okay', 'Good', 'Excellent'],
  thanks_message: 'Thank you for your feedback!',
  expire_hours: 24,
  channel_ids: null,
};

export const CSAT_QUESTION_MAX = 1024;
export const CSAT_BUTTON_MAX = 20;
export const CSAT_LABEL_MAX = 24;
export const CSAT_THANKS_MAX = 1024;
export const CSAT_EXPIRE_HOURS_MAX = 168;
export const CSAT_CHANNELS_MAX = 100;

/** The settings as stored, or the defaults. */
export async function loadCsatSettings(db: Executor, organizationId: string): Promise<CsatSettings> {
  const [row] = await db.select({ csat: organizations.csat }).from(organizations).where(eq(organizations.id, organizationId)).limit(1);
  if (!row) throw notFound('organization');
  return { ...DEFAULT_CSAT, ...((row.csat ?? {}) as Partial<CsatSettings>) };
}

export const getCsatSettings = ({ db }: { db: Executor }, actor: Actor) => loadCsatSettings(db, actor.organizationId);

/** Changes the fields given; the others stay. Channel ids are kept as given (lower case); an unknown one simply never matches. */
export async function updateCsatSettings(
  { db, clock }: { db: Executor; clock: { now(): Date } },
  actor: Actor,
  input: Partial<CsatSettings>,
): Promise<CsatSettings> {
  return db.transaction(async (tx) => {
    const current = await loadCsatSettings(tx, actor.organizationId);
    const given = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Partial<CsatSettings>;
    const next: CsatSettings = {
      ...current,
      ...given,
      channel_ids: given.channel_ids === undefined ? current.channel_ids : (given.channel_ids?.map((id) => id.toLowerCase()) ?? null),
    };
    await tx.update(organizations).set({ csat: next, updatedAt: clock.now() }).where(eq(organizations.id, actor.organizationId));
    return next;
  });
}
