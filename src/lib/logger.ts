/** Structured JSON logs. Secrets are redacted by path, so a careless log call cannot leak them. */
import pino, { type Logger } from 'pino';

export type { Logger };

/** Paths whose values never reach a log line, wherever they appear. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers.cookie',
  '*.password',
  '*.secret',
  '*.token',
  '*.access_token',
  '*.refresh_token',
  '*.api_key',
  '*.apiKey',
  '*.credentials',
  'password',
  'secret',
  'token',
  'credentials',
];

const SECRET_QUERY = /([?&](?:[^=&]*(?:token|secret|key|password|code|challenge|signature)[^=&]*)=)[^&]*/gi;

/** A URL fit for a log line: query values that may carry secrets are replaced. */
export function safeUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[redacted]');
}

type LoggedRequest = { method?: string; url?: string; ip?: string; socket?: { remoteAddress?: string } };

export function createLogger(options: { level: string; destination?: pino.DestinationStream }): Logger {
  return pino(
    {
      serializers: {
        err: pino.stdSerializers.err,
        req: (req: LoggedRequest) => ({ method: req.method, url: safeUrl(req.url ?? ''), remote_address: req.ip ?? req.socket?.remoteAddress }),
        res: (res: { statusCode?: number }) => ({ status_code: res.statusCode }),
      },
      level: options.level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      messageKey: 'msg',
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    },
    options.destination,
  );
}
