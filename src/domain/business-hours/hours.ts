/**
 * Business hours as a pure computation: a time zone (IANA, checked with Intl), weekly hours (per
 * weekday, intervals of local wall-clock time, none: closed that day) and holidays (local dates or date
 * ranges, closed all day). Whether they are open at an instant, and when that next changes, are read in
 * the zone's own time, DST included: 09:00 is 09:00 local on both sides of a change.
 */

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** An interval of one day, in minutes since local midnight: start < end, end at most 1440 (24:00). */
export type Interval = { start: number; end: number };

export type Holiday = { from: string; to: string; name: string | null };

export type Hours = {
  time_zone: string;
  /** Null: no hours set, always open. */
  weekly_hours: Record<Weekday, string[]> | null;
  holidays: Holiday[];
};

export type HoursStatus = {
  open: boolean;
  /** `always_open` (no weekly hours), `hours` (inside or outside the week's hours), `holiday`. */
  reason: 'always_open' | 'hours' | 'holiday';
  holiday: string | null;
  /** The next instant it opens or closes, within a year and a bit; null: never (always open, or never open). */
  next_change_at: Date | null;
};

/** Whether `zone` is a time zone Intl knows (an IANA name, or UTC). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone.length > 0;
  } catch {
    return false;
  }
}

const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** "HH:MM" as minutes, 24:00 allowed as an end; null when malformed. */
function minutesOf(text: string, isEnd: boolean): number | null {
  if (isEnd && text === '24:00') return 1440;
  const m = TIME.exec(text);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

/** An interval "09:00-17:30" (a hyphen or an en dash), or why not. */
export function parseInterval(text: string): Interval | string {
  const parts = text.split(/\s*[-–]\s*/);
  if (parts.length !== 2) return 'must be "HH:MM-HH:MM"';
  const start = minutesOf(parts[0]!.trim(), false);
  const end = minutesOf(parts[1]!.trim(), true);
  if (start === null) return `start ${JSON.stringify(parts[0])} is not a time HH:MM (00:00 to 23:59)`;
  if (end === null) return `end ${JSON.stringify(parts[1])} is not a time HH:MM (00:01 to 24:00)`;
  if (end <= start) return 'must end after it starts (an interval past midnight is two: one each day)';
  return { start, end };
}

export const formatInterval = (i: Interval) => `${hhmm(i.start)}-${hhmm(i.end)}`;
const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    if (formatters.size > 1000) formatters.clear();
    formatters.set(zone, f);
  }
  return f;
}

/** The wall clock of `zone` at an instant. */
export function wallClock(zone: string, at: Date): { y: number; mo: number; d: number; h: number; mi: number; s: number } {
  const parts: Record<string, number> = {};
  for (const p of formatter(zone).formatToParts(at)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { y: parts.year!, mo: parts.month!, d: parts.day!, h: parts.hour! % 24, mi: parts.minute!, s: parts.second! };
}

/** The zone's offset from UTC at an instant, in ms. */
function offsetAt(zone: string, at: Date): number {
  const w = wallClock(zone, at);
  return Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi, w.s) - Math.floor(at.getTime() / 1000) * 1000;
}

/**
 * The instant a local day's minute happens in `zone`. A time skipped by a DST change (02:30 on the day
 * clocks go forward) comes out as the instant after the gap's start by as much; a repeated one is its first.
 */
export function zonedInstant(zone: string, day: number, minute: number): Date {
  const naive = day * 86_400_000 + minute * 60_000;
  const guess = naive - offsetAt(zone, new Date(naive));
  return new Date(naive - offsetAt(zone, new Date(guess)));
}

/** A local date "YYYY-MM-DD" as days since 1970-01-01. */
export const dayOf = (date: string) => Math.floor(Date.parse(`${date}T00:00:00Z`) / 86_400_000);
const dateOf = (day: number) => new Date(day * 86_400_000).toISOString().slice(0, 10);
/** Monday 0 … Sunday 6 (1970-01-01 was a Thursday). */
const weekdayOf = (day: number) => (((day + 3) % 7) + 7) % 7;

/** The holiday covering a local day, if any. */
function holidayOn(hours: Hours, day: number): Holiday | undefined {
  const date = dateOf(day);
  return hours.holidays.find((h) => h.from <= date && date <= h.to);
}

function intervalsOf(hours: Hours, day: number): Interval[] {
  if (!hours.weekly_hours || holidayOn(hours, day)) return [];
  return hours.weekly_hours[WEEKDAYS[weekdayOf(day)]!]
    .map((t) => parseInterval(t))
    .filter((i): i is Interval => typeof i !== 'string')
    .sort((a, b) => a.start - b.start);
}

/** The open spans of local days from `firstDay` on, as instants, adjacent ones merged (Monday to 24:00 and Tuesday from 00:00 are one). */
function* openSpans(hours: Hours, firstDay: number, days: number): Generator<{ from: number; to: number }> {
  let current: { from: number; to: number } | null = null;
  for (let day = firstDay; day < firstDay + days; day++) {
    for (const i of intervalsOf(hours, day)) {
      const from = zonedInstant(hours.time_zone, day, i.start).getTime();
      const to = zonedInstant(hours.time_zone, day, i.end).getTime();
      if (current && from <= current.to) current.to = Math.max(current.to, to);
      else {
        if (current) yield current;
        current = { from, to };
      }
    }
  }
  if (current) yield current;
}

/** How far ahead the next change is looked for: a year of holidays and a week past it. */
const LOOKAHEAD_DAYS = 380;

/** Open or closed at `at`, and when that changes next. */
export function hoursStatus(hours: Hours, at: Date): HoursStatus {
  if (!hours.weekly_hours) return { open: true, reason: 'always_open', holiday: null, next_change_at: null };
  const w = wallClock(hours.time_zone, at);
  const today = Math.floor(Date.UTC(w.y, w.mo - 1, w.d) / 86_400_000);
  const now = at.getTime();
  const holiday = holidayOn(hours, today);
  // From yesterday: an interval to 24:00 merged with today's from 00:00 is open across midnight.
  for (const span of openSpans(hours, today - 1, LOOKAHEAD_DAYS)) {
    if (span.to <= now) continue;
    const open = span.from <= now;
    return {
      open,
      reason: holiday && !open ? 'holiday' : 'hours',
      holiday: holiday && !open ? holiday.name : null,
      next_change_at: new Date(open ? span.to : span.from),
    };
  }
  return { open: false, reason: holiday ? 'holiday' : 'hours', holiday: holiday?.name ?? null, next_change_at: null };
}

/** Whether the hours are open at `at` (no next change computed). */
export function isOpen(hours: Hours, at: Date): boolean {
  if (!hours.weekly_hours) return true;
  const w = wallClock(hours.time_zone, at);
  const today = Math.floor(Date.UTC(w.y, w.mo - 1, w.d) / 86_400_000);
  const minute = w.h * 60 + w.mi;
  return intervalsOf(hours, today).some((i) => i.start <= minute && minute < i.end);
}
