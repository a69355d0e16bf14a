/**
 * Business hours settings: the organization's (organizations.business_hours), each field of which a
 * channel may replace with its own (channels.business_hours; a field absent there is inherited). The
 * hours (hours.ts) say when the team answers; the away message goes to a customer who writes outside
 * them, the greeting to a first contact (auto-replies.ts).
 */
import { eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { channels, organizations } from '../../db/schema.ts';
import type { Actor } from '../actor.ts';
import { loadChannel } from '../channels/channels.ts';
import { invalid, notFound, type FieldError } from '../errors.ts';
import {
  dayOf,
  formatInterval,
  hoursStatus,
  isTimeZone,
  parseInterval,
  WEEKDAYS,
  type Holiday,
  type HoursStatus,
  type Weekday,
} from './hours.ts';

/** An approved template sent as the away message outside the customer-service window (no parameters). */
export type AwayTemplate = { name: string; language: { code: string } };

export type BusinessHoursSettings = {
  time_zone: string;
  /** Null: no hours, always open (no away message is ever sent). */
  weekly_hours: Record<Weekday, string[]> | null;
  holidays: Holiday[];
  /** The away message's text; null: none. */
  away_message: string | null;
  /** Sent instead when the window is closed; null: nothing then. */
  away_template: AwayTemplate | null;
  /** At most one away message a conversation in this many hours. */
  away_every_hours: number;
  /** The text sent to a new contact's first message; null: none. */
  greeting_message: string | null;
};

export const BUSINESS_HOURS_FIELDS = [
  'time_zone',
  'weekly_hours',
  'holidays',
  'away_message',
  'away_template',
  'away_every_hours',
  'greeting_message',
] as const;
export type BusinessHoursField = (typeof BUSINESS_HOURS_FIELDS)[number];

export const DEFAULT_BUSINESS_HOURS: BusinessHoursSettings = {
  time_zone: 'UTC',
  weekly_hours: null,
  holidays: [],
  away_message: null,
  away_template: null,
  away_every_hours: 24,
  greeting_message: null,
};

export const HOLIDAYS_MAX = 200;
/** The longest holiday, in days. */
export const HOLIDAY_DAYS_MAX = 366;
export const INTERVALS_PER_DAY_MAX = 10;

/** A holiday as given: one date, or a range (both ends included). */
export type HolidayInput = { date?: string; from?: string; to?: string; name?: string | null };

export type BusinessHoursInput = Partial<Omit<BusinessHoursSettings, 'holidays' | 'weekly_hours'>> & {
  /** A weekday left out is closed. */
  weekly_hours?: Partial<Record<Weekday, string[]>> | null;
  holidays?: HolidayInput[];
};

/**
 * Whether a bot owns the conversation (domain/bots), in which case no away message or greeting is sent:
 * read from the conversation's bot_id as loaded with it (no query).
 */
export function botOwnsConversation(conversation: { botId: string | null }): boolean {
  return conversation.botId !== null;
}

// ---------------------------------------------------------------------------------------------
// Validation

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const isDate = (s: string) =>
  DATE.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s);

/** The fields given, checked and normalized (intervals sorted as "HH:MM-HH:MM", holidays as ranges): 400 naming each bad field. */
export function normalizeInput(input: BusinessHoursInput): Partial<BusinessHoursSettings> {
  const errors: FieldError[] = [];
  const out: Partial<BusinessHoursSettings> = {};
  if (input.time_zone !== undefined) {
    if (isTimeZone(input.time_zone))
      out.time_zone = new Intl.DateTimeFormat('en-US', { timeZone: input.time_zone }).resolvedOptions().timeZone;
    else errors.push({ pointer: '/time_zone', message: `${JSON.stringify(input.time_zone)} is not an IANA time zone (e.g. Europe/Paris)` });
  }
  if (input.weekly_hours !== undefined) {
    if (input.weekly_hours === null) out.weekly_hours = null;
    else {
      const week = {} as Record<Weekday, string[]>;
      for (const day of WEEKDAYS) {
        const given = input.weekly_hours[day] ?? [];
        const parsed: Array<{ start: number; end: number; index: number }> = [];
        given.forEach((text, index) => {
          const i = parseInterval(text);
          if (typeof i === 'string') errors.push({ pointer: `/weekly_hours/${day}/${index}`, message: i });
          else parsed.push({ ...i, index });
        });
        parsed.sort((a, b) => a.start - b.start);
        for (let k = 1; k < parsed.length; k++) {
          if (parsed[k]!.start < parsed[k - 1]!.end)
            errors.push({
              pointer: `/weekly_hours/${day}/${parsed[k]!.index}`,
              message: `overlaps ${JSON.stringify(given[parsed[k - 1]!.index])}`,
            });
        }
        week[day] = parsed.map(formatInterval);
      }
      out.weekly_hours = week;
    }
  }
  if (input.holidays !== undefined) {
    const holidays: Holiday[] = [];
    input.holidays.forEach((h, index) => {
      const pointer = `/holidays/${index}`;
      const from = h.date ?? h.from;
      const to = h.date ?? h.to ?? h.from;
      if (h.date !== undefined && (h.from !== undefined || h.to !== undefined))
        return errors.push({ pointer, message: 'either date, or from and to' });
      if (from === undefined || to === undefined)
        return errors.push({ pointer: `${pointer}/date`, message: 'a date, or from and to, is required' });
      const fromField = h.date !== undefined ? 'date' : 'from';
      if (!isDate(from)) return errors.push({ pointer: `${pointer}/${fromField}`, message: 'not a date YYYY-MM-DD' });
      if (!isDate(to)) return errors.push({ pointer: `${pointer}/to`, message: 'not a date YYYY-MM-DD' });
      if (to < from) return errors.push({ pointer: `${pointer}/to`, message: 'is before from' });
      if (dayOf(to) - dayOf(from) + 1 > HOLIDAY_DAYS_MAX)
        return errors.push({ pointer: `${pointer}/to`, message: `a holiday lasts at most ${HOLIDAY_DAYS_MAX} days` });
      holidays.push({ from, to, name: h.name?.trim() || null });
    });
    out.holidays = holidays.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
  }
  if (input.away_message !== undefined) out.away_message = input.away_message?.trim() || null;
  if (input.away_template !== undefined) out.away_template = input.away_template;
  if (input.away_every_hours !== undefined) out.away_every_hours = input.away_every_hours;
  if (input.greeting_message !== undefined) out.greeting_message = input.greeting_message?.trim() || null;
  if (errors.length > 0) throw invalid(`business hours: ${errors[0]!.pointer.slice(1)} ${errors[0]!.message}`, errors);
  return out;
}

