/**
 * Telling "the database cannot be reached" from every other database error: the first is an
 * outage to wait out (503 with Retry-After, workers pausing), the others are bugs or bad data.
 */

/** Thrown without trying while the database is known to be unreachable. */
export class DatabaseUnavailableError extends Error {
  readonly code = 'database_unavailable';
  constructor(reason: string) {
    super(`the database is unavailable (${reason})`);
  }
}

/** Socket-level failures: the server is gone, restarting, or not answering. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNABORTED',
]);

/**
 * PostgreSQL SQLSTATEs of a server going away or refusing connections: class 08 (connection
 * exception), 57P01-57P03 (admin shutdown, crash shutdown, cannot connect now), 53300 (too many
 * connections).
 */
const SERVER_CODES = /^(08...|57P0[123]|53300)$/;

/** pg's own messages for a connection that died or never came up (they carry no code). */
const DRIVER_MESSAGES = [
  'Connection terminated',
  'connection timeout',
  'timeout exceeded when trying to connect',
  'is not queryable',
  'Query read timeout',
];

/** True when err (or an error it wraps, as drizzle's DrizzleQueryError does) says the database is unreachable. */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (
    let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 5;
    e = e.cause as typeof e, depth++
  ) {
    if (e instanceof DatabaseUnavailableError) return true;
    if (typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || SERVER_CODES.test(e.code))) return true;
    if (typeof e.message === 'string' && !('query' in e) && DRIVER_MESSAGES.some((m) => (e.message as string).includes(m))) return true;
  }
  return false;
}

/** PostgreSQL's error code on an error however the driver wraps it (drizzle puts the driver's error in `cause`). */
export function sqlStateOf(err: unknown): string | undefined {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
  }
  return undefined;
}

/** A unique index refused the row (SQLSTATE 23505). */
export const isUniqueViolation = (err: unknown): boolean => sqlStateOf(err) === '23505';
