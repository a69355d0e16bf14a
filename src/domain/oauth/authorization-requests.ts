/**
 * The front half of the authorization code flow (RFC 6749 §4.1, PKCE per RFC 7636): GET /authorize
 * checks the request and stores it pending while the user signs in and decides on the consent page;
 * approval gives the row its one-time code (only the hash is stored) and the code's short lifetime,
 * denial sends the client access_denied. The token endpoint redeems the code from the same row.
 *
 * Until the client and its redirect_uri are known to be right, a problem is shown to the user and
 * nothing is sent anywhere (an attacker's redirect_uri must never receive anything); after that,
 * problems go back to the client at its redirect_uri (RFC 6749 §4.1.2.1).
 */
import { and, eq, gt } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { oauthAuthorizationRequests, oauthClients } from '../../db/schema.ts';
import { randomToken, sha256Hex } from '../../lib/crypto.ts';
import type { Clock } from '../../lib/clock.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import { isStorableText } from '../../lib/text.ts';
import { notFound } from '../errors.ts';
import {
  assertOpen,
  chosenOrganizations,
  clientScopes,
  consentFor,
  withParams,
  type Consent,
  type FlowNoun,
  type UserActor,
} from './consent.ts';
import { findClient, GRANT_TYPES, OAUTH_PREFIXES } from './vocabulary.ts';

/** How long a checked request waits for the user to sign in and decide. */
export const AUTHORIZATION_REQUEST_TTL_MS = 10 * 60_000;

/** The longest value each parameter may have (a code challenge is exactly its length). */
export const AUTHORIZE_LIMITS = { clientId: 200, redirectUri: 2000, scope: 2000, state: 1000, codeChallenge: 43 } as const;

/** base64url of a SHA-256 digest, without padding (RFC 7636 §4.2). */
const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

const NOUN: FlowNoun = { what: 'authorization request', restart: 'go back to the application and start again' };

/** A query parameter as the query parser gives it: absent, once, or repeated. */
export type QueryValue = string | readonly string[] | undefined;

export type AuthorizationParams = {
  responseType: QueryValue;
  clientId: QueryValue;
  redirectUri: QueryValue;
  scope: QueryValue;
  state: QueryValue;
  codeChallenge: QueryValue;
  codeChallengeMethod: QueryValue;
};

export type AuthorizationStart =
  /** The client or its redirect_uri is not right: shown to the user, never redirected. */
  | { kind: 'error_page'; problem: string }
  /** Refused, told to the client at its redirect_uri. */
  | { kind: 'redirect'; location: string }
  /** Stored, waiting for the user's decision. */
  | { kind: 'consent'; requestId: string };

export type AuthorizationDeps = { db: Executor; clock: Clock };
/** The issuer goes into every answer sent to the client (RFC 9207's `iss`). */
export type AnswerDeps = AuthorizationDeps & { issuer: string };
/** Approval also sets the code's lifetime. */
export type ApprovalDeps = AnswerDeps & { codeTtlMs: number };

type Single = { ok: true; value: string | undefined } | { ok: false; problem: string };

/** One parameter's value: absent (or empty: RFC 6749 §3.1 treats it as omitted), or once, short and storable. */
function single(value: QueryValue, name: string, maxLength: number): Single {
  if (typeof value !== 'string' && value !== undefined) return { ok: false, problem: `${name} is given more than once` };
  if (value === undefined || value === '') return { ok: true, value: undefined };
  if (value.length > maxLength) return { ok: false, problem: `${name} is longer than ${maxLength} characters` };
  if (!isStorableText(value)) return { ok: false, problem: `${name} holds a NUL character or an unpaired surrogate` };
  return { ok: true, value };
}

