/**
 * The only reader of process.env. One schema, parsed once at boot; a bad value stops the process
 * with one line per variable naming it and what it expects.
 */
import ipaddr from 'ipaddr.js';
import path from 'node:path';
import { z } from 'zod';

const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], { error: 'expects true or false' })
    .optional()
    .transform((v) => (v === undefined ? fallback : ['true', '1', 'yes', 'on'].includes(v)));

const url = z
  .url({ protocol: /^https?$/, error: 'expects an http(s) URL such as https://parley.example.com' })
  .transform((v) => v.replace(/\/+$/, ''));

/** A duration such as 250ms, 5s, 30m, 2h or 5d, in milliseconds. */
const DURATION = /^(\d+)(ms|s|m|h|d)$|^0$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const parseDuration = (v: string) => {
  const m = DURATION.exec(v.trim())!;
  return m[1] === undefined ? 0 : Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
};
const duration = z.string().regex(DURATION, { error: 'expects a duration such as 500ms, 30s, 5m, 2h or 5d' }).transform(parseDuration);
const durationList = z
  .string()
  .regex(/^\s*(\d+(ms|s|m|h|d)|0)\s*(,\s*(\d+(ms|s|m|h|d)|0)\s*){0,19}$/, {
    error: 'expects 1 to 20 comma-separated durations such as 0s,5s,5m,30m,2h',
  })
  .transform((v) => v.split(',').map(parseDuration));

