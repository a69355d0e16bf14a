/**
 * A broadcast's quiet hours: a daily span ("21:00" to "08:00", in the organization's time zone, crossing
 * midnight when it ends before it starts) in which nothing of it is sent. The runner asks quietUntil
 * before each share and, inside the span, waits until its end (the broadcast's next run).
 */
import { localDayMinute, zonedInstant } from '../business-hours/hours.ts';

export type QuietHours = { start: string; end: string };

const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;
const minutesOf = (text: string) => {
  const m = TIME.exec(text);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
};

/** What is wrong with quiet hours, as {pointer, message} under `pointer`; none when they are right. */
export function checkQuietHours(q: QuietHours, pointer = '/quiet_hours'): Array<{ pointer: string; message: string }> {
  const errors = [];
  for (const end of ['start', 'end'] as const) {
    if (minutesOf(q[end]) === null) errors.push({ pointer: `${pointer}/${end}`, message: 'a time HH:MM (00:00 to 23:59)' });
  }
  if (errors.length === 0 && q.start === q.end) errors.push({ pointer, message: 'start and end are the same time: no quiet hours' });
  return errors;
}

/** The end of the quiet hours `at` is in (in `zone`), or null when it is outside them. */
export function quietUntil(q: QuietHours | null | undefined, zone: string, at: Date): Date | null {
  if (!q) return null;
  const start = minutesOf(q.start);
  const end = minutesOf(q.end);
  if (start === null || end === null || start === end) return null;
  const { day, minute } = localDayMinute(zone, at);
  if (start < end) return minute >= start && minute < end ? zonedInstant(zone, day, end) : null;
  // Across midnight: from start to 24:00 today (ends tomorrow), or from 00:00 to end.
  if (minute >= start) return zonedInstant(zone, day + 1, end);
  if (minute < end) return zonedInstant(zone, day, end);
  return null;
}