/** Checks an authorization request and stores it for the user's decision, or says where its problem goes. */
export async function startAuthorization({ db, clock, issuer }: AnswerDeps, params: AuthorizationParams): Promise<AuthorizationStart> {
  const page = (problem: string): AuthorizationStart => ({ kind: 'error_page', problem });
  const clientId = single(params.clientId, 'client_id', AUTHORIZE_LIMITS.clientId);
  if (!clientId.ok) return page(clientId.problem);
  if (clientId.value === undefined) return page('client_id is missing: the application must say who it is');
  const client = await findClient(db, clientId.value);
  if (!client) return page('no application is registered with this client_id');
  const redirectUri = single(params.redirectUri, 'redirect_uri', AUTHORIZE_LIMITS.redirectUri);
  if (!redirectUri.ok) return page(redirectUri.problem);
  if (redirectUri.value === undefined) return page('redirect_uri is missing: the application must say where to send you back');
  if (!client.redirectUris.includes(redirectUri.value))
    return page(`redirect_uri is not one registered for ${client.name}: it must match a registered URI exactly`);
  if (!client.grantTypes.includes(GRANT_TYPES.authorizationCode))
    return page(`${client.name} is not registered for the authorization code flow`);

  // From here on the client hears of every problem, with its state.
  const state = single(params.state, 'state', AUTHORIZE_LIMITS.state);
  const refuse = (error: string, description: string): AuthorizationStart => ({
    kind: 'redirect',
    location: withParams(redirectUri.value!, {
      error,
      error_description: description,
      state: state.ok ? state.value : undefined,
      iss: issuer,
    }),
  });
  if (!state.ok) return refuse('invalid_request', state.problem);
  const responseType = single(params.responseType, 'response_type', 100);
  if (!responseType.ok) return refuse('invalid_request', responseType.problem);
  if (responseType.value === undefined) return refuse('invalid_request', 'response_type is missing: send response_type=code');
  if (responseType.value !== 'code') return refuse('unsupported_response_type', 'only response_type=code is supported');
  const scope = single(params.scope, 'scope', AUTHORIZE_LIMITS.scope);
  if (!scope.ok) return refuse('invalid_request', scope.problem);
  const scopes = clientScopes(client, scope.value);
  if (!scopes.ok) return refuse('invalid_scope', scopes.description);
  const challenge = single(params.codeChallenge, 'code_challenge', 1000);
  if (!challenge.ok) return refuse('invalid_request', challenge.problem);
  const method = single(params.codeChallengeMethod, 'code_challenge_method', 100);
  if (!method.ok) return refuse('invalid_request', method.problem);
  if (challenge.value === undefined) {
    if (client.type === 'public') return refuse('invalid_request', 'code_challenge is missing: a public client must use PKCE with S256');
    if (method.value !== undefined) return refuse('invalid_request', 'code_challenge_method was sent without code_challenge');
  } else {
    // Without a method RFC 7636 means plain, which is refused like an explicit one.
    if (method.value !== 'S256') return refuse('invalid_request', 'code_challenge_method must be S256: plain is not supported');
    if (!CODE_CHALLENGE.test(challenge.value))
      return refuse('invalid_request', 'code_challenge must be 43 base64url characters: the SHA-256 of the code verifier');
  }

  const now = clock.now();
  const id = uuidv7();
  await db.insert(oauthAuthorizationRequests).values({
    id,
    clientId: client.id,
    redirectUri: redirectUri.value,
    scopes: scopes.scopes,
    state: state.value ?? null,
    codeChallenge: challenge.value ?? null,
    codeChallengeMethod: challenge.value === undefined ? null : 'S256',
    status: 'pending',
    createdAt: now,
    expiresAt: new Date(now.getTime() + AUTHORIZATION_REQUEST_TTL_MS),
  });
  return { kind: 'consent', requestId: id };
}

type RequestWithClient = { request: typeof oauthAuthorizationRequests.$inferSelect; client: typeof oauthClients.$inferSelect };

