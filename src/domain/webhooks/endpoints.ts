/**
 * Webhook endpoints: where an organization's events go, which types, and the signing secret (sealed
 * at rest, shown on create, on rotation and by the reveal route). Every query is scoped by
 * actor.organizationId.
 */
import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { webhookDeliveries, webhookEndpoints } from '../../db/schema.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import { assertSafeTarget, UnsafeTargetError } from '../../lib/safe-fetch.ts';
import type { Actor } from '../actor.ts';
import { conflict, invalid, notFound } from '../errors.ts';
import type { EventType } from '../events/outbox.ts';
import { isEventType } from './catalog.ts';
import { MAX_ENDPOINTS_PER_ORGANIZATION, ROTATION_OVERLAP_MS, type WebhookDeps } from './deps.ts';
import { generateSecret } from './signing.ts';

export type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** Loads an endpoint of the actor's organization; another organization's id is simply not found. */
export async function loadEndpoint(db: Executor, actor: Actor, endpointId: string): Promise<EndpointRow> {
  if (!isUuid(endpointId)) throw notFound('webhook endpoint');
  const [row] = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.organizationId, actor.organizationId)))
    .limit(1);
  if (!row) throw notFound('webhook endpoint');
  return row;
}

/** Every endpoint of the organization, oldest first (there are at most MAX_ENDPOINTS_PER_ORGANIZATION). */
export async function listEndpoints({ db }: Pick<WebhookDeps, 'db'>, actor: Actor): Promise<EndpointRow[]> {
  return db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.organizationId, actor.organizationId))
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
}

/** What lets a receiver on this machine or network through, for trying webhooks locally (never in production). */
const PRIVATE_TARGETS_HINT =
  'a receiver on this machine or a private network (http, localhost, 10.x, 192.168.x) needs the service started with ALLOW_PRIVATE_NETWORK_TARGETS=true, for local development only';

/** An unsafe URL is invalid at /url; a refusal of the private-network rule says how to allow it. */
export async function assertTarget(deps: Pick<WebhookDeps, 'policy'>, url: string): Promise<void> {
  try {
    await assertSafeTarget(url, deps.policy);
  } catch (err) {
    if (!(err instanceof UnsafeTargetError)) throw err;
    const hint = err.privateRule ? `; ${PRIVATE_TARGETS_HINT}` : '';
    throw invalid(`url ${err.message}${hint}`, [{ pointer: '/url', message: `${err.message}${hint}` }]);
  }
}

/** Event types not in the catalogue, with their index in the input's eventTypes. */
export type UnknownEventTypes = { ok: false; refusal: 'unknown_event_types'; unknown: Array<{ index: number; type: string }> };

function checkEventTypes(types: readonly string[]): { ok: true; eventTypes: EventType[] } | UnknownEventTypes {
  const unknown = types.flatMap((type, index) => (isEventType(type) ? [] : [{ index, type }]));
  if (unknown.length > 0) return { ok: false, refusal: 'unknown_event_types', unknown };
  return { ok: true, eventTypes: [...new Set(types)] as EventType[] };
}

export type CreateEndpointInput = { url: string; description?: string; eventTypes?: string[]; enabled?: boolean };

/** Creates an endpoint with a new secret; the secret is in the result this once (and by revealSecret). */
export async function createEndpoint(
  deps: Pick<WebhookDeps, 'db' | 'clock' | 'sealer' | 'policy'>,
  actor: Actor,
  input: CreateEndpointInput,
): Promise<{ ok: true; row: EndpointRow; secret: string } | UnknownEventTypes> {
  const checked = checkEventTypes(input.eventTypes ?? []);
  if (!checked.ok) return checked;
  const { eventTypes } = checked;
  await assertTarget(deps, input.url);
  const secret = generateSecret();
  const now = deps.clock.now();
  const enabled = input.enabled ?? true;
  const row = await deps.db.transaction(async (tx) => {
    // Serializes creates of one organization, so two at once cannot both pass the limit.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`webhook_endpoints:${actor.organizationId}`}))`);
    const [existing] = await tx
      .select({ n: count() })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.organizationId, actor.organizationId));
    if ((existing?.n ?? 0) >= MAX_ENDPOINTS_PER_ORGANIZATION) {
      throw conflict(`an organization has at most ${MAX_ENDPOINTS_PER_ORGANIZATION} webhook endpoints; delete one first`);
    }
    const [created] = await tx
      .insert(webhookEndpoints)
      .values({
        id: uuidv7(),
        organizationId: actor.organizationId,
        url: input.url,
        description: input.description ?? '',
        eventTypes,
        enabled,
        disabledReason: enabled ? null : 'disabled when it was created',
        disabledAt: enabled ? null : now,
        secretSealed: deps.sealer.seal(secret),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return created!;
  });
  return { ok: true, row, secret };
}

export type UpdateEndpointInput = { endpointId: string; url?: string; description?: string; eventTypes?: string[]; enabled?: boolean };

/**
 * Changes an endpoint. Disabling it fails its pending deliveries (they can be retried by hand once it
 * is enabled again); enabling it clears the disabled reason and the failure count.
 */
