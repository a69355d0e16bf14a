/**
 * What the create flow shows before anything is sent: the template's body with its variables filled for
 * a sample contact by the server's own code (domain/broadcasts/variables.ts, which imports nothing at run
 * time), and a send time typed in the organization's time zone as the instant the API takes.
 */
import { dayOf, wallClock, zonedInstant } from '../../../domain/business-hours/hours.ts';
import { fillVariables } from '../../../domain/broadcasts/variables.ts';

/** The contact fields a variable reads (a contact record of the API, or nothing: every default). */
export type SampleContact = {
  phone_number: string | null;
  name: string | null;
  email: string | null;
  custom_fields: Record<string, unknown>;
};

/** The body's `{{n}}` replaced by the n-th variable as filled for `contact`; a variable not given stays `{{n}}`. */
export function previewBody(body: string, variables: readonly string[], contact: SampleContact | undefined): string {
  const filled = fillVariables(variables, {
    phone: contact?.phone_number ?? null,
    name: contact?.name ?? null,
    email: contact?.email ?? null,
    customFields: contact?.custom_fields ?? {},
  });
  return body.replace(/\{\{\s*(\d+)\s*\}\}/g, (all, n: string) => {
    const value = filled[Number(n) - 1];
    return value === undefined || value === '' ? all : value;
  });
}

const LOCAL = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})$/;

/** A `datetime-local` value ("2026-06-10T09:00") read in `zone` as an instant; undefined when malformed. */
export function instantInZone(local: string, zone: string): Date | undefined {
  const m = LOCAL.exec(local);
  if (!m) return undefined;
  const instant = zonedInstant(zone, dayOf(m[1]!), Number(m[2]) * 60 + Number(m[3]));
  return Number.isNaN(instant.getTime()) ? undefined : instant;
}

/** An instant as a `datetime-local` value in `zone` (the inverse of instantInZone, to the minute). */
export function localInZone(iso: string, zone: string): string {
  const w = wallClock(zone, new Date(iso));
  const two = (n: number) => String(n).padStart(2, '0');
  return `${w.y}-${two(w.mo)}-${two(w.d)}T${two(w.h)}:${two(w.mi)}`;
}