/** The environment's schema: every variable, its rules and its default (docs/configuration.md is checked against it). */
export const envSchema = z.object({
  PORT: z.coerce.number({ error: 'expects a port number' }).int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  BASE_URL: url.optional(),
  APP_URL: url.optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, { error: 'expects a postgres:// or postgresql:// connection URL' })
    .optional(),
  DATABASE_TIMEOUT_MS: z.coerce.number({ error: 'expects milliseconds' }).int().min(100).max(60_000).default(5000),
  DATA_DIR: z.string().min(1).default('./data'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'expects one of fatal, error, warn, info, debug, trace, silent',
    })
    .default('info'),
  ROLES: z
    .string()
    .default('api,worker')
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(
      z
        .array(z.enum(['api', 'worker'], { error: 'expects a comma-separated list of api, worker' }))
        .min(1, { error: 'expects a comma-separated list of api, worker' }),
    ),
  BOOTSTRAP_ORGANIZATION_NAME: z.string().min(1).max(200).default('My organization'),
  BOOTSTRAP_ADMIN_EMAIL: z.email({ error: 'expects an email address' }).optional(),
  BOOTSTRAP_ADMIN_PASSWORD: z.string().min(8, { error: 'expects at least 8 characters' }).max(1024).optional(),
  BOOTSTRAP_API_KEY: z
    .string()
    .regex(/^[A-Za-z0-9_-]{24,200}$/, { error: 'expects 24 to 200 characters of letters, digits, _ or -' })
    .optional(),
  ENCRYPTION_KEY: z
    .string()
    .regex(/^[A-Za-z0-9+/_-]{43}=?$|^[0-9a-fA-F]{64}$/, { error: 'expects 32 bytes as base64 (44 chars) or hex (64 chars)' })
    .optional(),
  SESSION_TTL_HOURS: z.coerce
    .number({ error: 'expects a number of hours' })
    .int()
    .min(1)
    .max(24 * 365)
    .default(24 * 14),
  BODY_LIMIT_BYTES: z.coerce
    .number({ error: 'expects a number of bytes' })
    .int()
    .min(1024)
    .default(1024 * 1024),
  RATE_LIMIT_PER_MINUTE: z.coerce.number({ error: 'expects a number of requests' }).int().min(0).default(6000),
  // Unset, each limit below defaults to its documented value, or to 0 (off) when RATE_LIMIT_PER_MINUTE is 0.
  RATE_LIMIT_API_KEY_PER_MINUTE: z.coerce.number({ error: 'expects a number of requests' }).int().min(0).optional(),
  RATE_LIMIT_OAUTH_CLIENT_PER_MINUTE: z.coerce.number({ error: 'expects a number of requests' }).int().min(0).optional(),
  RATE_LIMIT_USER_PER_MINUTE: z.coerce.number({ error: 'expects a number of requests' }).int().min(0).optional(),
  RATE_LIMIT_ADDRESS_PER_MINUTE: z.coerce.number({ error: 'expects a number of requests' }).int().min(0).optional(),
  LOGIN_RATE_LIMIT_PER_MINUTE: z.coerce.number({ error: 'expects a number of requests' }).int().min(0).optional(),
  REDIS_URL: z
    .string()
    .refine((v) => URL.canParse(v) && ['redis:', 'rediss:'].includes(new URL(v).protocol), { error: 'expects a redis:// or rediss:// URL' })
    .optional(),
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:._-]{1,64}$/, { error: 'expects 1 to 64 of A-Za-z0-9:._-' })
    .default('parley:'),
  LOGIN_THROTTLE_ACCOUNT_FREE_ATTEMPTS: z.coerce.number({ error: 'expects a number of attempts' }).int().min(1).max(1000).default(5),
  LOGIN_THROTTLE_ADDRESS_FREE_ATTEMPTS: z.coerce.number({ error: 'expects a number of attempts' }).int().min(1).max(100_000).default(30),
  LOGIN_THROTTLE_MAX_DELAY: duration.prefault('15m'),
  AUTH_FAILURE_LIMIT_PER_MINUTE: z.coerce.number({ error: 'expects a number of requests' }).int().min(0).default(60),
  TRUST_PROXY: z
    .string()
    .transform((v, ctx): TrustProxy => {
      const value = v.trim().toLowerCase();
      if (['false', '0', 'no', 'off'].includes(value)) return false;
      if (['true', 'yes', 'on'].includes(value)) return { hops: 1 };
      if (/^\d{1,2}$/.test(value)) return Number(value) === 0 ? false : { hops: Number(value) };
      const proxies = value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      if (proxies.length > 0 && proxies.every((p) => isAddressOrRange(p) || PROXY_ADDRESS_NAMES.includes(p))) return { proxies };
      ctx.addIssue({
        code: 'custom',
        message:
          'expects true (one proxy), false, a number of proxies (0 to 99), or a comma-separated list of proxy addresses or CIDR ranges (loopback, linklocal and uniquelocal name theirs)',
      });
      return z.NEVER;
    })
    .prefault('false'),
  PROVIDER_SANDBOX: bool(true),
  SANDBOX_STATUS_DELAY_MS: z.coerce.number({ error: 'expects milliseconds' }).int().min(0).max(600_000).default(200),
  SANDBOX_OFFICIAL_WEBHOOK_URL: url.optional(),
  OFFICIAL_API_BASE: url.optional(),
  OFFICIAL_API_VERSION: z
    .string()
    .regex(/^v\d+\.\d+$/, { error: 'expects a version such as v23.0' })
    .default('v23.0'),
  OFFICIAL_APP_ID: z.string().min(1).optional(),
  OFFICIAL_APP_SECRET: z.string().min(8, { error: 'expects the app secret (8 characters or more)' }).optional(),
  OFFICIAL_VERIFY_TOKEN: z.string().min(8, { error: 'expects a verify token of 8 characters or more' }).optional(),
  ALLOW_PRIVATE_NETWORK_TARGETS: bool(false),
  PROVIDER_TIMEOUT_MS: z.coerce.number({ error: 'expects milliseconds' }).int().min(100).max(120_000).default(15_000),
  SANDBOX_FAULT_INJECTION: bool(false),
  MESSAGE_RECONCILE_SECONDS: z.coerce.number({ error: 'expects seconds' }).int().min(1).max(86_400).default(300),
  MESSAGE_HOLD_SECONDS: z.coerce.number({ error: 'expects seconds' }).int().min(1).max(604_800).default(3600),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number({ error: 'expects milliseconds' }).int().min(0).default(10_000),
  WEBHOOK_TIMEOUT_MS: z.coerce.number({ error: 'expects milliseconds' }).int().min(100).max(60_000).default(10_000),
  WEBHOOK_RETRY_SCHEDULE: durationList.prefault('0s,5s,5m,30m,2h,5h,10h,10h'),
  WEBHOOK_RETRY_JITTER: z.coerce.number({ error: 'expects a fraction from 0 to 0.5' }).min(0).max(0.5).default(0.2),
  WEBHOOK_CONCURRENCY: z.coerce.number({ error: 'expects a number of requests' }).int().min(1).max(10_000).default(256),
  WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number({ error: 'expects a number of requests' }).int().min(1).max(1000).default(32),
  WEBHOOK_POLL_INTERVAL_MS: z.coerce.number({ error: 'expects milliseconds' }).int().min(10).max(60_000).default(1000),
  WEBHOOK_DISABLE_AFTER: duration.prefault('5d'),
  WEBHOOK_DISABLE_MIN_FAILURES: z.coerce.number({ error: 'expects a number of failed attempts' }).int().min(1).default(10),
  SIGNUP: z.enum(['closed', 'open'], { error: 'expects closed or open' }).default('closed'),
  SMTP_URL: z
    .url({ protocol: /^smtps?$/, error: 'expects an SMTP URL such as smtp://user:password@mail.example.com:587 or smtps://…:465' })
    .optional(),
  SMTP_FROM: z.string().min(3).max(320).default('Parley <no-reply@parley.local>'),
  INVITATION_TTL: duration.prefault('7d'),
  PASSWORD_RESET_TTL: duration.prefault('1h'),
  OAUTH_ACCESS_TOKEN_TTL: duration.prefault('1h'),
  OAUTH_REFRESH_TOKEN_TTL: duration.prefault('30d'),
  OAUTH_DEVICE_CODE_TTL: duration.prefault('10m'),
  OAUTH_DEVICE_POLL_INTERVAL: duration.prefault('5s'),
  OAUTH_CODE_TTL: duration.prefault('60s'),
  EVENT_RETENTION_DAYS: z.coerce
    .number({ error: 'expects a number of days' })
    .int()
    .min(7, { error: 'expects at least 7 days' })
    .max(3650)
    .default(30),
  EVENT_STREAM_HEARTBEAT_MS: z.coerce.number({ error: 'expects milliseconds' }).int().min(100).max(300_000).default(15_000),
  EVENT_STREAM_POLL_MS: z.coerce.number({ error: 'expects milliseconds' }).int().min(100).max(600_000).default(5000),
  EVENT_STREAM_MAX_PER_CREDENTIAL: z.coerce.number({ error: 'expects a number of streams' }).int().min(1).max(100_000).default(20),
  EVENT_STREAM_MAX_PER_ORGANIZATION: z.coerce.number({ error: 'expects a number of streams' }).int().min(1).max(100_000).default(200),
  EMBEDDED_LEASE_TTL: duration.prefault('20s'),
  EMBEDDED_LEASE_RENEW: duration.prefault('5s'),
  EMBEDDED_POLL_INTERVAL: duration.prefault('5s'),
  EMBEDDED_RECONNECT_BASE: duration.prefault('2s'),
  EMBEDDED_RECONNECT_MAX: duration.prefault('5m'),
  EMBEDDED_QR_WAIT: duration.prefault('5s'),
  EMBEDDED_COMMAND_TIMEOUT: duration.prefault('15s'),
  EMBEDDED_SOCKET_MODULE: z.string().min(1).optional(),
  METRICS_TOKEN: z
    .string()
    .regex(/^[A-Za-z0-9._~+/=-]{16,512}$/, { error: 'expects 16 to 512 characters of letters, digits and ._~+/=-' })
    .optional(),
  METRICS_ALLOW: z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .refine((list) => list.length > 0 && list.every(isAddressOrRange), {
      error: 'expects a comma-separated list of addresses or CIDR ranges such as 10.0.0.0/8,::1',
    })
    .optional(),
  MEDIA_STORE: z.enum(['fs', 's3'], { error: 'expects fs or s3' }).default('fs'),
  MEDIA_DIR: z.string().min(1).optional(),
  S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, { error: 'expects a bucket name (3 to 63 lower-case letters, digits, dots or hyphens)' })
    .optional(),
  S3_REGION: z
    .string()
    .regex(/^[a-z0-9-]{1,64}$/, { error: 'expects a region such as us-east-1' })
    .default('us-east-1'),
  S3_ENDPOINT: url.optional(),
  S3_ACCESS_KEY_ID: z.string().min(1).max(256).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).max(256).optional(),
  S3_FORCE_PATH_STYLE: z
    .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], { error: 'expects true or false' })
    .optional()
    .transform((v) => (v === undefined ? undefined : ['true', '1', 'yes', 'on'].includes(v))),
  S3_PREFIX: z
    .string()
    .regex(/^((?!\.{1,2}\/)[A-Za-z0-9._-]{1,128}\/){1,4}$/, { error: 'expects path segments ending in /, such as parley/media/' })
    .optional(),
});