export async function updateEndpoint(
  deps: Pick<WebhookDeps, 'db' | 'clock' | 'policy'>,
  actor: Actor,
  input: UpdateEndpointInput,
): Promise<{ ok: true; row: EndpointRow } | UnknownEventTypes> {
  const current = await loadEndpoint(deps.db, actor, input.endpointId);
  const checked = input.eventTypes ? checkEventTypes(input.eventTypes) : undefined;
  if (checked && !checked.ok) return checked;
  const eventTypes = checked?.eventTypes;
  if (input.url !== undefined && input.url !== current.url) await assertTarget(deps, input.url);
  const now = deps.clock.now();
  const disabling = input.enabled === false && current.enabled;
  const enabling = input.enabled === true && !current.enabled;
  return deps.db.transaction(async (tx) => {
    const [row] = await tx
      .update(webhookEndpoints)
      .set({
        ...(input.url !== undefined ? { url: input.url } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(eventTypes ? { eventTypes } : {}),
        ...(disabling ? { enabled: false, disabledReason: 'disabled by a user', disabledAt: now } : {}),
        ...(enabling ? { enabled: true, disabledReason: null, disabledAt: null, consecutiveFailures: 0, failingSince: null } : {}),
        updatedAt: now,
      })
      .where(and(eq(webhookEndpoints.id, current.id), eq(webhookEndpoints.organizationId, actor.organizationId)))
      .returning();
    if (!row) throw notFound('webhook endpoint');
    if (disabling) await failPendingDeliveries(tx, row.id, 'endpoint disabled by a user', now);
    return { ok: true as const, row };
  });
}

/** Marks an endpoint's pending deliveries failed (its attempts in flight finish and are recorded). */
export async function failPendingDeliveries(db: Executor, endpointId: string, reason: string, now: Date): Promise<void> {
  await db
    .update(webhookDeliveries)
    .set({ status: 'failed', nextAttemptAt: null, lastError: reason, updatedAt: now })
    .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.status, 'pending')));
}

/** Deletes an endpoint with its deliveries and their attempts. */
export async function deleteEndpoint(deps: Pick<WebhookDeps, 'db'>, actor: Actor, { endpointId }: { endpointId: string }): Promise<void> {
  if (!isUuid(endpointId)) throw notFound('webhook endpoint');
  const deleted = await deps.db
    .delete(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.organizationId, actor.organizationId)))
    .returning({ id: webhookEndpoints.id });
  if (deleted.length === 0) throw notFound('webhook endpoint');
}

/**
 * Replaces the signing secret. The old one keeps signing beside the new one (two signatures) for 24
 * hours, so receivers can switch without losing a message; a second rotation within that time drops
 * the oldest at once.
 */
export async function rotateSecret(
  deps: Pick<WebhookDeps, 'db' | 'clock' | 'sealer'>,
  actor: Actor,
  { endpointId }: { endpointId: string },
): Promise<{ row: EndpointRow; secret: string; previousSecretExpiresAt: Date }> {
  const current = await loadEndpoint(deps.db, actor, endpointId);
  const secret = generateSecret();
  const now = deps.clock.now();
  const previousSecretExpiresAt = new Date(now.getTime() + ROTATION_OVERLAP_MS);
  const [row] = await deps.db
    .update(webhookEndpoints)
    .set({ secretSealed: deps.sealer.seal(secret), previousSecretSealed: current.secretSealed, previousSecretExpiresAt, updatedAt: now })
    .where(and(eq(webhookEndpoints.id, current.id), eq(webhookEndpoints.organizationId, actor.organizationId)))
    .returning();
  if (!row) throw notFound('webhook endpoint');
  return { row, secret, previousSecretExpiresAt };
}

export type RevealedSecret = { secret: string; previousSecret: string | null; previousSecretExpiresAt: Date | null };

/** The endpoint's secret, and the one before it while it still signs. */
export async function revealSecret(
  deps: Pick<WebhookDeps, 'db' | 'clock' | 'sealer'>,
  actor: Actor,
  { endpointId }: { endpointId: string },
): Promise<RevealedSecret> {
  const row = await loadEndpoint(deps.db, actor, endpointId);
  const overlapping = row.previousSecretSealed && row.previousSecretExpiresAt && row.previousSecretExpiresAt > deps.clock.now();
  return {
    secret: deps.sealer.open(row.secretSealed),
    previousSecret: overlapping ? deps.sealer.open(row.previousSecretSealed!) : null,
    previousSecretExpiresAt: overlapping ? row.previousSecretExpiresAt! : null,
  };
}

/** The secrets that sign now: the current one, and the previous one during its overlap. */
export function signingSecrets(
  row: Pick<EndpointRow, 'secretSealed' | 'previousSecretSealed' | 'previousSecretExpiresAt'>,
  open: (sealed: string) => string,
  now: Date,
): string[] {
  const secrets = [open(row.secretSealed)];
  if (row.previousSecretSealed && row.previousSecretExpiresAt && row.previousSecretExpiresAt > now)
    secrets.push(open(row.previousSecretSealed));
  return secrets;
}
