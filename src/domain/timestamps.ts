/** The time values the API takes, one schema for the domain's fields and the routes' own parameters. */
import { z } from 'zod';

const EARLIEST = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * An ISO 8601 time with its offset, at an instant the database and Date can both hold (years 1 to
 * 9999 in UTC): `0000-02-29T00:00:00Z` or `9999-12-31T23:59:59-23:59` are refused, not a 500.
 */
export const IsoTimestamp = z.iso.datetime({ offset: true }).refine(
  (value) => {
    const t = Date.parse(value);
    return t >= EARLIEST && t <= LATEST;
  },
  { message: 'must be between years 0001 and 9999 (UTC)' },
);