/**
 * Which proxies' X-Forwarded-For entries are believed (TRUST_PROXY): the socket's peer and the entries
 * before it are walked from the right while they are trusted, and the client address is the first one
 * that is not. `hops`: the nearest that many (the address a single proxy appended is `{hops: 1}`);
 * `proxies`: addresses or CIDR ranges of the proxies. false: the socket's peer, headers ignored.
 */
export type TrustProxy = false | { hops: number } | { proxies: string[] };

/** The ranges proxy-addr (Fastify's trustProxy) names. */
const PROXY_ADDRESS_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** An IPv4 or IPv6 address, or a CIDR range of either. */
function isAddressOrRange(value: string): boolean {
  // Dotted quads only: ipaddr.js would also take shorthands such as 127.1.
  return value.includes('/')
    ? ipaddr.IPv4.isValidCIDRFourPartDecimal(value) || ipaddr.IPv6.isValidCIDR(value)
    : ipaddr.IPv4.isValidFourPartDecimal(value) || ipaddr.IPv6.isValid(value);
}

export type Config = {
  port: number;
  host: string;
  baseUrl: string;
  appUrl: string;
  databaseUrl: string | undefined;
  /** The longest a request waits for the database server before it answers 503 (PostgreSQL only). */
  databaseTimeoutMs: number;
  dataDir: string;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  roles: Array<'api' | 'worker'>;
  bootstrap: {
    organizationName: string;
    adminEmail: string | undefined;
    adminPassword: string | undefined;
    apiKey: string | undefined;
  };
  encryptionKey: string | undefined;
  sessionTtlHours: number;
  bodyLimitBytes: number;
  /** RATE_LIMIT_PER_MINUTE as given: the default of the per-credential limits (0 turns off every request limit not set on its own). */
  rateLimitPerMinute: number;
  /** Requests a minute per address on the routes that take a password from anyone (login, sign-up, resets); 0: off. */
  loginRateLimitPerMinute: number;
  /** Requests a minute per bucket, counted in the shared store (0: that limit is off). */
  rateLimits: { apiKeyPerMinute: number; oauthClientPerMinute: number; userPerMinute: number; addressPerMinute: number };
  /** Where the request limits are counted: Redis when set, else the database. */
  redis: { url: string; keyPrefix: string } | undefined;
  /** Failed-login throttles in the database: attempts before delays start, and the longest delay. */
  loginThrottle: { accountFreeAttempts: number; addressFreeAttempts: number; maxDelayMs: number };
  /** Requests with a missing or bad credential allowed per address and minute before 429 (0: no limit). */
  authFailureLimitPerMinute: number;
  /** Whose X-Forwarded-For entries make the client address (docs/configuration.md, TRUST_PROXY). */
  trustProxy: TrustProxy;
  providerSandbox: boolean;
  sandbox: {
    statusDelayMs: number;
    /** Serves PUT/GET/DELETE /sandbox/faults, which make the sandbox's sends fail on purpose (tests). */
    faultInjection: boolean;
    /** Where the sandbox sends the official provider's webhooks. */
    officialWebhookUrl: string;
  };
  official: {
    /** The business cloud API's base URL; unset means only sandbox-bound official channels work. */
    apiBase: string | undefined;
    apiVersion: string;
    appId: string | undefined;
    appSecret: string | undefined;
    verifyToken: string | undefined;
  };
  /** Lets media, gateway and webhook URLs be plain http and private or loopback addresses (development); the sandbox never does. */
  allowPrivateNetworkTargets: boolean;
  /** How long a send whose answer was lost may stay unsettled: waiting for a status, or for the provider to answer a lookup. */
  messageReconcileSeconds: number;
  /** How long after it was accepted a message may wait while the provider holds its sends back (rate limits, maintenance). */
  messageHoldSeconds: number;
  /** One call to a provider's API (a send, a lookup) gives up after this long. */
  providerTimeoutMs: number;
  shutdownTimeoutMs: number;
  webhooks: {
    /** One delivery attempt's limit, response body included. */
    timeoutMs: number;
    /** The wait before each attempt: the first is normally 0 (at once); its length is the number of attempts. */
    retrySchedule: number[];
    /** Each wait is moved by up to this fraction, either way. */
    retryJitter: number;
    /** Attempts in flight at once, per worker process. */
    concurrency: number;
    /** Attempts in flight at once to one endpoint, per worker process. */
    endpointConcurrency: number;
    /** The delivery engine's polling floor (notifications wake it sooner). */
    pollIntervalMs: number;
    /** An endpoint failing this long without a success (and at least disableMinFailures times) is disabled. */
    disableAfterMs: number;
    disableMinFailures: number;
  };
  /** Events, webhook deliveries and their attempts are kept this many days. */
  eventRetentionDays: number;
  /**
   * GET /v1/events/stream: the keep-alive comment's period (credentials are checked again on each), the
   * polling floor under the NOTIFY, and the most streams one process holds open per credential and per organization.
   */
  eventStream: { heartbeatMs: number; pollMs: number; maxPerCredential: number; maxPerOrganization: number };
  /** Open sign-up (POST /v1/auth/signup) or only invited people. */
  signup: 'closed' | 'open';
  /** Outgoing mail for invitations and reset links; undefined: links are only shown to whoever made them. */
  mail: { smtpUrl: string | undefined; from: string };
  invitationTtlMs: number;
  passwordResetTtlMs: number;
  oauth: { accessTokenTtlMs: number; refreshTokenTtlMs: number; deviceCodeTtlMs: number; devicePollIntervalMs: number; codeTtlMs: number };
  /** True when the public address is https, so cookies get the Secure flag. */
  secureCookies: boolean;
  /** The embedded engine (unofficial channels without a gateway_base): sessions held by one worker under a lease. */
  embedded: {
    /** A session's lease; a worker that dies loses its sessions after this long, and another takes them up within the poll interval. */
    leaseTtlMs: number;
    leaseRenewMs: number;
    /** How often a worker looks for sessions to take up (a NOTIFY wakes it sooner). */
    pollMs: number;
    /** Reconnects after a lost connection wait base * 2^(attempt-1) (with jitter), at most max. */
    reconnectBaseMs: number;
    reconnectMaxMs: number;
    /** How long reading a QR waits for the session's first one. */
    qrWaitMs: number;
    /** How long a call only the session's holder can make (pairing code, lookup, logout) waits for it. */
    commandTimeoutMs: number;
    /** A module exporting `socketFactory` (a SocketFactory) used instead of the real library: tests and diagnostics. */
    socketModule: string | undefined;
  };
  /**
   * Who may read GET /metrics: a bearer token, and/or client addresses (CIDR ranges). With neither,
   * only loopback clients that came through no proxy (docs/operations.md).
   */
  metrics: { token: string | undefined; allow: string[] | undefined };
  /** Where inbound media is stored once downloaded (docs/media.md). */
  media: MediaStoreConfig;
};

