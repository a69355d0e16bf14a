/**
 * What both user-facing flows (authorization code, device) share: the scopes a client may be given,
 * the consent a person is shown (the client, the scopes, the organizations they may choose), the
 * organizations they choose, and the one rule for a flow's stored request: open while pending and
 * unexpired, then it belongs to whoever decided it (to anyone else it is unknown).
 */
import type { Executor } from '../../db/client.ts';
import { isUuid } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { conflict, DomainError, notFound } from '../errors.ts';
import { isPermission, type Permission } from '../permissions.ts';
import { listMemberships, type Membership } from '../users/users.ts';
import { parseScope, type OAuthClient } from './vocabulary.ts';

export type UserActor = Extract<Actor, { kind: 'user' }>;

export type ScopeChoice = { ok: true; scopes: Permission[] } | { ok: false; description: string };

/**
 * The scopes of a request: the ones asked for, each of them known and registered for the client;
 * none asked for means every scope the client registered (RFC 6749 §3.3 lets the server default).
 */
export function clientScopes(client: Pick<OAuthClient, 'scopes'>, requested: string | undefined): ScopeChoice {
  const registered = client.scopes.filter(isPermission);
  if (requested === undefined || requested.trim() === '') {
    if (registered.length === 0) return { ok: false, description: 'no scope was requested and the client has none registered' };
    return { ok: true, scopes: registered };
  }
  const parsed = parseScope(requested);
  if (!parsed.ok) return { ok: false, description: `unknown scope ${parsed.unknown.slice(0, 5).join(', ').slice(0, 200)}` };
  const beyond = parsed.scopes.filter((s) => !registered.includes(s));
  if (beyond.length > 0) return { ok: false, description: `the client is not registered for scope ${beyond.join(', ')}` };
  return { ok: true, scopes: parsed.scopes };
}

/** What a person is asked to approve. */
export type Consent = {
  client: { clientId: string; name: string };
  scopes: Permission[];
  /** The organizations the person may let the client reach: theirs. */
  organizations: Membership[];
  expiresAt: Date;
};

export async function consentFor(
  db: Executor,
  actor: UserActor,
  input: { client: OAuthClient; scopes: string[]; expiresAt: Date },
): Promise<Consent> {
  return {
    client: { clientId: input.client.clientId, name: input.client.name },
    scopes: input.scopes.filter(isPermission),
    organizations: await listMemberships(db, actor.userId),
    expiresAt: input.expiresAt,
  };
}

/** The chosen organizations, without repeats; each must be one the user is a member of. */
export async function chosenOrganizations(db: Executor, actor: UserActor, organizationIds: readonly string[]): Promise<string[]> {
  const chosen = [...new Set(organizationIds)];
  if (chosen.length === 0)
    throw new DomainError('invalid', 'choose at least one organization', {
      fieldErrors: [{ pointer: '/organization_ids', message: 'must name at least one organization' }],
    });
  const mine = new Set((await listMemberships(db, actor.userId)).map((m) => m.organizationId));
  const foreign = chosen.find((id) => !mine.has(id));
  if (foreign !== undefined) {
    throw new DomainError(
      'forbidden',
      `not a member of organization ${isUuid(foreign) ? foreign : JSON.stringify(foreign.slice(0, 64))}: choose organizations you belong to`,
      {
        fieldErrors: [
          { pointer: `/organization_ids/${organizationIds.indexOf(foreign)}`, message: 'not an organization you are a member of' },
        ],
      },
    );
  }
  return chosen;
}

/** The parts of a stored flow request that decide whether it is still open. */
export type FlowState = { status: string; userId: string | null; expiresAt: Date };

/** How a flow names its stored request in refusals, and where to start again once it expired. */
export type FlowNoun = { what: string; restart: string };

/**
 * Refuses a request that cannot be decided now: unknown (or decided by someone else: to them it is
 * unknown), already decided (409), or expired (410).
 */
export function assertOpen<T extends FlowState>(row: T | undefined, actor: UserActor, now: Date, noun: FlowNoun): T {
  if (!row || (row.status !== 'pending' && row.userId !== actor.userId)) throw notFound(noun.what);
  if (row.status !== 'pending') throw conflict(`this ${noun.what} was already ${row.status === 'denied' ? 'denied' : 'approved'}`);
  if (row.expiresAt.getTime() <= now.getTime()) throw new DomainError('gone', `this ${noun.what} expired: ${noun.restart}`);
  return row;
}

/**
 * The address a flow sends its answer to: the registered URI exactly as registered (never re-parsed,
 * so a native app's custom scheme stays as it is), with the parameters added to its query.
 */
export function withParams(uri: string, params: Record<string, string | undefined | null>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== null) query.append(name, value);
  const text = query.toString();
  const hash = uri.indexOf('#');
  const base = hash === -1 ? uri : uri.slice(0, hash);
  if (!text) return base;
  const joiner = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return base + joiner + text;
}
