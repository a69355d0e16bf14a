/**
 * The front half of the device authorization grant (RFC 8628): a device asks for a device code and
 * a user code; the person types (or confirms) the user code on the verification page, sees the
 * client and its scopes, picks organizations and approves or denies. The token endpoint, which the
 * device polls, reads the decision from the same row.
 *
 * User codes are short enough to guess at, so every look-up by code is an attempt charged to the
 * signed-in user and to their address (domain/throttle) before the code is looked at; a code that
 * exists gives its attempt back.
 */
import { and, eq, gt } from 'drizzle-orm';
import { randomInt } from 'node:crypto';
import type { Executor } from '../../db/client.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { oauthClients, oauthDeviceAuthorizations } from '../../db/schema.ts';
import { randomToken, sha256Hex } from '../../lib/crypto.ts';
import type { Clock } from '../../lib/clock.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { DomainError, invalid, notFound } from '../errors.ts';
import { throttleKeys } from '../throttle/keys.ts';
import { settleAttempt, takeAttempt, type ThrottlePolicy } from '../throttle/throttle.ts';
import { assertOpen, chosenOrganizations, clientScopes, consentFor, type Consent, type FlowNoun, type UserActor } from './consent.ts';
import {
  findClient,
  formatUserCode,
  GRANT_TYPES,
  normalizeUserCode,
  OAUTH_PREFIXES,
  USER_CODE_ALPHABET,
  USER_CODE_LENGTH,
} from './vocabulary.ts';

const NOUN: FlowNoun = { what: 'device authorization', restart: 'start again on the device for a new code' };

/** Where people verify codes and how long a code lives, from the settings. */
export type DeviceFlowSettings = { appUrl: string; deviceCodeTtlMs: number; devicePollIntervalMs: number };

export type DeviceStartDeps = { db: Executor; clock: Clock; settings: DeviceFlowSettings };
export type DeviceDeps = { db: Executor; clock: Clock };

export type DeviceAuthorizationStarted = {
  deviceCode: string;
  /** As people read it: XXXX-XXXX. */
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string;
  expiresIn: number;
  interval: number;
};

/** A user code that exists with the alphabet's 20 letters is one in 20^8 (about 2.6 * 10^10); the throttles keep guessing at a crawl. */
export const USER_CODE_THROTTLE: { user: ThrottlePolicy; address: ThrottlePolicy } = {
  // A person mistyping a few times never waits; a guesser soon waits minutes per guess.
  user: { freeAttempts: 10, baseDelayMs: 1000, maxDelayMs: 5 * 60_000, forgiveEveryMs: 10 * 60_000 },
  // An address may be an office behind one NAT: more free attempts, forgiven faster.
  address: { freeAttempts: 30, baseDelayMs: 1000, maxDelayMs: 5 * 60_000, forgiveEveryMs: 60_000 },
};

/** Attempts at a new user code before giving up: each collision with a stored one is one in millions. */
const USER_CODE_TRIES = 5;

function newUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/**
 * RFC 8628 §3.1-3.2: a device code (shown once, stored as its hash) and a user code for a client
 * registered for the device grant, with the scopes it asked for (or all it registered).
 */
export async function startDeviceAuthorization(
  { db, clock, settings }: DeviceStartDeps,
  input: { clientId: string; scope: string | undefined },
): Promise<DeviceAuthorizationStarted> {
  const client = await findClient(db, input.clientId);
  if (!client) throw new DomainError('unauthenticated', 'unknown client_id: no client is registered with it');
  if (!client.grantTypes.includes(GRANT_TYPES.deviceCode)) {
    throw new DomainError('invalid', `the client is not registered for the device authorization grant (${GRANT_TYPES.deviceCode})`, {
      extra: { oauth_error: 'unauthorized_client' },
    });
  }
  const scopes = clientScopes(client, input.scope);
  if (!scopes.ok) throw new DomainError('invalid', scopes.description, { extra: { oauth_error: 'invalid_scope' } });
  const interval = Math.max(1, Math.ceil(settings.devicePollIntervalMs / 1000));
  const expiresIn = Math.max(1, Math.floor(settings.deviceCodeTtlMs / 1000));
  for (let attempt = 1; ; attempt++) {
    const deviceCode = OAUTH_PREFIXES.deviceCode + randomToken(32);
    const userCode = newUserCode();
    const now = clock.now();
    try {
      await db.insert(oauthDeviceAuthorizations).values({
        id: uuidv7(),
        clientId: client.id,
        deviceCodeHash: sha256Hex(deviceCode),
        userCode,
        scopes: scopes.scopes,
        status: 'pending',
        intervalSeconds: interval,
        createdAt: now,
        expiresAt: new Date(now.getTime() + expiresIn * 1000),
      });
    } catch (err) {
      // The user code is unique among all stored ones: draw another.
      if (isUniqueViolation(err) && attempt < USER_CODE_TRIES) continue;
      throw err;
    }
    const shown = formatUserCode(userCode);
    const verificationUri = `${settings.appUrl.replace(/\/+$/, '')}/device`;
    return {
      deviceCode,
      userCode: shown,
      verificationUri,
      verificationUriComplete: `${verificationUri}?user_code=${encodeURIComponent(shown)}`,
      expiresIn,
      interval,
    };
  }
}

/** Too many wrong codes lately, from this user or this address: nothing was looked up. */
export type UserCodeThrottled = { throttled: 'user' | 'address'; retryAt: Date; retryAfterSeconds: number };