export type MediaStoreConfig =
  | { store: 'fs'; dir: string }
  | {
      store: 's3';
      bucket: string;
      region: string;
      endpoint: string | undefined;
      accessKeyId: string | undefined;
      secretAccessKey: string | undefined;
      /** Path-style addresses (`{endpoint}/{bucket}/{key}`): the default with an endpoint of one's own. */
      forcePathStyle: boolean;
      prefix: string;
    };

/** Names of variables holding secrets: a problem with one names it but never shows its value. */
const SECRET_NAME = /PASSWORD|SECRET|TOKEN|_KEY$/;

/** The value as a problem line may show it: secrets hidden, a database URL without its credentials. */
function shownValue(name: string, value: string | undefined): string {
  if (SECRET_NAME.test(name)) return 'value hidden';
  const text =
    name === 'DATABASE_URL' || name === 'SMTP_URL' || name === 'REDIS_URL'
      ? String(value ?? '').replace(/\/\/[^/?#]*@/, '//***@')
      : String(value ?? '');
  return `got ${JSON.stringify(text)}`;
}

/** The settings, or the process stops through `fail` with one line per bad variable (for the commands that start from them). */
export function loadConfigOrFail(fail: (message: string) => never, env: Record<string, string | undefined> = process.env): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) fail(`invalid configuration\n${err.problems.map((p) => `  ${p}`).join('\n')}`);
    throw err;
  }
}