async function loadRequest(db: Executor, requestId: string): Promise<RequestWithClient | undefined> {
  if (!isUuid(requestId)) return undefined;
  const [row] = await db
    .select({ request: oauthAuthorizationRequests, client: oauthClients })
    .from(oauthAuthorizationRequests)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthAuthorizationRequests.clientId))
    .where(eq(oauthAuthorizationRequests.id, requestId))
    .limit(1);
  return row;
}

/** An open request, or the refusal that says why it cannot be decided. */
async function openRequest(db: Executor, actor: UserActor, requestId: string, now: Date): Promise<RequestWithClient> {
  const row = await loadRequest(db, requestId);
  if (!row) throw notFound(NOUN.what);
  assertOpen(row.request, actor, now, NOUN);
  return row;
}

export type AuthorizationConsent = Consent & { requestId: string; redirectUri: string };

/** What the consent page shows for a pending request. */
export async function describeAuthorizationRequest(
  { db, clock }: AuthorizationDeps,
  actor: UserActor,
  { requestId }: { requestId: string },
): Promise<AuthorizationConsent> {
  const { request, client } = await openRequest(db, actor, requestId, clock.now());
  const consent = await consentFor(db, actor, { client, scopes: request.scopes, expiresAt: request.expiresAt });
  return { ...consent, requestId: request.id, redirectUri: request.redirectUri };
}

/**
 * Decides a pending request (already found open) once: one statement moves it out of pending, so of
 * two decisions at once only one takes effect and the other is refused as already decided.
 */
async function decide(
  db: Executor,
  actor: UserActor,
  requestId: string,
  now: Date,
  change: Partial<typeof oauthAuthorizationRequests.$inferInsert>,
): Promise<typeof oauthAuthorizationRequests.$inferSelect> {
  const [decided] = await db
    .update(oauthAuthorizationRequests)
    .set({ ...change, userId: actor.userId, decidedAt: now })
    .where(
      and(
        eq(oauthAuthorizationRequests.id, requestId),
        eq(oauthAuthorizationRequests.status, 'pending'),
        gt(oauthAuthorizationRequests.expiresAt, now),
      ),
    )
    .returning();
  if (decided) return decided;
  // Someone decided first, or it expired meanwhile: say which.
  await openRequest(db, actor, requestId, now);
  throw new Error(`authorization request ${requestId} is open but could not be decided`);
}

/**
 * Approves a pending request for the chosen organizations (each one the user belongs to): the row
 * gets its one-time code, valid for the code lifetime from now. The answer is where to send the
 * browser: the redirect_uri with code, state and iss.
 */
export async function approveAuthorizationRequest(
  deps: ApprovalDeps,
  actor: UserActor,
  input: { requestId: string; organizationIds: readonly string[] },
): Promise<{ redirectTo: string }> {
  const { db, clock } = deps;
  const now = clock.now();
  await openRequest(db, actor, input.requestId, now);
  const organizationIds = await chosenOrganizations(db, actor, input.organizationIds);
  const code = OAUTH_PREFIXES.authorizationCode + randomToken(32);
  const row = await decide(db, actor, input.requestId, now, {
    status: 'approved',
    organizationIds,
    codeHash: sha256Hex(code),
    expiresAt: new Date(now.getTime() + deps.codeTtlMs),
  });
  return { redirectTo: withParams(row.redirectUri, { code, state: row.state, iss: deps.issuer }) };
}

/** Denies a pending request: the client hears access_denied (with its state) at its redirect_uri. */
export async function denyAuthorizationRequest(
  deps: AnswerDeps,
  actor: UserActor,
  input: { requestId: string },
): Promise<{ redirectTo: string }> {
  const now = deps.clock.now();
  await openRequest(deps.db, actor, input.requestId, now);
  const row = await decide(deps.db, actor, input.requestId, now, { status: 'denied' });
  return {
    redirectTo: withParams(row.redirectUri, {
      error: 'access_denied',
      error_description: 'the user denied the request',
      state: row.state,
      iss: deps.issuer,
    }),
  };
}
