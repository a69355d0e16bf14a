/** Structured JSON logs. Secrets are redacted by path, so a careless log call cannot leak them. */
import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * Keys whose values never reach a log line, at any of the first three levels of a logged object
 * (`password`, `creds.token`, `req.headers.authorization`, ...). Matching on keys rather than on
 * pino's redaction paths costs a look at each key, not a copy of the object per path.
 */
export const SECRET_KEYS: ReadonlySet<string> = new Set([
  'password',
  'secret',
  'token',
  'access_token',
  'refresh_token',
  'api_key',
  'apiKey',
  'credentials',
  'authorization',
  'x-api-key',
  'cookie',
  'set-cookie',
]);

const CENSOR = '[redacted]';
const MAX_DEPTH = 3;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The object with every secret key's value censored; the same object when there is none (never mutated). */
export function redactSecrets(value: Record<string, unknown>, depth = 1): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key in value) {
    const item = value[key];
    let replaced: unknown = item;
    if (SECRET_KEYS.has(key)) replaced = CENSOR;
    else if (depth < MAX_DEPTH && isPlainObject(item)) replaced = redactSecrets(item, depth + 1);
    if (replaced !== item) {
      copy ??= { ...value };
      copy[key] = replaced;
    }
  }
  return copy ?? value;
}

const SECRET_QUERY = /([?&](?:[^=&]*(?:token|secret|key|password|code|challenge|signature)[^=&]*)=)[^&]*/gi;

// Personal values travel in some URLs too: a phone (or a privacy id) in the path, search terms and recipients in the query.
const PERSONAL_QUERY = /([?&](?:search|q|to|from|phone|phone_number|email|name|external_id|chat)=)[^&]*/gi;
const PERSONAL_PATH =
  /(\/contacts\/phone\/|\/sessions\/[^/?]+\/(?:contacts|profiles|blocklist|lids\/pn|lids|groups|chats)\/|\/channels\/[^/?]+\/(?:profiles|blocklist|groups|chats)\/|\/channels\/[^/?]+\/labels\/[^/?]+\/chats\/|\/gateway\/pictures\/)[^/?]+/g;

/** A URL fit for a log line: query values that may carry secrets or personal values, and phones in paths, are replaced. */
export function safeUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[redacted]').replace(PERSONAL_QUERY, '$1[redacted]').replace(PERSONAL_PATH, '$1[redacted]');
}

/**
 * Keys of database errors that carry a statement's values (names, emails, phones): drizzle's and
 * PGlite's bound `params` (and PGlite's `queryOptions`), and PostgreSQL's `detail` ("Key (email)=(…)").
 */
const STATEMENT_VALUE_KEYS = ['params', 'queryOptions', 'detail'] as const;
const PARAMS_LINE = /\nparams: (?!\[redacted\]).*/g;
// PostgreSQL quotes the value it could not read: invalid input syntax for type uuid: "…".
const QUOTED_INPUT = /(invalid input [^:\n]*: )"(?:[^"]|"")*"/g;

/**
 * pino's error serializer, minus the values bound to a failed statement: the SQL text stays (it
 * says what failed), its parameters never reach a log line, wherever they sit in the cause chain.
 */
export function serializeError(err: unknown): unknown {
  const out = pino.stdSerializers.err(err as Error) as unknown as Record<string, unknown>;
  if (!out || typeof out !== 'object' || out === err) return out;
  const bound: string[] = [];
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 10; e = (e as { cause?: unknown }).cause, depth++) {
    const params = (e as { params?: unknown }).params;
    if (params !== undefined) bound.push(`\nparams: ${String(params)}`);
  }
  const scrub = (text: unknown) => {
    if (typeof text !== 'string') return text;
    let clean = text;
    for (const literal of bound) if (literal.length > '\nparams: '.length) clean = clean.replaceAll(literal, '\nparams: [redacted]');
    return clean.replace(PARAMS_LINE, '\nparams: [redacted]').replace(QUOTED_INPUT, '$1"[redacted]"');
  };
  const clean: Record<string, unknown> = {};
  for (const key in out) {
    if ((STATEMENT_VALUE_KEYS as readonly string[]).includes(key)) continue;
    const value = out[key];
    clean[key] = key === 'message' || key === 'stack' ? scrub(value) : value;
  }
  return clean;
}

type LoggedRequest = { method?: string; url?: string; ip?: string; socket?: { remoteAddress?: string } };

export function createLogger(options: { level: string; destination?: pino.DestinationStream }): Logger {
  return pino(
    {
      serializers: {
        err: serializeError,
        req: (req: LoggedRequest) => ({
          method: req.method,
          url: safeUrl(req.url ?? ''),
          remote_address: req.ip ?? req.socket?.remoteAddress,
        }),
        res: (res: { statusCode?: number }) => ({ status_code: res.statusCode }),
      },
      level: options.level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      messageKey: 'msg',
      formatters: { level: (label) => ({ level: label }), log: (object) => redactSecrets(object) },
    },
    // Standard output written asynchronously and in blocks (4 KiB, or what there is every 100 ms): a
    // write per line was a good part of a fast request's cost. pino flushes what is left when the
    // process exits; a process killed outright loses at most the last 100 ms of lines.
    options.destination ?? pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 100 }),
  );
}