// ---------------------------------------------------------------------------------------------
// The organization's

async function orgStored(db: Executor, organizationId: string): Promise<Partial<BusinessHoursSettings>> {
  const [row] = await db
    .select({ v: organizations.businessHours })
    .from(organizations)
    .where(eq(organizations.id, organizationId))
    .limit(1);
  if (!row) throw notFound('organization');
  return (row.v ?? {}) as Partial<BusinessHoursSettings>;
}

export async function getOrganizationBusinessHours({ db }: { db: Executor }, actor: Actor): Promise<BusinessHoursSettings> {
  return { ...DEFAULT_BUSINESS_HOURS, ...(await orgStored(db, actor.organizationId)) };
}

export async function updateOrganizationBusinessHours(
  { db, clock }: { db: Executor; clock: { now(): Date } },
  actor: Actor,
  input: BusinessHoursInput,
): Promise<BusinessHoursSettings> {
  const changes = normalizeInput(input);
  return db.transaction(async (tx) => {
    const next = { ...(await orgStored(tx, actor.organizationId)), ...changes };
    await tx.update(organizations).set({ businessHours: next, updatedAt: clock.now() }).where(eq(organizations.id, actor.organizationId));
    return { ...DEFAULT_BUSINESS_HOURS, ...next };
  });
}

// ---------------------------------------------------------------------------------------------
// A channel's

export type ChannelBusinessHours = {
  /** The fields the channel sets itself (the others are the organization's). */
  overridden: BusinessHoursField[];
  /** What applies to the channel. */
  effective: BusinessHoursSettings;
};

/** The settings that apply to a channel: its own fields over the organization's over the defaults. */
export async function effectiveBusinessHours(db: Executor, channelId: string): Promise<ChannelBusinessHours | null> {
  const [row] = await db
    .select({ org: organizations.businessHours, own: channels.businessHours })
    .from(channels)
    .innerJoin(organizations, eq(organizations.id, channels.organizationId))
    .where(eq(channels.id, channelId))
    .limit(1);
  if (!row) return null;
  const own = (row.own ?? {}) as Partial<BusinessHoursSettings>;
  return {
    overridden: BUSINESS_HOURS_FIELDS.filter((f) => f in own),
    effective: { ...DEFAULT_BUSINESS_HOURS, ...((row.org ?? {}) as Partial<BusinessHoursSettings>), ...own },
  };
}

export async function getChannelBusinessHours({ db }: { db: Executor }, actor: Actor, channelId: string): Promise<ChannelBusinessHours> {
  const channel = await loadChannel(db, actor, channelId);
  return (await effectiveBusinessHours(db, channel.id))!;
}

/** Sets the channel's own fields given; those named in `inherit` go back to the organization's. */
export async function updateChannelBusinessHours(
  { db, clock }: { db: Executor; clock: { now(): Date } },
  actor: Actor,
  channelId: string,
  input: BusinessHoursInput & { inherit?: BusinessHoursField[] },
): Promise<ChannelBusinessHours> {
  const { inherit = [], ...fields } = input;
  const clash = inherit.findIndex((f) => f in fields);
  if (clash >= 0)
    throw invalid(`inherit names ${inherit[clash]}, which is also given`, [
      { pointer: `/inherit/${clash}`, message: 'also given a value' },
    ]);
  const changes = normalizeInput(fields);
  return db.transaction(async (tx) => {
    const channel = await loadChannel(tx, actor, channelId);
    const next: Record<string, unknown> = { ...(channel.businessHours ?? {}), ...changes };
    for (const f of inherit) delete next[f];
    await tx
      .update(channels)
      .set({ businessHours: Object.keys(next).length > 0 ? next : null, updatedAt: clock.now() })
      .where(eq(channels.id, channel.id));
    return (await effectiveBusinessHours(tx, channel.id))!;
  });
}

// ---------------------------------------------------------------------------------------------
// Status

export type BusinessHoursStatus = HoursStatus & { time_zone: string; at: Date };

export async function organizationBusinessHoursStatus(
  deps: { db: Executor; clock: { now(): Date } },
  actor: Actor,
): Promise<BusinessHoursStatus> {
  const settings = await getOrganizationBusinessHours(deps, actor);
  const at = deps.clock.now();
  return { ...hoursStatus(settings, at), time_zone: settings.time_zone, at };
}

export async function channelBusinessHoursStatus(
  deps: { db: Executor; clock: { now(): Date } },
  actor: Actor,
  channelId: string,
): Promise<BusinessHoursStatus> {
  const { effective } = await getChannelBusinessHours(deps, actor, channelId);
  const at = deps.clock.now();
  return { ...hoursStatus(effective, at), time_zone: effective.time_zone, at };
}