/** Unauthenticated requests a minute per address (public routes), and password-taking requests a minute per address. */
const DEFAULT_ADDRESS_RATE_LIMIT = 600;
const DEFAULT_LOGIN_RATE_LIMIT = 20;

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n${problems.join('\n')}`);
    this.problems = problems;
  }
}

/** Parses the environment into a Config, or throws ConfigError listing every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // Blank means unset: a stray space must not coerce to 0 (PORT 0 is a random port, a rate limit of 0 none).
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v.trim() !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const name = String(issue.path[0] ?? 'environment');
        return `${name}: ${issue.message} (${shownValue(name, cleaned[name])})`;
      }),
    );
  }
  const e = parsed.data;
  if (!e.DATABASE_URL && !e.ROLES.includes('worker')) {
    // Nothing else can open the embedded database, so nothing else would ever send or deliver.
    throw new ConfigError([
      `ROLES: the embedded database serves one process, which must run the worker; set DATABASE_URL to run an api-only process (${shownValue('ROLES', cleaned.ROLES)})`,
    ]);
  }
  if (e.EMBEDDED_LEASE_RENEW * 2 > e.EMBEDDED_LEASE_TTL || e.EMBEDDED_LEASE_RENEW === 0) {
    throw new ConfigError([
      `EMBEDDED_LEASE_RENEW: expects a period of at most half of EMBEDDED_LEASE_TTL (${e.EMBEDDED_LEASE_TTL} ms), so a lease is renewed twice before it lapses (${shownValue('EMBEDDED_LEASE_RENEW', cleaned.EMBEDDED_LEASE_RENEW)})`,
    ]);
  }
  const mediaProblems = mediaStoreProblems(e);
  if (mediaProblems.length > 0) throw new ConfigError(mediaProblems);
  const baseUrl = e.BASE_URL ?? `http://localhost:${e.PORT}`;
  return {
    port: e.PORT,
    host: e.HOST,
    baseUrl,
    appUrl: e.APP_URL ?? `${baseUrl}/app`,
    databaseUrl: e.DATABASE_URL,
    databaseTimeoutMs: e.DATABASE_TIMEOUT_MS,
    dataDir: e.DATA_DIR,
    logLevel: e.LOG_LEVEL,
    roles: e.ROLES,
    bootstrap: {
      organizationName: e.BOOTSTRAP_ORGANIZATION_NAME,
      adminEmail: e.BOOTSTRAP_ADMIN_EMAIL,
      adminPassword: e.BOOTSTRAP_ADMIN_PASSWORD,
      apiKey: e.BOOTSTRAP_API_KEY,
    },
    encryptionKey: e.ENCRYPTION_KEY,
    sessionTtlHours: e.SESSION_TTL_HOURS,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    loginRateLimitPerMinute: e.LOGIN_RATE_LIMIT_PER_MINUTE ?? (e.RATE_LIMIT_PER_MINUTE > 0 ? DEFAULT_LOGIN_RATE_LIMIT : 0),
    rateLimits: {
      apiKeyPerMinute: e.RATE_LIMIT_API_KEY_PER_MINUTE ?? e.RATE_LIMIT_PER_MINUTE,
      oauthClientPerMinute: e.RATE_LIMIT_OAUTH_CLIENT_PER_MINUTE ?? e.RATE_LIMIT_PER_MINUTE,
      userPerMinute: e.RATE_LIMIT_USER_PER_MINUTE ?? e.RATE_LIMIT_PER_MINUTE,
      addressPerMinute: e.RATE_LIMIT_ADDRESS_PER_MINUTE ?? (e.RATE_LIMIT_PER_MINUTE > 0 ? DEFAULT_ADDRESS_RATE_LIMIT : 0),
    },
    redis: e.REDIS_URL ? { url: e.REDIS_URL, keyPrefix: e.REDIS_KEY_PREFIX } : undefined,
    loginThrottle: {
      accountFreeAttempts: e.LOGIN_THROTTLE_ACCOUNT_FREE_ATTEMPTS,
      addressFreeAttempts: e.LOGIN_THROTTLE_ADDRESS_FREE_ATTEMPTS,
      maxDelayMs: Math.max(1000, e.LOGIN_THROTTLE_MAX_DELAY),
    },
    authFailureLimitPerMinute: e.AUTH_FAILURE_LIMIT_PER_MINUTE,
    trustProxy: e.TRUST_PROXY,
    providerSandbox: e.PROVIDER_SANDBOX,
    sandbox: {
      statusDelayMs: e.SANDBOX_STATUS_DELAY_MS,
      faultInjection: e.SANDBOX_FAULT_INJECTION,
      officialWebhookUrl: e.SANDBOX_OFFICIAL_WEBHOOK_URL ?? `${baseUrl}/v1/providers/chatapp_official/webhook`,
    },
    official: {
      apiBase: e.OFFICIAL_API_BASE,
      apiVersion: e.OFFICIAL_API_VERSION,
      appId: e.OFFICIAL_APP_ID,
      appSecret: e.OFFICIAL_APP_SECRET,
      verifyToken: e.OFFICIAL_VERIFY_TOKEN,
    },
    allowPrivateNetworkTargets: e.ALLOW_PRIVATE_NETWORK_TARGETS,
    messageReconcileSeconds: e.MESSAGE_RECONCILE_SECONDS,
    messageHoldSeconds: e.MESSAGE_HOLD_SECONDS,
    providerTimeoutMs: e.PROVIDER_TIMEOUT_MS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    webhooks: {
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      retrySchedule: e.WEBHOOK_RETRY_SCHEDULE,
      retryJitter: e.WEBHOOK_RETRY_JITTER,
      concurrency: e.WEBHOOK_CONCURRENCY,
      endpointConcurrency: e.WEBHOOK_ENDPOINT_CONCURRENCY,
      pollIntervalMs: e.WEBHOOK_POLL_INTERVAL_MS,
      disableAfterMs: e.WEBHOOK_DISABLE_AFTER,
      disableMinFailures: e.WEBHOOK_DISABLE_MIN_FAILURES,
    },
    eventRetentionDays: e.EVENT_RETENTION_DAYS,
    eventStream: {
      heartbeatMs: e.EVENT_STREAM_HEARTBEAT_MS,
      pollMs: e.EVENT_STREAM_POLL_MS,
      maxPerCredential: e.EVENT_STREAM_MAX_PER_CREDENTIAL,
      maxPerOrganization: e.EVENT_STREAM_MAX_PER_ORGANIZATION,
    },
    signup: e.SIGNUP,
    mail: { smtpUrl: e.SMTP_URL, from: e.SMTP_FROM },
    invitationTtlMs: e.INVITATION_TTL,
    passwordResetTtlMs: e.PASSWORD_RESET_TTL,
    oauth: {
      accessTokenTtlMs: e.OAUTH_ACCESS_TOKEN_TTL,
      refreshTokenTtlMs: e.OAUTH_REFRESH_TOKEN_TTL,
      deviceCodeTtlMs: e.OAUTH_DEVICE_CODE_TTL,
      devicePollIntervalMs: e.OAUTH_DEVICE_POLL_INTERVAL,
      codeTtlMs: e.OAUTH_CODE_TTL,
    },
    secureCookies: baseUrl.startsWith('https://'),
    embedded: {
      leaseTtlMs: e.EMBEDDED_LEASE_TTL,
      leaseRenewMs: e.EMBEDDED_LEASE_RENEW,
      pollMs: Math.max(100, e.EMBEDDED_POLL_INTERVAL),
      reconnectBaseMs: Math.max(100, e.EMBEDDED_RECONNECT_BASE),
      reconnectMaxMs: Math.max(e.EMBEDDED_RECONNECT_BASE, e.EMBEDDED_RECONNECT_MAX),
      qrWaitMs: e.EMBEDDED_QR_WAIT,
      commandTimeoutMs: Math.max(100, e.EMBEDDED_COMMAND_TIMEOUT),
      socketModule: e.EMBEDDED_SOCKET_MODULE,
    },
    metrics: { token: e.METRICS_TOKEN, allow: e.METRICS_ALLOW },
    media:
      e.MEDIA_STORE === 's3'
        ? {
            store: 's3',
            bucket: e.S3_BUCKET!,
            region: e.S3_REGION,
            endpoint: e.S3_ENDPOINT,
            accessKeyId: e.S3_ACCESS_KEY_ID,
            secretAccessKey: e.S3_SECRET_ACCESS_KEY,
            forcePathStyle: e.S3_FORCE_PATH_STYLE ?? e.S3_ENDPOINT !== undefined,
            prefix: e.S3_PREFIX ?? '',
          }
        : { store: 'fs', dir: e.MEDIA_DIR ?? path.join(e.DATA_DIR, 'media') },
  };
}

/** The media store's settings that only make sense together. */
function mediaStoreProblems(e: z.infer<typeof envSchema>): string[] {
  const problems: string[] = [];
  if (e.MEDIA_STORE === 's3') {
    if (!e.S3_BUCKET) problems.push('S3_BUCKET: MEDIA_STORE=s3 needs the bucket to store media in');
    if (Boolean(e.S3_ACCESS_KEY_ID) !== Boolean(e.S3_SECRET_ACCESS_KEY)) {
      problems.push(
        `${e.S3_ACCESS_KEY_ID ? 'S3_SECRET_ACCESS_KEY' : 'S3_ACCESS_KEY_ID'}: S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together or not at all (value hidden)`,
      );
    }
    if (e.MEDIA_DIR) problems.push(`MEDIA_DIR: only used with MEDIA_STORE=fs (got ${JSON.stringify(e.MEDIA_DIR)})`);
  }
  return problems;
}