/** A code as a person typed it, and the address they typed it from. */
export type UserCodeGuess = { userCode: string; address: string };

type DeviceRow = typeof oauthDeviceAuthorizations.$inferSelect;
type Found = { authorization: DeviceRow; client: typeof oauthClients.$inferSelect };

/**
 * The device authorization a typed code names, as a throttled attempt: a malformed code is refused
 * before it costs anything; otherwise the attempt is charged, and given back if the code exists (to
 * this user: a code someone else decided is as unknown as one never issued).
 */
async function findByUserCode(deps: DeviceDeps, actor: UserActor, guess: UserCodeGuess): Promise<Found | UserCodeThrottled> {
  const code = normalizeUserCode(guess.userCode);
  if (code === undefined) {
    throw invalid(`user_code must be the ${USER_CODE_LENGTH} letters the device shows, such as BCDF-GHJK`, [
      {
        pointer: '/user_code',
        message: `must be ${USER_CODE_LENGTH} letters of ${USER_CODE_ALPHABET} (a dash or spaces between are fine)`,
      },
    ]);
  }
  const addressKey = throttleKeys.userCodeAddress(guess.address);
  const userKey = throttleKeys.userCodeUser(actor.userId);
  const decision = await takeAttempt(deps, [
    { key: addressKey, policy: USER_CODE_THROTTLE.address },
    { key: userKey, policy: USER_CODE_THROTTLE.user },
  ]);
  if (!decision.allowed)
    return {
      throttled: decision.key === addressKey ? 'address' : 'user',
      retryAt: decision.retryAt,
      retryAfterSeconds: decision.retryAfterSeconds,
    };
  const [row] = await deps.db
    .select({ authorization: oauthDeviceAuthorizations, client: oauthClients })
    .from(oauthDeviceAuthorizations)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthDeviceAuthorizations.clientId))
    .where(eq(oauthDeviceAuthorizations.userCode, code))
    .limit(1);
  if (!row || (row.authorization.status !== 'pending' && row.authorization.userId !== actor.userId)) throw notFound(NOUN.what);
  await settleAttempt(deps, { forget: [], refund: [addressKey, userKey] });
  return row;
}

export type DeviceConsent = Consent & { userCode: string };

/** What the verification page shows for a typed code: the client, its scopes and the user's organizations. */
export async function lookupDeviceAuthorization(
  deps: DeviceDeps,
  actor: UserActor,
  guess: UserCodeGuess,
): Promise<DeviceConsent | UserCodeThrottled> {
  const found = await findByUserCode(deps, actor, guess);
  if ('throttled' in found) return found;
  const authorization = assertOpen(found.authorization, actor, deps.clock.now(), NOUN);
  const consent = await consentFor(deps.db, actor, {
    client: found.client,
    scopes: authorization.scopes,
    expiresAt: authorization.expiresAt,
  });
  return { ...consent, userCode: formatUserCode(authorization.userCode) };
}

export type DeviceDecision = { userCode: string; status: 'approved' | 'denied'; client: { clientId: string; name: string } };

/** Moves an open authorization out of pending in one statement: of two decisions at once, one wins and the other is refused. */
async function decideDevice(
  deps: DeviceDeps,
  actor: UserActor,
  found: Found,
  change: Partial<typeof oauthDeviceAuthorizations.$inferInsert>,
): Promise<DeviceDecision> {
  const now = deps.clock.now();
  const [decided] = await deps.db
    .update(oauthDeviceAuthorizations)
    .set({ ...change, userId: actor.userId, decidedAt: now })
    .where(
      and(
        eq(oauthDeviceAuthorizations.id, found.authorization.id),
        eq(oauthDeviceAuthorizations.status, 'pending'),
        gt(oauthDeviceAuthorizations.expiresAt, now),
      ),
    )
    .returning();
  if (!decided) {
    const [current] = await deps.db
      .select()
      .from(oauthDeviceAuthorizations)
      .where(eq(oauthDeviceAuthorizations.id, found.authorization.id))
      .limit(1);
    assertOpen(current, actor, now, NOUN);
    throw new Error(`device authorization ${found.authorization.id} is open but could not be decided`);
  }
  return {
    userCode: formatUserCode(decided.userCode),
    status: decided.status === 'denied' ? 'denied' : 'approved',
    client: { clientId: found.client.clientId, name: found.client.name },
  };
}

/** Approves the device for the chosen organizations (each one the user belongs to); the device's next poll gets its token. */
export async function approveDeviceAuthorization(
  deps: DeviceDeps,
  actor: UserActor,
  input: UserCodeGuess & { organizationIds: readonly string[] },
): Promise<DeviceDecision | UserCodeThrottled> {
  const found = await findByUserCode(deps, actor, input);
  if ('throttled' in found) return found;
  assertOpen(found.authorization, actor, deps.clock.now(), NOUN);
  const organizationIds = await chosenOrganizations(deps.db, actor, input.organizationIds);
  return decideDevice(deps, actor, found, { status: 'approved', organizationIds });
}

/** Denies the device: its next poll gets access_denied. */
export async function denyDeviceAuthorization(
  deps: DeviceDeps,
  actor: UserActor,
  input: UserCodeGuess,
): Promise<DeviceDecision | UserCodeThrottled> {
  const found = await findByUserCode(deps, actor, input);
  if ('throttled' in found) return found;
  assertOpen(found.authorization, actor, deps.clock.now(), NOUN);
  return decideDevice(deps, actor, found, { status: 'denied' });
}
